"""Publishing an intent and reading its delivery, for the delivery tests."""

from datetime import datetime, timedelta

from django.utils import timezone

from merchants.delivery import MAX_ATTEMPTS, SLOW_LANE, claim_lease, delivery_attempt
from merchants.models import DeliveryStatus, WebhookDelivery
from tests.protocol import create_intent, fan_out


def publish_surge(client) -> None:
    """An intent the merchant subscribes to, fanned out as the fan-out task would."""
    create_intent(client, intent_tags=["trail"])
    fan_out()


def surge_delivery(client) -> WebhookDelivery:
    publish_surge(client)
    return WebhookDelivery.objects.get()


def due_now(delivery: WebhookDelivery) -> None:
    """What the clock does between attempts: the next attempt comes due."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def attempt_every_time(delivery: WebhookDelivery) -> None:
    """Every attempt the delivery has, each made due at once. In the slow lane, which diverts
    nothing: a late answer on a loaded machine turns the merchant slow, and the fast lane would
    hand its later attempts to the slow lane instead of making them."""
    for _ in range(MAX_ATTEMPTS):
        due_now(delivery)
        delivery_attempt(delivery_id=delivery.pk, lane=SLOW_LANE)


def later_surge_delivery(client) -> WebhookDelivery:
    publish_surge(client)
    later = WebhookDelivery.objects.order_by("-id")[0]
    WebhookDelivery.objects.filter(pk=later.pk).update(
        next_attempt_at=timezone.now() + timedelta(minutes=5)
    )
    return later


def claimed(delivery: WebhookDelivery, *, at: datetime, attempt_count: int) -> None:
    """The delivery as a worker's claim at `at` left it: sending, leased for claim_lease()."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.SENDING,
        claimed_at=at,
        next_attempt_at=at + claim_lease(),
        attempt_count=attempt_count,
    )
