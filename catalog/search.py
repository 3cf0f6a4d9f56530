"""Tiered product retrieval for a resolved intent (docs/relevance.md tells why each tier is).

The tiers run from tightest to loosest; each one only adds products the earlier ones missed:

    raw_substring  the shopper's own words, in their order, are words of a product title
    strict         every keyword, inside the resolved categories; then every keyword with one
                   put in other words of the same meaning (catalog/synonyms.py)
    narrow         every keyword, any category; then in other words, as strict
    fuzzy          every keyword, each word the catalog does not know corrected to the known
                   word spelled most like it (catalog/spelling.py); the resolved categories
                   first (there, then without the words that say whom it is for: a title that
                   names nobody is for anyone), then outside them; never matched against
                   category names
    partial        some of the keywords' words: a product must hold the word that names a
                   product in one of them (catalog/heads.py: its last word, "cooker" of
                   "pressure cooker"; "bottle" of "water bottle 1 litre for gym"), and
                   ranks by the words it holds, a rare word weighing more than a common one,
                   so a weak word ("kitchen") lowers a product instead of removing them all;
                   a word the catalog does not know read as the two it holds standing
                   together ("waterbottle"), else corrected, else left out; the resolved
                   categories first among equals; never matched against category names; a
                   model number ("1.5", "x200") counts where its terms stand together; with
                   the semantic signal on, each product's likeness to the query added to its
                   weight (catalog/meaning.py)
    semantic       the products nearest in meaning to the query among the resolved categories'
                   (catalog/meaning.py, catalog/semantic.py); nothing while SEMANTIC_SEARCH is off
    broadened      the resolved categories only, ranked by the keywords first, sales second

A keyword matches on whole words with their stems ("shoes" finds "Shoe", "men" never finds
"Women's"); a keyword of several words matches when they stand near each other in one field.
The strict, narrow and fuzzy tiers read a keyword of three words or more as the phrases the
catalog writes (catalog/phrases.py: "noise cancelling headphones" as "noise cancelling" and
"headphones"), each phrase a keyword of its own.
Inside a tier, products of the wanted type come first (catalog/types.py: the thing the shopper
asked for before products that only mention it), then those of the resolved categories, then the
product itself before accessories of it, then the database's relevance score, then the best
sellers with creators.
Across the tiers, a product whose title states another size than the shopper stated ("256GB"
for "64gb"), or names only someone else than the shopper asked for ("Women's" for men), or is
for animals when the shopper named none, comes after those that do not (catalog/aside.py).

Every tier, and the trending fill after them, keeps to the region (products sold there or
everywhere) and to the budget: a stated maximum is never exceeded, a stated minimum never
undercut, and a product without a price is left out when a budget was stated.

The catalog is searched where it is kept (catalog/fulltext.py): each tier asks the database for
its best CANDIDATES products, checks each against the exact rule of its tier and orders them;
no request reads more than that back, and no process holds anything that grows with the catalog.
"""

import time
from collections.abc import Iterable, Sequence
from dataclasses import replace

from catalog import (
    aside,
    audiences,
    compounds,
    fulltext,
    meaning,
    metrics,
    ordering,
    partial,
    phrases,
    spelling,
    synonyms,
    text,
    trending,
    types,
    wanted,
)
from catalog.categories import catalog_categories as catalog_categories
from catalog.categories import near as near_categories
from catalog.documents import FIELDS
from catalog.query import SearchQuery as SearchQuery
from catalog.query import fits as fits
from catalog.retrieval import CANDIDATES as CANDIDATES
from catalog.retrieval import NOT_CATEGORY as NOT_CATEGORY
from catalog.retrieval import TIERS as TIERS
from catalog.retrieval import TRENDING as TRENDING
from catalog.retrieval import Hit as Hit
from catalog.retrieval import Retrieval as Retrieval
from catalog.spelling import corrections as corrections
from kernel.tracing import traced

# How often a tier is asked again for products in place of those of another size it found.
ASKS_PER_TIER = 3
# The fields a phrase keyword may stand in (descriptions are searched for single words only).
KEPT_FIELDS = ("title", "tags", "brand", "category")


@traced("retrieve", result=lambda found: found.attributes())
def retrieve(query: SearchQuery, limit: int) -> Retrieval:
    """Up to `limit` products: the tiers in order, then trending products to fill."""
    started = time.perf_counter()
    query = wanted.understood(query)
    found: dict[int, str] = {}
    later: dict[int, str] = {}  # of another size, or for others, than the shopper asked for
    typed: set[int] = set()  # of a kind the shopper wants, of those read for their size
    nearer: set[int] = set()  # set aside only as a baby's, where the shopper named no one young
    elsewhere: set[int] = set()  # of a kind wanted, but a vehicle's where the shopper named none
    for tier in TIERS:
        for _ask in range(ASKS_PER_TIER):
            if len(found) >= limit:
                break
            ids = tier_ids(tier, query, limit - len(found), exclude=[*found, *later])
            set_aside = aside.set_aside(query, ids, typed, nearer, elsewhere)
            for product_id in ids:
                (later if product_id in set_aside else found).setdefault(product_id, tier)
            if not set_aside:
                break
    if later:
        found = aside.served_after(found, later, typed, limit, nearer, elsewhere)
    if len(found) < limit and not query.only_categories:  # the broadened tier gave its sellers
        for product_id in trending.trending_ids(query, limit - len(found), exclude=found):
            found.setdefault(product_id, TRENDING)
    retrieval = Retrieval([Hit(product_id, tier) for product_id, tier in found.items()])
    metrics.retrieved(started, retrieval.match_tier)
    return retrieval


def tier_ids(
    tier: str, query: SearchQuery, limit: int, *, exclude: Iterable[int] = ()
) -> list[int]:
    """The ids one tier finds, best first, none of `exclude`."""
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}")
    keywords = [terms for terms in map(text.query_terms, query.keywords) if terms]
    categories = tuple(dict.fromkeys(name.lower() for name in query.categories))
    loose = tier in ("fuzzy", "broadened") and bool(categories)
    filters = fulltext.Filters(
        region=query.region,
        budget_min=query.budget_min,
        budget_max=query.budget_max,
        categories=categories,
        within=query.only_categories or tier == "strict" or loose,
        near=near_categories(categories),
        exclude=tuple(exclude),
        ruled_out=tuple(tuple(terms) for terms in query.excluded),
        ruled_out_categories=query.ruled_out_categories,
        kinds=tuple(tuple(kind) for kind in query.wanted),
        brand=query.brand,
        cheapest_first=query.cheapest_first,
    )
    if tier == "raw_substring":
        return _title_phrase(query, filters, keywords, limit)
    if tier in ("strict", "narrow"):
        if not keywords or (tier == "strict" and not categories):
            return []
        # A long keyword as the phrases titles write ("noise cancelling", "headphones").
        said = [keyword for keyword in phrases.read(query.keywords) if text.query_terms(keyword)]
        return _in_other_words(filters, [text.query_terms(one) for one in said], limit, said)
    if tier == "fuzzy":
        respelt = spelling.respelt(query.keywords)
        if respelt is None:
            return []
        # Read as the strict tier reads the keywords spelt right (in other words too).
        said = [one for one in phrases.read(respelt) if text.query_terms(one)]
        corrected = [text.query_terms(one) for one in said]
        # The resolved categories first, there also without the words that say whom it is for
        # (a title that names nobody is for anyone); then outside them.
        asks: list[tuple[fulltext.Filters, list[list[str]], Sequence[str]]] = [
            (filters, corrected, said)
        ]
        if filters.within:
            if some := audiences.for_anyone(corrected):
                asks.append((filters, some, ()))
            if not query.only_categories:
                asks.append((replace(filters, within=False), corrected, said))
        found: list[int] = []
        for scope, words, spelt in asks:
            if len(found) < limit:
                rest = replace(scope, exclude=(*scope.exclude, *found))
                found += _in_other_words(rest, words, limit - len(found), spelt, NOT_CATEGORY)
        return found
    if tier == "partial":
        return partial.ids(query, filters, limit)
    if tier == "semantic":
        return meaning.nearest(filters, keywords, limit, meaning.of(query))
    if not categories:
        return []
    return _broadened(filters, keywords, limit)


def _ids(candidates: Iterable[fulltext.Candidate]) -> list[int]:
    return [candidate.product_id for candidate in candidates]


def _every(
    match: fulltext.Match, filters: fulltext.Filters, keywords: list[list[str]], limit: int
) -> list[fulltext.Candidate]:
    """The products holding every keyword, a phrase's words in order and near each other in
    one field, best first."""
    fields = [name for name in KEPT_FIELDS if name in match.fields]
    phrases = [keyword for keyword in keywords if len(keyword) > 1]

    def holds_phrases(candidate: fulltext.Candidate) -> bool:
        return all(
            any(text.near(phrase, ordering.terms(candidate, name)) for name in fields)
            for phrase in phrases
        )

    found = fulltext.candidates(match, filters, CANDIDATES)
    cheap = filters.cheapest_first
    return ordering.ranked(found, keywords, limit, holds_phrases, cheapest_first=cheap)


def _in_other_words(
    filters: fulltext.Filters,
    keywords: list[list[str]],
    limit: int,
    said: Sequence[str] = (),
    fields: Sequence[str] = FIELDS,
) -> list[int]:
    """The products holding every keyword in `fields`, then every keyword with one spelt
    another way (catalog/compounds.py: "lunchbox") or in other words (catalog/synonyms.py:
    "sofa cover"); the wanted type first, in whichever words ("Kids Cycle" before "Bell for
    Kids Bicycle"). Two keywords of one thing in two names ("spike guard", "surge protector")
    are asked as the first, and the other in its other words."""
    kept = synonyms.distinct(keywords)
    keywords = [keywords[at] for at in kept]
    said = [said[at] for at in kept] if said else said
    found = _every(fulltext.Match(keywords, fields), filters, keywords, limit)
    types = {kind[-1] for kind in filters.kinds}
    spelt = [
        [*keywords[:at], spelling, *keywords[at + 1 :]]
        for at, keyword in enumerate(said)
        for spelling in compounds.spellings(keyword)
    ]
    for variant in [*spelt, *synonyms.variants(keywords)]:
        if len(found) >= limit and (
            sum(candidate.typed for candidate in found) >= limit
            or not types & {term for keyword in variant for term in keyword}
        ):
            continue  # enough, unless the variant names the wanted type in other words
        rest = replace(filters, exclude=(*filters.exclude, *_ids(found)))
        found += _every(fulltext.Match(variant, fields), rest, variant, limit)
    # Stable: each one's order within; by standing (ordering.standing: the named brand's, the
    # wanted type), then an accessory of the thing after the thing, whichever
    # words found either ("Cycle Bell for Bicycle" after "Kids Cycle"); asked cheap, the
    # resolved categories, then those named like them (categories.near), then the cheapest
    # first, whichever words found it (of those found: the other words are not asked once the
    # shopper's own found enough of the thing).
    heads = [keyword[-1] for keyword in keywords]
    asked = {term for keyword in keywords for term in keyword}
    cheap = filters.cheapest_first
    found.sort(
        key=lambda candidate: (
            *ordering.standing(candidate),
            text.accessory_of(heads, ordering.terms(candidate, "title"), asked),
            cheap and not candidate.in_categories,
            cheap and not candidate.near,
            ordering.price(candidate) if cheap else 0.0,
        )
    )
    return _ids(found[:limit])


def _title_phrase(
    query: SearchQuery, filters: fulltext.Filters, keywords: list[list[str]], limit: int
) -> list[int]:
    """The products whose title holds the shopper's own words as consecutive words where it
    names what it is: a title that holds them only after "for", "with" or "compatible" ("Lint
    Filter for LG Washing Machine") names what it fits, and is left to the tiers after, unless
    it is of the wanted type."""
    terms = text.terms(query.text)
    searched = [term for term in terms if term not in text.STOP_WORDS]
    if not searched or len(terms) > 40:
        return []
    match = fulltext.Match([searched], fields=("title",), exact_phrase=True)
    scored = keywords or [text.query_terms(query.text)]
    width, wanted = len(terms), tuple(terms)

    def holds_words(candidate: fulltext.Candidate) -> bool:
        title = ordering.terms(candidate, "title")
        purpose = next((at for at, term in enumerate(title) if term in types.PURPOSE_TERMS), None)
        return any(
            tuple(title[start : start + width]) == wanted
            and (candidate.typed or purpose is None or start < purpose)
            for start in range(len(title) - width + 1)
        )

    found = fulltext.candidates(
        match, filters, CANDIDATES, scored=[term for keyword in scored for term in keyword]
    )
    cheap = filters.cheapest_first
    ranked = ordering.ranked(found, scored, limit, holds_words, cheapest_first=cheap)
    return [candidate.product_id for candidate in ranked]


def _broadened(filters: fulltext.Filters, keywords: list[list[str]], limit: int) -> list[int]:
    """The categories' products: those holding any keyword first (an accessory of what the
    shopper named last of all), then the best sellers with creators, then the rest by id."""
    matched: list[fulltext.Candidate] = []
    if keywords:
        # Any word of any keyword: a product that holds part of a phrase still ranks by it.
        words = [[term] for term in dict.fromkeys(term for keyword in keywords for term in keyword)]
        found = fulltext.candidates(fulltext.Match(words, every=False), filters, CANDIDATES)
        matched = ordering.ranked(found, keywords, limit)
    heads = [keyword[-1] for keyword in keywords]
    asked = {term for keyword in keywords for term in keyword}
    accessories = [
        candidate.product_id
        for candidate in matched
        if text.accessory_of(heads, ordering.terms(candidate, "title"), asked)
    ]
    chosen = [
        candidate.product_id for candidate in matched if candidate.product_id not in accessories
    ]
    for fill in (fulltext.best_sellers, _by_id):
        if len(chosen) >= limit:
            break
        rest = replace(filters, exclude=(*filters.exclude, *chosen, *accessories))
        chosen.extend(fill(rest, limit - len(chosen)))
    return (chosen + accessories)[:limit]


def _by_id(filters: fulltext.Filters, limit: int) -> list[int]:
    return [candidate.product_id for candidate in fulltext.candidates(None, filters, limit)]
