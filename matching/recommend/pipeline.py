"""The recommend pipeline (this package's docstring names its stages): `recommend`, the one
entry of REST, UCP, A2A and MCP, and `retrieved`, which UCP's next pages read further down.

The engine is awaited holding no thread and no database connection: a cached resolution is
answered in one hand-off to the web's threads, an asked one in a second after the engine's
answer. The answer carries the intent's demand credential (matching/demand.py), shown this once.
"""

import time
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.utils import timezone

from catalog import search
from kernel.ids import INTENT, new_id
from kernel.steps import after_the_wait
from matching import metrics
from matching.demand import new_demand_token
from matching.engine.resolution import Resolution
from matching.intent_resolution import resolved_fields
from matching.models import Intent
from matching.recommend import (
    announce,
    compose,
    exclusions,
    rank,
    record,
    resolve,
    retrieve,
)
from matching.recommend.budget import priced
from matching.recommend.options import Continuation, Options, Refinement
from matching.recommend.retrieve import retrieved
from matching.services import session_row


async def recommend(
    *,
    intent: str,
    limit: int,
    region: str | None,
    channel: str | None,
    refinement: Refinement | None = None,
) -> dict[str, Any]:
    """Answer GET /v1/recommend with every field of the interface (and with a refinement,
    UCP's search: options.py). Raises EngineUnavailable."""
    started = time.perf_counter()
    options = Options(limit=limit, region=region, channel=channel, refinement=refinement)
    resolve.require_configured()
    answer = partial(recommend_answer, intent=intent, options=options)

    def answered_from_cache() -> tuple[Any, dict[str, Any] | None]:
        found = resolve.looked_up(intent, options.region)
        if found.resolution is None:
            return found, None
        return found, answer(resolution=found.resolution, from_cache=True)

    found, body = await sync_to_async(answered_from_cache)()
    if body is not None:
        metrics.recommended(body, started, engine_s=0)
        return body
    asking = time.perf_counter()
    asked = await resolve.asked(found, intent)
    engine_s = time.perf_counter() - asking

    def answered_from_engine() -> dict[str, Any]:
        return answer(resolution=resolve.settled(found, intent, asked), from_cache=False)

    body = await after_the_wait(answered_from_engine)
    metrics.recommended(body, started, engine_s)
    return body


def recommend_answer(
    *, intent: str, resolution: Resolution, from_cache: bool, options: Options
) -> dict[str, Any]:
    """The stages after the engine: retrieve, rank, compose, record and announce."""
    resolution = resolve.understood(resolution, options)
    excluded = exclusions.ruled_out(resolution)
    budget = priced(resolution.budget)
    query = retrieve.query_of(intent, resolution, options, budget, excluded)
    offers, more = retrieve.offers(query, options)
    offers = compose.carded(rank.scored(offers), options.channel)
    retrieval = search.Retrieval([search.Hit(offer.product.pk, offer.tier) for offer in offers])
    counts = {
        "intent_hits": retrieval.intent_hits,
        "trending_fill": retrieval.trending_fill,
        "excluded": [item.words for item in excluded],
        "budget": budget.field(),
    }
    fields = resolved_fields(resolution, from_cache, kept={"region": query.region})
    demand_token, digest = new_demand_token()
    # Ranked before the transaction: on SQLite every writer waits for it to end.
    top, summary = rank.session_order(Intent(**fields), offers, options.limit)
    intent_id, now = new_id(INTENT), timezone.now()
    metadata = {
        "keywords": resolution.keywords,
        "categories": resolution.categories,
        "match_tier": retrieval.match_tier,
        "retrieval": counts,
    }
    intent_row = Intent(
        intent_id=intent_id,
        raw_query=intent,
        source_channel=options.channel,
        metadata=metadata,
        demand_token_hash=digest,
        created_at=now,
        updated_at=now,
        **fields,
    )
    proposals = compose.proposals(intent_id, offers, now)
    session = session_row(intent_row, top, summary, [offer.card for offer in offers])
    event = announce.surge_of(intent_row)
    record.record(intent_row, offers, proposals, session, event)
    announce.announce(event)
    answered = compose.Answered(
        intent,
        resolution,
        budget,
        query.region,
        demand_token,
        retrieval.note,
        retrieval.match_tier,
        counts,
    )
    body = compose.body(answered, intent_row, offers, proposals, session)
    if options.refinement is not None:
        body["search"] = Continuation(query, more)
    return body


__all__ = ["recommend", "recommend_answer", "retrieved"]
