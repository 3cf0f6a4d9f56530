"""Old delivery and probe records are pruned; anything still in flight never is."""

from datetime import timedelta

import pytest
from django.utils import timezone

from merchants import tasks
from merchants.models import (
    DeliveryAttempt,
    DeliveryStatus,
    HealthProbe,
    MerchantAgent,
    WebhookDelivery,
    WebhookEvent,
)
from tests.protocol import register

pytestmark = pytest.mark.django_db


def _delivery(merchant, status, completed_days_ago, event):
    now = timezone.now()
    completed = None if completed_days_ago is None else now - timedelta(days=completed_days_ago)
    delivery = WebhookDelivery.objects.create(
        merchant=merchant,
        event=WebhookEvent.objects.get_or_create(
            event_id=event,
            defaults={
                "event_type": "intent.surge",
                "body": "{}",
                "fanned_out_at": now - timedelta(days=60),
            },
        )[0],
        status=status,
        next_attempt_at=now - timedelta(days=60),
        completed_at=completed,
    )
    WebhookEvent.objects.filter(pk=event).update(created_at=now - timedelta(days=60))
    DeliveryAttempt.objects.create(delivery=delivery, number=1, started_at=now)
    return delivery


def test_finished_deliveries_and_probes_past_retention_are_deleted(client, settings, monkeypatch):
    settings.WEBHOOK_RETENTION_DAYS, settings.HEALTH_PROBE_RETENTION_DAYS = 30, 7
    # Batches of one: the pruning loops run more than once.
    monkeypatch.setattr("kernel.pruning.PRUNE_BATCH", 1)
    register(client, "shop-1")
    merchant = MerchantAgent.objects.get()
    old_success = _delivery(merchant, DeliveryStatus.SUCCEEDED, 31, "evt_a")
    old_failure = _delivery(merchant, DeliveryStatus.FAILED, 45, "evt_b")
    recent = _delivery(merchant, DeliveryStatus.SUCCEEDED, 29, "evt_c")
    waiting = _delivery(merchant, DeliveryStatus.PENDING, None, "evt_d")  # created 60 days ago
    now = timezone.now()
    for days in (8, 6):
        HealthProbe.objects.create(
            merchant=merchant,
            checked_at=now - timedelta(days=days),
            healthy=True,
            trigger="schedule",
        )

    tasks.prune_records.run()

    kept = set(WebhookDelivery.objects.values_list("pk", flat=True))
    assert kept == {recent.pk, waiting.pk}
    # Events go once no delivery of theirs is left.
    assert set(WebhookEvent.objects.values_list("pk", flat=True)) == {"evt_c", "evt_d"}
    assert not DeliveryAttempt.objects.filter(delivery_id__in=[old_success.pk, old_failure.pk])
    assert DeliveryAttempt.objects.count() == 2
    (probe,) = HealthProbe.objects.all()
    assert probe.checked_at > now - timedelta(days=7)
