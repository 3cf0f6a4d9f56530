"""Match sessions: an intent's live proposals ranked (matching/ranking.py) and recorded."""

from datetime import datetime
from decimal import Decimal
from typing import Any, NamedTuple

import orjson
from django.db import transaction
from django.db.models import (
    BooleanField,
    ExpressionWrapper,
    Q,
    QuerySet,
    TextField,
)
from django.db.models.functions import Cast
from django.utils import timezone

from catalog.models import Recommendation
from catalog.services import cards_build, cards_record, products_with_videos
from kernel.errors import (
    MATCH_NOT_FOUND,
    PROPOSALS_NOT_OF_INTENT,
)
from kernel.ids import MATCH_SESSION, find_minted, new_id
from kernel.money import usd_rate
from matching import ranking
from matching.models import (
    Intent,
    MatchSession,
    ProposalStatus,
)
from matching.services.intents import intent_get

TIE_BREAK = "score desc, then price asc (none last), then submission time, then proposal_id"


def intent_facts(intent: Intent) -> ranking.IntentFacts:
    """What ranking reads of an intent: its tags, and its budget in the catalog's dollars (the
    proposals' prices are in them); a budget in a currency without a rate is not judged."""
    budget = intent.budget_range or {}
    rate = usd_rate(budget.get("currency"))

    def in_usd(amount: float | None) -> float | None:
        return None if amount is None or rate is None else float(Decimal(str(amount)) * rate)

    return ranking.IntentFacts(
        tags=tuple(intent.intent_tags),
        budget_min=in_usd(budget.get("min")),
        budget_max=in_usd(budget.get("max")),
    )


class Candidate(NamedTuple):
    """What ranking reads of a proposal, computed by the database where it can be: expiry and
    merchant recency as booleans, score inputs as JSON text. Building 1,000 full proposals with
    all their JSON and dates cost more than the ranking itself."""

    proposal_id: str
    status: str
    expired: bool
    product_id: int
    score_inputs: str
    merchant_id: str | None
    merchant_status: str | None
    seen_recently: bool

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> "Candidate":
        """A row of candidates_of()."""
        return cls(*row)

    @classmethod
    def catalog_offer(cls, proposal_id: str, product_id: int, score_inputs: str) -> "Candidate":
        """A new proposal of the gateway's own catalog (recommend): live, no merchant."""
        return cls(
            proposal_id,
            ProposalStatus.SUBMITTED,
            False,
            product_id,
            score_inputs,
            None,
            None,
            False,
        )


def candidates_of(intent: Intent, now: datetime) -> QuerySet[Any]:
    """The intent's proposals as Candidate rows, in submission order."""
    return intent.proposals.order_by("created_at", "proposal_id").values_list(
        "proposal_id",
        "status",
        ExpressionWrapper(Q(valid_until__lte=now), output_field=BooleanField()),
        "product_id",
        Cast("proposal_score_inputs", TextField()),
        "merchant__merchant_id",
        "merchant__status",
        ExpressionWrapper(
            Q(merchant__last_seen_at__gte=now - ranking.RECENTLY_SEEN), output_field=BooleanField()
        ),
    )


def proposal_facts(candidate: Candidate, order: int) -> ranking.ProposalFacts:
    inputs = orjson.loads(candidate.score_inputs)
    terms, fields = ranking.stored_terms(inputs)
    return ranking.ProposalFacts(
        proposal_id=candidate.proposal_id,
        price=inputs.get("price"),
        inventory_status=inputs.get("inventory_status", "unknown"),
        shipping_days=inputs.get("shipping_days"),
        free_shipping=bool(inputs.get("free_shipping")),
        commission_rate=inputs.get("commission_rate"),
        evidence_count=int(inputs.get("evidence_count", 0)),
        product_terms=terms,
        product_fields=fields,
        reliability=ranking.merchant_reliability(
            status=candidate.merchant_status, seen_recently=bool(candidate.seen_recently)
        ),
        order=order,
    )


def session_ranking(
    intent: Intent, candidates: list[Candidate], limit: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rank the live candidates: the ranked items (best first) and the session's summary."""
    live, excluded = [], []
    for candidate in candidates:
        if candidate.status == ProposalStatus.SUBMITTED and not candidate.expired:
            live.append(candidate)
        else:
            reason = ProposalStatus.EXPIRED if candidate.expired else candidate.status
            excluded.append({"proposal_id": candidate.proposal_id, "reason": reason})
    facts = (proposal_facts(candidate, order) for order, candidate in enumerate(live))
    top = ranking.rank(intent_facts(intent), facts, limit)
    by_id = {candidate.proposal_id: candidate for candidate in live}
    for item in top:
        candidate = by_id[item["proposal_id"]]
        item["product_id"] = candidate.product_id
        item["merchant_agent_id"] = candidate.merchant_id or "catalog"
    summary = {
        "weights": ranking.WEIGHTS,
        "considered": len(candidates),
        "ranked": len(live),
        "returned": len(top),
        "excluded": excluded,
        "limit": limit,
        "tie_break": TIE_BREAK,
        "intent_tags": list(intent.intent_tags),
        "budget_range": intent.budget_range,
    }
    return top, summary


def match_create(*, intent_id: str, proposal_ids: list[str] | None, limit: int) -> MatchSession:
    """Rank the intent's live proposals (or the listed ones) and record the session."""
    intent = intent_get(intent_id=intent_id)
    now = timezone.now()
    rows = candidates_of(intent, now)
    if proposal_ids is not None:
        wanted = list(dict.fromkeys(proposal_ids))
        # In submission order, as the query returns them: the tie-break must not depend on
        # the order in which the caller listed the ids.
        found = {row[0]: Candidate.from_row(row) for row in rows.filter(proposal_id__in=wanted)}
        missing = [pid for pid in wanted if pid not in found]
        if missing:
            raise PROPOSALS_NOT_OF_INTENT(ids=", ".join(missing[:10]))
        candidates = list(found.values())
    else:
        candidates = [Candidate.from_row(row) for row in rows]
    top, summary = session_ranking(intent, candidates, limit)
    product_ids = list(dict.fromkeys(item["product_id"] for item in top))
    loaded = {p.id: p for p in products_with_videos().filter(id__in=product_ids)}
    products = [loaded[pid] for pid in product_ids if pid in loaded]
    # Cards are built before the transaction: no write lock is held while they are composed.
    cards = cards_build(products=products, channel=None)
    with transaction.atomic():
        cards_record(products=products, cards=cards, intent_id=intent.intent_id)
        return session_record(intent, top, summary, cards)


def session_record(
    intent: Intent, top: list[dict[str, Any]], summary: dict[str, Any], cards: list[dict[str, Any]]
) -> MatchSession:
    """Record a ranking (session_ranking) with the cards issued for its products."""
    session = session_row(intent, top, summary, cards)
    session.save(force_insert=True)
    return session


def session_row(
    intent: Intent, top: list[dict[str, Any]], summary: dict[str, Any], cards: list[dict[str, Any]]
) -> MatchSession:
    """The MatchSession of a ranking, not yet written."""
    return MatchSession(
        match_session_id=new_id(MATCH_SESSION),
        intent=intent,
        best_proposal_id=top[0]["proposal_id"] if top else None,
        ranked_proposals=top,
        summary=summary,
        card_rec_ids=[card["rec_id"] for card in cards],
    )


def match_get(*, match_session_id: str) -> MatchSession:
    missing = MATCH_NOT_FOUND()
    return find_minted(MatchSession.objects.all(), MATCH_SESSION, match_session_id, missing)


def match_cards(*, session: MatchSession, limit: int | None) -> list[dict[str, Any]]:
    """The cards issued with the session, best first: the products of its first `limit` ranked
    proposals. Reading them writes nothing."""
    ranked = session.ranked_proposals[:limit] if limit else session.ranked_proposals
    wanted = {item["product_id"] for item in ranked}
    cards = dict(
        Recommendation.objects.filter(rec_id__in=session.card_rec_ids).values_list("rec_id", "card")
    )
    return [
        cards[rec_id]
        for rec_id in session.card_rec_ids
        if rec_id in cards and int(cards[rec_id]["product"]["id"]) in wanted
    ]
