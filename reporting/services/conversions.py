"""Conversions: a sale a merchant credits to a card or a match token, recorded once."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from catalog.models import Product, Recommendation
from kernel.errors import (
    CONVERSION_CONFLICT,
    CREDITS_DIFFERENT_PRODUCTS,
    MATCH_TOKEN_NOT_ACCEPTED,
    MATCH_TOKEN_NOT_FOUND,
    MATCH_TOKEN_NOT_YOURS,
    ORDER_BEFORE_ITS_CREDIT,
    RECOMMENDATION_NOT_FOUND,
    ApiError,
)
from kernel.ids import CONVERSION, MATCH_TOKEN, REC, find_minted, new_id
from kernel.money import in_usd
from matching.models import AcceptanceState, ConfirmedBy, MatchToken, Provenance
from merchants.models import MerchantAgent
from reporting.models import CLOCK_SKEW, Conversion


@dataclass(frozen=True)
class ConversionResult:
    conversion: Conversion
    created: bool


def _conflict() -> ApiError:
    return CONVERSION_CONFLICT()


def _same_facts(conversion: Conversion, facts: dict[str, Any]) -> bool:
    return all(getattr(conversion, name) == value for name, value in facts.items())


SELF_ACCEPTED = "self_accepted"
NOT_CONFIRMED_BY_DEMAND = "not_confirmed_by_demand"
AMOUNT_ABOVE_PRICE = "amount_above_price"
NO_CATALOG_PRICE = "no_catalog_price"
# Each flag, as staff read it (the admin's conversion pages).
FLAG_REASONS = {
    SELF_ACCEPTED: "its own merchant confirmed the match token it is credited through",
    NOT_CONFIRMED_BY_DEMAND: "the match token it is credited through was confirmed without the "
    "intent's demand credential",
    AMOUNT_ABOVE_PRICE: "the amount is over CONVERSION_PRICE_FACTOR times the catalog's price "
    "times the quantity",
    NO_CATALOG_PRICE: "the catalog has no price for the product to bound the amount by",
}


def _confirmation_flags(merchant: MerchantAgent, token: MatchToken) -> list[str]:
    """`self_accepted` when the merchant that reports the sale, or the one that proposed it,
    confirmed the token itself; else `not_confirmed_by_demand` unless the demand side confirmed
    it with the intent's credential (matching/demand.py)."""
    own = {merchant.pk, token.proposal.merchant_id} - {None}
    if token.accepted_by_id in own:
        return [SELF_ACCEPTED]
    if token.confirmed_by != ConfirmedBy.DEMAND:
        return [NOT_CONFIRMED_BY_DEMAND]
    return []


def price_ceiling(product: Product, quantity: int) -> Decimal | None:
    """The most, in US dollars, a sale of `quantity` of the product is credited without doubt:
    CONVERSION_PRICE_FACTOR times the catalog's unit price times the quantity. The catalog's
    price, never a proposal's: a merchant names its own proposal price. None when the catalog
    has no price for the product."""
    if product.price_usd is None:
        return None
    factor = Decimal(str(settings.CONVERSION_PRICE_FACTOR))
    return Decimal(product.price_usd) * quantity * factor


def _price_flags(product: Product, facts: dict[str, Any]) -> list[str]:
    """`amount_above_price` when the amount in US dollars is over price_ceiling();
    `no_catalog_price` when the catalog has no price to bound it by. A currency without a rate
    is never added to US dollars by the report, so it is not judged here either."""
    usd = in_usd(facts["amount"], facts["currency"])
    if usd is None:
        return []
    ceiling = price_ceiling(product, facts["quantity"])
    if ceiling is None:
        return [NO_CATALOG_PRICE]
    return [AMOUNT_ABOVE_PRICE] if usd > ceiling else []


def conversion_flags(
    *,
    merchant: MerchantAgent,
    product: Product,
    token: MatchToken | None,
    facts: dict[str, Any],
) -> list[str]:
    """Why a sale is not counted as earned (SECURITY.md, the conversions policy): credited
    through a match token the demand side did not confirm with its credential
    (`self_accepted`, `not_confirmed_by_demand`), or for more than the catalog's price allows
    (`amount_above_price`, `no_catalog_price`). Empty for a sale counted in full."""
    flags = _confirmation_flags(merchant, token) if token is not None else []
    return flags + _price_flags(product, facts)


def conversion_record(
    *,
    merchant: MerchantAgent,
    order_id: str,
    rec_id: str | None,
    match_token_id: str | None,
    amount: Decimal,
    currency: str,
    occurred_at: datetime,
    quantity: int = 1,
) -> ConversionResult:
    """Record an order as the outcome of a card and/or a match token, once per order_id.

    The same order again with the same facts answers the recorded conversion; with different
    facts it is a conflict. A match token counts only for its own merchant's proposal or for a
    catalog proposal (which any shop may fulfil). The product comes from the reference; the
    channel from the card, else from the intent of the token.
    """
    recommendation = token = None
    if rec_id is not None:
        recommendations = Recommendation.objects.select_related("product")
        missing = RECOMMENDATION_NOT_FOUND()
        recommendation = find_minted(recommendations, REC, rec_id, missing)
    if match_token_id is not None:
        tokens = MatchToken.objects.select_related("proposal__product", "intent")
        missing = MATCH_TOKEN_NOT_FOUND()
        token = find_minted(tokens, MATCH_TOKEN, match_token_id, missing)
        proposal = token.proposal
        if proposal.provenance != Provenance.CATALOG and proposal.merchant_id != merchant.pk:
            raise MATCH_TOKEN_NOT_YOURS()
        if token.acceptance_state != AcceptanceState.ACCEPTED:
            # An issued token is an offer the demand side has not taken (yet); a superseded one
            # lost. Only an accepted match is a fact a sale can be credited to.
            raise MATCH_TOKEN_NOT_ACCEPTED()
    if recommendation and token and recommendation.product_id != token.proposal.product_id:
        raise CREDITS_DIFFERENT_PRODUCTS(
            fields={"match_token_id": ["Its proposal is not for the card's product."]}
        )
    # An order placed before its card or match existed cannot be their outcome (clocks may
    # drift by CLOCK_SKEW).
    references = [recommendation.created_at if recommendation else None]
    references.append(token.issued_at if token else None)
    earliest = max((moment for moment in references if moment is not None), default=None)
    if earliest is not None and occurred_at < earliest - CLOCK_SKEW:
        raise ORDER_BEFORE_ITS_CREDIT(
            fields={"occurred_at": ["The order cannot be older than what it credits."]}
        )
    facts: dict[str, Any] = {
        "recommendation_id": rec_id,
        "match_token_id": match_token_id,
        "amount": amount,
        "currency": currency,
        "occurred_at": occurred_at,
        "quantity": quantity,
    }
    recorded = Conversion.objects.select_related("merchant")
    existing = recorded.filter(merchant=merchant, order_id=order_id).first()
    if existing is not None:
        if not _same_facts(existing, facts):
            raise _conflict()
        return ConversionResult(existing, created=False)
    if recommendation is not None:
        product, channel = recommendation.product, recommendation.channel
    else:
        assert token is not None
        product, channel = token.proposal.product, token.intent.source_channel
    flags = conversion_flags(merchant=merchant, product=product, token=token, facts=facts)
    try:
        with transaction.atomic():
            conversion = Conversion.objects.create(
                conversion_id=new_id(CONVERSION),
                merchant=merchant,
                order_id=order_id,
                product=product,
                channel=channel,
                flags=flags,
                flagged=bool(flags),
                **facts,
            )
    except IntegrityError:
        # The same order was recorded by a concurrent request: judge against that one.
        existing = recorded.get(merchant=merchant, order_id=order_id)
        if not _same_facts(existing, facts):
            raise _conflict() from None
        return ConversionResult(existing, created=False)
    return ConversionResult(conversion, created=True)
