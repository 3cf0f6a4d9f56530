"""GET /v1/recommend: a shopper's words in, product cards with attributed buy links out.

The flow of DESIGN.md section 5: resolve the words through the intent engine (503 when it is not
configured, before any cache is read), retrieve products tier by tier, build one card per
product, then record everything the protocol endpoints serve afterwards: the Intent, one catalog
Proposal per card, and a MatchSession ranking them. The answer carries the intent's demand
credential (matching/demand.py), shown this once. Intent.Surge is published with the intent
(its deliveries are queued after commit). The engine is awaited holding no thread and no
database connection; every row is composed first and then written at once, all or none
(kernel/inserts.py: one statement on PostgreSQL).
"""

import hashlib
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone
from django.utils.translation import ngettext

from catalog import search, text, versions
from catalog.cards import iso, sales_stats
from catalog.models import Product
from catalog.services import cards_build, cards_rows, products_for_cards
from kernel.cache import cached
from kernel.ids import INTENT, PROPOSAL, new_id
from kernel.inserts import insert_together
from matching import metrics, ranking
from matching.demand import new_demand_token
from matching.engine import client as engine
from matching.engine.resolution import Resolution, normalize
from matching.models import Intent, Proposal, ProposalStatus, Provenance
from matching.refining import Continuation, Refinement
from matching.rendering import intent_body, proposal_body
from matching.resolving import resolved_fields
from matching.services import (
    Candidate,
    intent_tag_rows,
    session_ranking,
    session_row,
)
from merchants.delivery import surge_announce, surge_event

TIER_WORDS = {
    "raw_substring": "its title contains your exact words",
    search.TRENDING: "it is trending with creators",
}


@dataclass(frozen=True)
class Pick:
    product: Product
    card: dict[str, Any]
    tier: str


def _dollars(value: float) -> str:
    return f"${value:,.2f}"


def _quoted(items: Sequence[str]) -> str:
    quoted = [f"\u201c{item}\u201d" for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _budget_words(resolution: Resolution) -> str:
    budget = resolution.budget
    if budget.min is not None and budget.max is not None:
        return f"between {_dollars(budget.min)} and {_dollars(budget.max)}"
    if budget.max is not None:
        return f"up to {_dollars(budget.max)}"
    if budget.min is not None:
        return f"from {_dollars(budget.min)}"
    return ""


def _pick_reasons(pick: Pick, resolution: Resolution) -> list[str]:
    """Why a pick is here, each reason true of the product: which of its fields hold which
    keywords (read by the analyzer search uses), and the category when that is why."""
    product = pick.product
    if pick.tier == search.TRENDING:
        return [TIER_WORDS[search.TRENDING]]
    reasons = [TIER_WORDS[pick.tier]] if pick.tier in TIER_WORDS else []
    keywords = list(resolution.keywords)
    if pick.tier == "fuzzy":
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


def _pick_line(number: int, pick: Pick, resolution: Resolution) -> str:
    product = pick.product
    reasons = _pick_reasons(pick, resolution)
    line = f"{number}. {product.title}" + (f": {'; '.join(reasons)}." if reasons else ".")
    if product.price_usd is not None:
        price = float(product.price_usd)
        line += f" {_dollars(price)}"
        if resolution.budget.max is not None:
            spare = resolution.budget.max - price
            line += (
                f", {_dollars(spare)} under your budget" if spare > 0 else ", right at your budget"
            )
        line += "."
    stats = sales_stats(list(product.videos.all()))
    if stats.orders:
        line += f" Creators sold {stats.orders:,} through their videos."
    return line


def shopper_guide(
    text: str, resolution: Resolution, region: str | None, picks: Sequence[Pick]
) -> str:
    """A few sentences for a person: what the gateway understood, and why each pick is here."""
    understood = f"You asked for \u201c{resolution.normalized_query or text}\u201d"
    details = []
    if resolution.categories:
        details.append(f"in {' or '.join(resolution.categories)}")
    if budget := _budget_words(resolution):
        details.append(budget)
    if region:
        details.append(f"sold in {region}")
    if details:
        understood += " (" + ", ".join(details) + ")"
    understood += "."
    if not picks:
        return understood + " Nothing in the catalog fits that yet; try other words."
    intent_picks = [pick for pick in picks if pick.tier != search.TRENDING]
    if not intent_picks:
        opener = " Nothing matched it directly, so these are the best sellers with creators"
        opener += " that fit your budget:" if resolution.budget.max is not None else ":"
    elif len(intent_picks) < len(picks):
        trending = len(picks) - len(intent_picks)
        more = ngettext("more is a trending pick", "more are trending picks", trending)
        opener = f" {len(intent_picks)} matched your request and {trending} {more}:"
    else:
        opener = f" {len(picks)} {ngettext('pick matches', 'picks match', len(picks))}:"
    lines = [_pick_line(number, pick, resolution) for number, pick in enumerate(picks, start=1)]
    return understood + opener + "\n" + "\n".join(lines)


def retrieved(query: search.SearchQuery, limit: int) -> list[search.Hit]:
    """The tiers' hits, reused from this process's memory for CATALOG_CACHE_S for the same
    query while the catalog's version holds (catalog/versions.py): a warm recommend then costs
    no search at all, and an edit reaches search on every process within CHECK_S."""
    digest = hashlib.sha256(orjson.dumps([asdict(query), limit], option=orjson.OPT_SORT_KEYS))
    found = cached(
        f"recommend:retrieval:{versions.current()}:{digest.hexdigest()}",
        settings.CATALOG_CACHE_S,
        lambda: [(hit.product_id, hit.tier) for hit in search.retrieve(query, limit).hits],
    )
    return [search.Hit(product_id, tier) for product_id, tier in found]


def _catalog_proposal(intent_id: str, pick: Pick, now: datetime) -> Proposal:
    product, card = pick.product, pick.card
    stats = sales_stats(list(product.videos.all()))
    evidence = (
        [
            {
                "type": "creator_sales",
                "videos": stats.videos,
                "orders": stats.orders,
                "gmv_usd": round(stats.gmv_usd, 2),
                "views": stats.views,
            }
        ]
        if stats.videos
        else []
    )
    price = float(product.price_usd) if product.price_usd is not None else None
    return Proposal(
        proposal_id=new_id(PROPOSAL),
        merchant=None,
        intent_id=intent_id,
        product=product,
        offer_title=product.title,
        price=product.price_usd,
        inventory_status="unknown",
        evidence=evidence,
        proposal_score_inputs=ranking.score_inputs(
            price=price,
            inventory_status="unknown",
            shipping_commitment={},
            commission_plan={},
            evidence=evidence,
            product_fields=ranking.product_fields(
                title=product.title,
                tags=product.tags,
                brand=product.brand,
                categories=[product.category_l1, product.category_l2],
            ),
        ),
        product_snapshot={**card["product"], "url": product.url},
        metadata={"rec_id": card["rec_id"], "match_tier": pick.tier},
        provenance=Provenance.CATALOG,
        status=ProposalStatus.SUBMITTED,
        created_at=now,
        updated_at=now,
    )


async def recommend(
    *,
    intent: str,
    limit: int,
    region: str | None,
    channel: str | None,
    refinement: Refinement | None = None,
) -> dict[str, Any]:
    """Answer GET /v1/recommend with every field of the interface (and with a `refinement`, UCP's
    search: matching/refining.py). Raises EngineUnavailable."""
    started = time.perf_counter()
    engine.require_configured()
    answer = partial(
        recommend_answer,
        intent=intent,
        limit=limit,
        region=region,
        channel=channel,
        refinement=refinement,
    )

    def answered_from_cache() -> tuple[engine.Lookup, dict[str, Any] | None]:
        # One hand-off to the web's threads when the resolution is cached (most recommends).
        found = engine.lookup(intent, region, search.catalog_categories)
        if found.resolution is None:
            return found, None
        return found, answer(resolution=found.resolution, from_cache=True)

    found, body = await sync_to_async(answered_from_cache)()
    if body is not None:
        metrics.recommended(body, started, engine_s=0)
        return body
    asking = time.perf_counter()
    asked = await engine.aask(found, intent)
    engine_s = time.perf_counter() - asking

    def answered_from_engine() -> dict[str, Any]:
        # One hand-off for reading the engine's answer and answering the shopper.
        return answer(resolution=engine.settle(found, intent, asked), from_cache=False)

    body = await sync_to_async(answered_from_engine)()
    metrics.recommended(body, started, engine_s)
    return body


def recommend_answer(
    *,
    intent: str,
    resolution: Resolution,
    from_cache: bool,
    limit: int,
    region: str | None,
    channel: str | None,
    refinement: Refinement | None = None,
) -> dict[str, Any]:
    """Retrieve, compose and record the answer to an intent the engine resolved."""
    region = region or resolution.region
    if refinement is not None:
        resolution = refinement.applied(resolution)
    query = search.SearchQuery(
        text=normalize(intent),
        keywords=resolution.keywords,
        categories=resolution.categories,
        region=region,
        budget_min=resolution.budget.min,
        budget_max=resolution.budget.max,
        only_categories=bool(refinement and refinement.categories),
    )
    hits = retrieved(query, limit + 1 if refinement and refinement.peek else limit)
    more = len(hits) > limit
    hits = hits[:limit]
    ids = [hit.product_id for hit in hits]
    loaded = products_for_cards(ids)
    # None deleted, moved out of the region or repriced over the budget since it was found
    # (as far as this process's memory knows: catalog edits count within CATALOG_CACHE_S).
    kept = [hit for hit in hits if search.fits(query, loaded.get(hit.product_id))]
    retrieval = search.Retrieval(kept)
    products = [loaded[hit.product_id] for hit in kept]
    cards = cards_build(products=products, channel=channel)
    picks = [
        Pick(product, card, hit.tier)
        for product, card, hit in zip(products, cards, kept, strict=True)
    ]
    intent_id, now = new_id(INTENT), timezone.now()
    # A microsecond apart: the proposals are listed (by creation time) in the order served.
    proposals = [
        _catalog_proposal(intent_id, pick, now + timedelta(microseconds=n))
        for n, pick in enumerate(picks)
    ]
    retrieval_counts = {
        "intent_hits": retrieval.intent_hits,
        "trending_fill": retrieval.trending_fill,
    }
    candidates = [
        Candidate.catalog_offer(
            proposal.proposal_id,
            proposal.product_id,
            orjson.dumps(proposal.proposal_score_inputs).decode(),
        )
        for proposal in proposals
    ]
    fields = resolved_fields(resolution, from_cache, kept={"region": region})
    demand_token, digest = new_demand_token()
    # Ranked before the transaction: on SQLite every writer waits for it to end.
    top, summary = session_ranking(Intent(**fields), candidates, max(limit, 1))
    intent_row = Intent(
        intent_id=intent_id,
        raw_query=intent,
        source_channel=channel,
        metadata={
            "keywords": resolution.keywords,
            "categories": resolution.categories,
            "match_tier": retrieval.match_tier,
            "retrieval": retrieval_counts,
        },
        demand_token_hash=digest,
        created_at=now,
        updated_at=now,
        **fields,
    )
    session = session_row(intent_row, top, summary, cards)
    event = surge_event(intent=intent_body(intent_row))
    insert_together(
        [intent_row],
        intent_tag_rows(intent_row),
        cards_rows(products=products, cards=cards, region=region, intent_id=intent_id),
        proposals,
        [session],
        [event] if event is not None else [],
    )
    if event is not None:
        surge_announce(event)
    return {
        "intent": intent,
        "intent_id": intent_id,
        "count": len(cards),
        "items": cards,
        "proposals": [proposal_body(proposal) for proposal in proposals],
        "proposal_count": len(proposals),
        "match_session_id": session.match_session_id,
        "demand_token": demand_token,
        "shopper_guide": shopper_guide(intent, resolution, region, picks),
        "note": retrieval.note,
        "match_tier": retrieval.match_tier,
        "intent_source": intent_row.resolution_source,
        "resolved_keywords": resolution.keywords,
        "resolved_categories": resolution.categories,
        "retrieval": retrieval_counts,
        "generated_at": iso(now),
    } | ({"search": Continuation(query, more)} if refinement is not None else {})
