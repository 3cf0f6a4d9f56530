"""Compose: the offers' cards (with their attributed buy links), the rows a recommend writes
(the Intent, one catalog Proposal per card, the MatchSession), and the answer's body."""

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from catalog.cards import iso
from catalog.services import cards_build
from matching.engine.resolution import Resolution
from matching.models import Intent, MatchSession, Proposal, ProposalStatus, Provenance
from matching.recommend.budget import Priced
from matching.recommend.guide import shopper_guide
from matching.recommend.offer import Offer
from matching.rendering import proposal_body


def carded(offers: list[Offer], channel: str | None) -> list[Offer]:
    """Each offer with its card."""
    cards = cards_build(products=[offer.product for offer in offers], channel=channel)
    return [replace(offer, card=card) for offer, card in zip(offers, cards, strict=True)]


def _proposal(intent_id: str, offer: Offer, now: datetime) -> Proposal:
    product, card = offer.product, offer.card
    return Proposal(
        proposal_id=offer.proposal_id,
        merchant=None,
        intent_id=intent_id,
        product=product,
        offer_title=product.title,
        price=product.price_usd,
        inventory_status="unknown",
        evidence=offer.evidence,
        proposal_score_inputs=offer.score_inputs,
        product_snapshot={**card["product"], "url": product.url},
        metadata={"rec_id": card["rec_id"], "match_tier": offer.tier},
        provenance=Provenance.CATALOG,
        status=ProposalStatus.SUBMITTED,
        created_at=now,
        updated_at=now,
    )


def proposals(intent_id: str, offers: list[Offer], now: datetime) -> list[Proposal]:
    """The catalog proposals, in the cards' order: a microsecond apart, since proposals are
    listed by creation time."""
    return [
        _proposal(intent_id, offer, now + timedelta(microseconds=number))
        for number, offer in enumerate(offers)
    ]


@dataclass(frozen=True)
class Answered:
    """What the answer's body is made of beside the rows: the words, the resolution, where."""

    intent: str
    resolution: Resolution
    budget: Priced
    region: str | None
    demand_token: str
    note: str | None
    match_tier: str
    retrieval: dict[str, Any]


def body(
    answered: Answered,
    intent_row: Intent,
    offers: list[Offer],
    rows: list[Proposal],
    session: MatchSession,
) -> dict[str, Any]:
    """GET /v1/recommend's answer, every field of the interface."""
    resolution = answered.resolution
    cards = [offer.card for offer in offers]
    return {
        "intent": answered.intent,
        "intent_id": intent_row.intent_id,
        "count": len(cards),
        "items": cards,
        "proposals": [proposal_body(proposal) for proposal in rows],
        "proposal_count": len(rows),
        "match_session_id": session.match_session_id,
        "demand_token": answered.demand_token,
        "shopper_guide": shopper_guide(
            answered.intent, resolution, answered.budget, answered.region, offers
        ),
        "note": answered.note,
        "match_tier": answered.match_tier,
        "intent_source": intent_row.resolution_source,
        "resolved_keywords": resolution.keywords,
        "resolved_categories": resolution.categories,
        "retrieval": answered.retrieval,
        "generated_at": iso(intent_row.created_at),
    }
