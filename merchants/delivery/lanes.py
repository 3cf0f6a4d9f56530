"""The two lanes of deliveries: one delivery in flight per merchant, and merchants that answer
slowly moved to the slow lane, so that they never hold the others."""

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.utils import timezone

from gateway.dispatch import dispatch
from merchants.client import Answer
from merchants.models import (
    DeliveryStatus,
    MerchantAgent,
    WebhookDelivery,
)

# The task that makes a delivery's attempt (merchants/tasks.py), sent by name: the tasks call
# this package's use cases, not the other way round.
DELIVER = "merchants.tasks.deliver"

FAST_LANE = "webhooks"


SLOW_LANE = "webhooks-slow"


# How long a delivery waits when its merchant already has its fill of deliveries under way.
IN_FLIGHT_PAUSE = timedelta(seconds=2)


# A merchant with a delivery under way for longer than this is slow at once, before its attempt
# runs out of time: its next deliveries take the slow lane, so another merchant waits about a
# second at most (DESIGN.md section 7).
STUCK_AFTER = timedelta(seconds=1)


def slow_merchants(merchant_ids: Iterable[int], now: datetime) -> set[int]:
    """Of these merchants, the slow ones: no answer in time lately, or a delivery under way
    for longer than STUCK_AFTER."""
    ids = set(merchant_ids)
    marked = MerchantAgent.objects.filter(pk__in=ids, slow_since__isnull=False)
    stuck = WebhookDelivery.objects.filter(
        merchant_id__in=ids, status=DeliveryStatus.SENDING, claimed_at__lt=now - STUCK_AFTER
    )
    return set(marked.values_list("pk", flat=True)) | set(
        stuck.values_list("merchant_id", flat=True)
    )


def deliveries_enqueue(ids: Iterable[int]) -> int:
    """Send one task per delivery, on its merchant's lane; how many were sent. With the broker
    down the rest wait for the sweeper."""
    ids, now = list(ids), timezone.now()
    merchant_of = dict(WebhookDelivery.objects.filter(pk__in=ids).values_list("pk", "merchant_id"))
    slow = slow_merchants(merchant_of.values(), now)
    # Stamped before sending: a worker may claim, fail and reschedule a delivery (clearing the
    # stamp) before this loop ends, and its retry must stay visible to the sweeper.
    WebhookDelivery.objects.filter(pk__in=ids, status=DeliveryStatus.PENDING).update(
        enqueued_at=now
    )
    for sent, pk in enumerate(ids):
        lane = SLOW_LANE if merchant_of.get(pk) in slow else FAST_LANE
        if not dispatch(DELIVER, pk, lane, queue=lane):
            # Unstamped, so that the sweeper sends them at its next round.
            WebhookDelivery.objects.filter(pk__in=ids[sent:], enqueued_at=now).update(
                enqueued_at=None
            )
            return sent
    return len(ids)


def next_in_line(merchant_id: int) -> None:
    """Send the merchant's next due delivery that no task is on its way for: one that waited
    for this one to finish (WEBHOOK_MERCHANT_IN_FLIGHT) goes now, not at the next sweep."""
    waiting = (
        WebhookDelivery.objects.filter(
            merchant_id=merchant_id,
            status=DeliveryStatus.PENDING,
            enqueued_at__isnull=True,
            next_attempt_at__lte=timezone.now() + IN_FLIGHT_PAUSE,
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)
        .first()
    )
    if waiting is not None:
        WebhookDelivery.objects.filter(pk=waiting).update(next_attempt_at=timezone.now())
        deliveries_enqueue([waiting])


def merchant_answered(merchant_id: int, answer: Answer, now: datetime) -> None:
    """What an attempt or a probe says of the merchant's speed: an answer in time brings it
    back to the fast lane, none moves it to the slow lane."""
    merchants = MerchantAgent.objects.filter(pk=merchant_id)
    if answer.status_code is not None:
        merchants.filter(slow_since__isnull=False).update(slow_since=None)
    elif answer.timed_out:
        merchants.filter(slow_since__isnull=True).update(slow_since=now)
