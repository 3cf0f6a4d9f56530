"""How an intent and a proposal are rendered, once: the serializers (matching/serializers)
delegate to these plain functions, which recommend also calls on its hot path, where DRF's
per-field machinery would cost milliseconds per list. The serializers keep their fields for the
schema of /openapi.json."""

from datetime import datetime
from typing import Any

from django.utils import timezone

from catalog.cards import iso
from matching.models import Intent, Proposal


def intent_body(intent: Intent) -> dict[str, Any]:
    return {
        "intent_id": intent.intent_id,
        "raw_query": intent.raw_query,
        "normalized_query": intent.normalized_query,
        "intent_tags": intent.intent_tags,
        "target_audience": intent.target_audience,
        "budget_range": intent.budget_range,
        "region": intent.region,
        "constraints": intent.constraints,
        "source_channel": intent.source_channel,
        "resolution_source": intent.resolution_source,
        "resolution_summary": intent.resolution_summary,
        "metadata": intent.metadata,
        "created_at": iso(intent.created_at),
        "updated_at": iso(intent.updated_at),
    }


def merchant_agent_id(proposal: Proposal) -> str:
    """The proposing merchant's id; "catalog" for the gateway's own catalog."""
    merchant = proposal.merchant if proposal.merchant_id is not None else None
    return merchant.merchant_id if merchant is not None else "catalog"


def proposal_body(proposal: Proposal, now: datetime | None = None) -> dict[str, Any]:
    """The proposal as of `now` (its status turns `expired` past valid_until)."""
    return {
        "proposal_id": proposal.proposal_id,
        "merchant_agent_id": merchant_agent_id(proposal),
        "intent_id": proposal.intent_id,
        "product_id": proposal.product_id,
        "offer_title": proposal.offer_title,
        "price": float(proposal.price) if proposal.price is not None else None,
        "inventory_status": proposal.inventory_status,
        "shipping_commitment": proposal.shipping_commitment,
        "commission_plan": proposal.commission_plan,
        "service_terms": proposal.service_terms,
        "evidence": proposal.evidence,
        "valid_until": iso(proposal.valid_until) if proposal.valid_until else None,
        "proposal_score_inputs": proposal.proposal_score_inputs,
        "product_snapshot": proposal.product_snapshot,
        "metadata": proposal.metadata,
        "provenance": proposal.provenance,
        "status": proposal.status_at(now or timezone.now()),
        "created_at": iso(proposal.created_at),
        "updated_at": iso(proposal.updated_at),
    }
