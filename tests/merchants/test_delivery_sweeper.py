"""The sweeper and staff retries: deliveries taken back, sent, failed or fanned out again."""

from datetime import timedelta

import pytest
from django.utils import timezone

from gateway.celery import app
from merchants.delivery import (
    FAN_OUT_GRACE,
    MAX_ATTEMPTS,
    REQUEUE_IDLE_AFTER,
    WORKER_STOPPED,
    claim_lease,
    deliveries_retry,
    deliveries_sweep,
    delivery_attempt,
)
from merchants.models import (
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
    WebhookEvent,
)
from tests.merchants.delivery_calls import (
    claimed,
    due_now,
    later_surge_delivery,
    surge_delivery,
)
from tests.protocol import create_intent
from tests.support.worker import purge

pytestmark = pytest.mark.django_db


def test_the_sweeper_takes_back_a_delivery_whose_worker_died(client, receiver, shop):
    delivery = surge_delivery(client)
    claimed_at = timezone.now() - claim_lease() - timedelta(seconds=1)
    claimed(delivery, at=claimed_at, attempt_count=1)
    DeliveryAttempt.objects.create(delivery=delivery, number=1, started_at=claimed_at)

    taken_back, _ = deliveries_sweep()

    assert taken_back == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_error == WORKER_STOPPED
    assert delivery.attempts.get().outcome == AttemptOutcome.ABANDONED
    # The abandoned attempt counts: the next one waits its turn, as after any failure.
    wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
    assert 4 <= wait <= 5.6
    due_now(delivery)
    delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.SUCCEEDED, 2)


def test_the_sweeper_leaves_a_delivery_that_is_still_within_its_lease(client, receiver, shop):
    delivery = surge_delivery(client)
    claimed(delivery, at=timezone.now(), attempt_count=1)

    assert deliveries_sweep()[0] == 0
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SENDING


def test_the_sweeper_sends_due_deliveries_whose_task_never_went_out(client, shop):
    delivery = surge_delivery(client)  # its after-commit send never ran (the test's transaction)
    later = later_surge_delivery(client)

    _, sent = deliveries_sweep()

    assert sent == 1
    delivery.refresh_from_db()
    assert delivery.enqueued_at is not None
    later.refresh_from_db()
    assert later.enqueued_at is None
    assert deliveries_sweep()[1] == 0  # just sent: not sent again


def test_a_sent_delivery_whose_message_the_broker_lost_is_sent_again_within_a_minute(client, shop):
    purge(app.conf.broker_url)
    delivery = surge_delivery(client)
    assert deliveries_sweep()[1] == 1  # its message now waits in the fast lane
    sent_at = timezone.now() - REQUEUE_IDLE_AFTER - timedelta(seconds=1)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(enqueued_at=sent_at)

    assert deliveries_sweep()[1] == 0  # a message waits: a backlog, not a loss
    purge(app.conf.broker_url)  # the broker restarted empty
    assert deliveries_sweep()[1] == 1
    delivery.refresh_from_db()
    assert delivery.enqueued_at is not None
    assert delivery.enqueued_at > sent_at


def test_staff_retry_gives_a_failed_delivery_one_more_attempt(
    client, receiver, shop, django_capture_on_commit_callbacks
):
    receiver.script("410")
    delivery = surge_delivery(client)
    delivery_attempt(delivery_id=delivery.pk)
    MerchantAgent.objects.filter(merchant_id="shop-1").update(deliveries_disabled_at=None)

    with django_capture_on_commit_callbacks():
        assert deliveries_retry(delivery_ids=[delivery.pk]) == 1
    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.SUCCEEDED, 2)


def test_the_sweeper_fails_a_delivery_abandoned_on_its_last_attempt(client, receiver, shop):
    delivery = surge_delivery(client)
    claimed_at = timezone.now() - claim_lease() - timedelta(seconds=1)
    claimed(delivery, at=claimed_at, attempt_count=MAX_ATTEMPTS)

    deliveries_sweep()

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert MerchantAgent.objects.get(merchant_id="shop-1").status == MerchantStatus.UNHEALTHY


def test_the_sweeper_fans_out_an_event_whose_task_was_lost(client, shop):
    create_intent(client, intent_tags=["trail"])  # its fan-out task is never sent here
    event = WebhookEvent.objects.get()
    deliveries_sweep()
    assert not WebhookDelivery.objects.exists()  # the task may still be on its way

    WebhookEvent.objects.filter(pk=event.pk).update(created_at=timezone.now() - FAN_OUT_GRACE)
    deliveries_sweep()

    assert WebhookDelivery.objects.get().event_id == event.event_id
