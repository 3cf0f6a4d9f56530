"""Proposals: merchants' offers for an intent, superseded, withdrawn or expired."""

from typing import Any

from django.db import transaction
from django.utils import timezone

from catalog.models import Product, product_id_from
from kernel.errors import (
    MERCHANT_DEACTIVATED,
    PROPOSAL_NOT_FOUND,
    PROPOSED_PRODUCT_NOT_FOUND,
)
from kernel.ids import PROPOSAL, find_minted, new_id
from matching import ranking
from matching.models import (
    Proposal,
    ProposalStatus,
)
from matching.services.intents import intent_get
from merchants.models import MerchantAgent


def proposal_submit(
    *, merchant: MerchantAgent, intent_id: str, product_id: str, fields: dict[str, Any]
) -> Proposal:
    """Record a merchant's proposal; it supersedes the merchant's earlier live proposal of the
    same product for the same intent."""
    if merchant.is_deactivated:
        raise MERCHANT_DEACTIVATED()
    intent = intent_get(intent_id=intent_id)
    known = product_id_from(product_id)
    product = Product.objects.filter(id=known).first() if known is not None else None
    if product is None:
        raise PROPOSED_PRODUCT_NOT_FOUND()
    offer_title = fields.get("offer_title") or product.title
    price = fields.get("price")
    snapshot = fields.get("product_snapshot") or {
        "id": str(product.id),
        "title": product.title,
        "brand": product.brand,
        "price_usd": float(product.price_usd) if product.price_usd is not None else None,
        "category_l1": product.category_l1,
        "category_l2": product.category_l2,
        "url": product.url,
    }
    inputs = ranking.score_inputs(
        price=float(price) if price is not None else None,
        inventory_status=fields.get("inventory_status") or "unknown",
        shipping_commitment=fields.get("shipping_commitment") or {},
        commission_plan=fields.get("commission_plan") or {},
        evidence=fields.get("evidence") or [],
        # The product's own catalog text: offer_title is the merchant's words, shown only.
        product_fields=ranking.product_fields(
            title=product.title,
            tags=product.tags,
            brand=product.brand,
            categories=[product.category_l1, product.category_l2],
        ),
    )
    with transaction.atomic():
        # Lock the merchant: a deactivation committing meanwhile must not leave this proposal
        # live, and two submissions of the same product must supersede one after the other.
        locked = MerchantAgent.objects.select_for_update().get(pk=merchant.pk)
        if locked.is_deactivated:
            raise MERCHANT_DEACTIVATED()
        Proposal.objects.filter(
            merchant=merchant, intent=intent, product=product, status=ProposalStatus.SUBMITTED
        ).update(status=ProposalStatus.SUPERSEDED, updated_at=timezone.now())
        return Proposal.objects.create(
            proposal_id=new_id(PROPOSAL),
            merchant=merchant,
            intent=intent,
            product=product,
            offer_title=offer_title,
            price=price,
            inventory_status=fields.get("inventory_status") or "unknown",
            shipping_commitment=fields.get("shipping_commitment") or {},
            commission_plan=fields.get("commission_plan") or {},
            service_terms=fields.get("service_terms") or {},
            evidence=fields.get("evidence") or [],
            valid_until=fields.get("valid_until"),
            proposal_score_inputs=inputs,
            product_snapshot=snapshot,
            metadata=fields.get("metadata") or {},
        )


def proposal_get(*, proposal_id: str) -> Proposal:
    proposals = Proposal.objects.select_related("merchant")
    return find_minted(proposals, PROPOSAL, proposal_id, PROPOSAL_NOT_FOUND())


def proposals_withdraw(*, merchant: MerchantAgent, **signal: Any) -> None:
    """On merchants.signals.merchant_deactivated: its open proposals are withdrawn, in the
    transaction that deactivated it."""
    Proposal.objects.filter(merchant=merchant, status=ProposalStatus.SUBMITTED).update(
        status=ProposalStatus.WITHDRAWN, updated_at=timezone.now()
    )
