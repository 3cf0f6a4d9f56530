"""A merchant's own deliveries, through the API: the pages it reads, and the retry of a failed
one.

A merchant sees only its own deliveries, and of each attempt only what the gateway made of it
(never the signature headers, nor the start of its answer that staff see). A retry hands the
failed delivery back to the delivery machinery as it is: the same event, so the same body and
the same `webhook-id` (a receiver that processed it drops it), with one more attempt due now.
"""

from dataclasses import dataclass

from kernel.errors import (
    DELIVERIES_DISABLED,
    DELIVERY_NOT_FAILED,
    DELIVERY_NOT_FOUND,
    DELIVERY_RETRY_LIMIT,
    ENDPOINT_UNVERIFIED,
    MERCHANT_DEACTIVATED,
)
from kernel.paging import NUMBERED, page_of
from merchants.delivery.attempts import MAX_ATTEMPTS
from merchants.delivery.sweeper import deliveries_retry
from merchants.models import DeliveryStatus, MerchantAgent, VerificationAttempt, WebhookDelivery

# The most attempts one delivery may have, retries included: each retry adds one, and the
# record of a delivery stays bounded however often its merchant asks.
MOST_ATTEMPTS = 3 * MAX_ATTEMPTS


@dataclass(frozen=True)
class DeliveriesPage:
    deliveries: list[WebhookDelivery]
    next_cursor: str | None
    # The attempts of the endpoint's current verification, oldest first, on every page.
    verification_attempts: list[VerificationAttempt]


def merchant_deliveries(
    *, merchant: MerchantAgent, status: str | None, cursor: str | None, limit: int
) -> DeliveriesPage:
    """A page of the merchant's deliveries, newest first, with their events and attempts, and
    the attempts of its endpoint's current verification."""
    rows = (
        WebhookDelivery.objects.filter(merchant=merchant)
        .select_related("event")
        .prefetch_related("attempts")
    )
    if status is not None:
        rows = rows.filter(status=status)
    page, next_cursor = page_of(
        rows, id_field="id", prefix=None, cursor=cursor, limit=limit, newest_first=True
    )
    verifications = VerificationAttempt.objects.filter(
        merchant=merchant, event_id=merchant.verification_event_id
    ).order_by("number")
    return DeliveriesPage(page, next_cursor, list(verifications))


def _own_delivery(merchant: MerchantAgent, delivery_id: str) -> WebhookDelivery:
    """The merchant's delivery with that id; another merchant's is as unknown as a missing one.
    The id's shape is checked before any query."""
    delivery = (
        WebhookDelivery.objects.filter(merchant=merchant, pk=delivery_id).first()
        if NUMBERED.fullmatch(delivery_id)
        else None
    )
    if delivery is None:
        raise DELIVERY_NOT_FOUND()
    return delivery


def merchant_delivery_retry(*, merchant: MerchantAgent, delivery_id: str) -> WebhookDelivery:
    """Give a failed delivery of the merchant one more attempt now.

    Refused while nothing could be delivered to the merchant anyway: deactivated, its endpoint
    not proven, or its deliveries off after a 410 Gone (the attempt would fail at once).
    """
    delivery = _own_delivery(merchant, delivery_id)
    if merchant.is_deactivated:
        raise MERCHANT_DEACTIVATED()
    if delivery.status != DeliveryStatus.FAILED:
        raise DELIVERY_NOT_FAILED(status=delivery.status)
    if delivery.attempt_count >= MOST_ATTEMPTS:
        raise DELIVERY_RETRY_LIMIT(limit=MOST_ATTEMPTS)
    if merchant.endpoint_verified_at is None:
        raise ENDPOINT_UNVERIFIED()
    if merchant.deliveries_disabled_at is not None:
        raise DELIVERIES_DISABLED()
    if not deliveries_retry(delivery_ids=[delivery.pk], only_failed=True):
        # Another retry of the same delivery came first.
        delivery.refresh_from_db()
        raise DELIVERY_NOT_FAILED(status=delivery.status)
    return (
        WebhookDelivery.objects.select_related("event")
        .prefetch_related("attempts")
        .get(pk=delivery.pk)
    )
