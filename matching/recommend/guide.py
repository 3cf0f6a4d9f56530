"""Compose, the shopper guide: a few sentences for a person, what the gateway understood and why
each offer is here, every reason true of the product."""

from collections.abc import Sequence

from django.utils.translation import ngettext

from catalog import search, text
from catalog.cards import sales_stats
from kernel.money import CATALOG_CURRENCY
from matching.engine.resolution import Resolution
from matching.recommend.budget import Priced
from matching.recommend.offer import Offer

TIER_WORDS = {
    "raw_substring": "its title contains your exact words",
    search.TRENDING: "it is trending with creators",
}


def _dollars(value: float) -> str:
    return f"${value:,.2f}"


def _quoted(items: Sequence[str]) -> str:
    quoted = [f"\u201c{item}\u201d" for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _money(amount: float, currency: str) -> str:
    return _dollars(amount) if currency == CATALOG_CURRENCY else f"{currency} {amount:,.2f}"


def _budget_words(budget: Priced) -> str:
    """The budget as the shopper stated it; in another currency, with its dollars beside it, or
    why it was not applied."""
    stated = budget.stated
    currency = stated.currency or CATALOG_CURRENCY
    low = _money(stated.min, currency) if stated.min is not None else None
    high = _money(stated.max, currency) if stated.max is not None else None
    dollars: tuple[float | None, ...]
    if low and high:
        words, dollars = f"between {low} and {high}", (budget.min_usd, budget.max_usd)
    elif high:
        words, dollars = f"up to {high}", (budget.max_usd,)
    elif low:
        words, dollars = f"from {low}", (budget.min_usd,)
    else:
        return ""
    if budget.in_dollars:
        return words
    if not budget.applied:
        return f"{words}, not applied: no exchange rate for {currency}"
    return f"{words}, about {' to '.join(_dollars(amount or 0) for amount in dollars)}"


def _offer_reasons(offer: Offer, resolution: Resolution) -> list[str]:
    """Why an offer is here, each reason true of the product: which of its fields hold which
    keywords (read by the analyzer search uses), and the category when that is why."""
    product = offer.product
    if offer.tier == search.TRENDING:
        return [TIER_WORDS[search.TRENDING]]
    reasons = [TIER_WORDS[offer.tier]] if offer.tier in TIER_WORDS else []
    keywords = list(resolution.keywords)
    if offer.tier == "fuzzy":
        fixed = search.corrections(keywords)
        reasons += [
            f"\u201c{word}\u201d read as \u201c{known}\u201d" for word, known in fixed.items()
        ]
        keywords = [
            " ".join(fixed.get(word, word) for word in text.words(keyword)) for keyword in keywords
        ]
    fields = {
        "title": product.title,
        "tags": " . ".join(product.tags),
        "brand": product.brand or "",
        "description": product.description,
    }
    said: set[str] = set()
    for name, wording in (
        ("title", "its title mentions"),
        ("tags", "its tags mention"),
        ("brand", "its brand mentions"),
        ("description", "its description mentions"),
    ):
        unsaid = [keyword for keyword in keywords if keyword not in said]
        if not unsaid or not fields[name]:
            continue
        terms = text.terms(fields[name])  # read only while a keyword is still unexplained
        found = [keyword for keyword in unsaid if text.mentions(keyword, terms)]
        if found:
            reasons.append(f"{wording} {_quoted(found)}")
            said.update(found)
    categories = [product.category_l2, product.category_l1]
    wanted = {name.casefold() for name in resolution.categories}
    in_category = next((name for name in categories if name and name.casefold() in wanted), None)
    if in_category:
        reasons.append(f"it is in the category \u201c{in_category}\u201d")
    else:
        category_terms = text.terms(" . ".join(name for name in categories if name))
        found = [
            keyword
            for keyword in keywords
            if keyword not in said and text.mentions(keyword, category_terms)
        ]
        if found:
            reasons.append(
                f"its category \u201c{product.category_l2 or product.category_l1}\u201d "
                f"matches {_quoted(found)}"
            )
    return reasons


def _offer_line(number: int, offer: Offer, resolution: Resolution, budget: Priced) -> str:
    product = offer.product
    reasons = _offer_reasons(offer, resolution)
    line = f"{number}. {product.title}" + (f": {'; '.join(reasons)}." if reasons else ".")
    if product.price_usd is not None:
        price = float(product.price_usd)
        line += f" {_dollars(price)}"
        if budget.max_usd is not None:
            spare = budget.max_usd - price
            line += (
                f", {_dollars(spare)} under your budget" if spare > 0 else ", right at your budget"
            )
        line += "."
    stats = sales_stats(list(product.videos.all()))
    if stats.orders:
        line += f" Creators sold {stats.orders:,} through their videos."
    return line


def shopper_guide(
    text: str, resolution: Resolution, budget: Priced, region: str | None, offers: Sequence[Offer]
) -> str:
    """A few sentences for a person: what the gateway understood, and why each offer is here."""
    understood = f"You asked for \u201c{resolution.normalized_query or text}\u201d"
    details = []
    if resolution.categories:
        details.append(f"in {' or '.join(resolution.categories)}")
    if budget_words := _budget_words(budget):
        details.append(budget_words)
    if region:
        details.append(f"sold in {region}")
    if details:
        understood += " (" + ", ".join(details) + ")"
    understood += "."
    if not offers:
        return understood + " Nothing in the catalog fits that yet; try other words."
    intent_offers = [offer for offer in offers if offer.tier != search.TRENDING]
    if not intent_offers:
        opener = " Nothing matched it directly, so these are the best sellers with creators"
        opener += " that fit your budget:" if budget.max_usd is not None else ":"
    elif len(intent_offers) < len(offers):
        trending = len(offers) - len(intent_offers)
        more = ngettext("more is a trending pick", "more are trending picks", trending)
        opener = f" {len(intent_offers)} matched your request and {trending} {more}:"
    else:
        opener = f" {len(offers)} {ngettext('pick matches', 'picks match', len(offers))}:"
    lines = [
        _offer_line(number, offer, resolution, budget)
        for number, offer in enumerate(offers, start=1)
    ]
    return understood + opener + "\n" + "\n".join(lines)
