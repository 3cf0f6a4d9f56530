"""Publishing an intent and reading its delivery, for the delivery tests."""

from datetime import timedelta

from django.utils import timezone

from merchants.models import (
    WebhookDelivery,
)
from tests.protocol import create_intent, fan_out


def _publish(client) -> None:
    """An intent the merchant subscribes to, fanned out as the fan-out task would."""
    create_intent(client, intent_tags=["trail"])
    fan_out()


def _surge(client) -> WebhookDelivery:
    _publish(client)
    return WebhookDelivery.objects.get()


def _due_now(delivery: WebhookDelivery) -> None:
    """What the clock does between attempts: the next attempt comes due."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def _surge_later(client) -> WebhookDelivery:
    _publish(client)
    later = WebhookDelivery.objects.order_by("-id")[0]
    WebhookDelivery.objects.filter(pk=later.pk).update(
        next_attempt_at=timezone.now() + timedelta(minutes=5)
    )
    return later
