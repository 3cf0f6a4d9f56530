"""Merchant-facing metrics move when their events happen: a delivery by a real worker to a real
receiver on loopback, endpoint verifications, health probes, and what waits in the database,
read back from `GET /metrics`."""

from datetime import timedelta

import pytest
from django.utils import timezone

from merchants.models import DeliveryStatus, MerchantAgent, WebhookDelivery
from merchants.verification import endpoint_verify
from tests.protocol import create_intent, fan_out, register
from tests.support.metrics import Scrapes
from tests.support.receiver import Receiver
from tests.support.worker import wait_until

FAST = "webhooks"


@pytest.mark.django_db(transaction=True)
def test_a_delivery_by_a_worker_is_counted_in_its_lane(client, receiver, worker):
    register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    scrapes = Scrapes(client)

    create_intent(client, intent_tags=["trail"], region="US")
    receiver.wait_for(1)

    def counted() -> bool:  # the worker counts right after it settles the delivery
        return scrapes.moved("gateway_webhook_deliveries_total", lane=FAST) == 1

    wait_until(counted, what="the delivery to be counted")
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED
    assert scrapes.moved("gateway_webhook_deliveries_total", outcome="succeeded") == 1
    attempts = "gateway_webhook_attempts_total"
    assert scrapes.moved(attempts, kind="delivery", lane=FAST, outcome="succeeded") == 1
    duration = "gateway_webhook_attempt_duration_seconds_count"
    assert scrapes.moved(duration, kind="delivery", lane=FAST) == 1
    assert scrapes.moved("gateway_webhook_delivery_wait_seconds_count", lane=FAST) == 1
    tasks = "gateway_celery_tasks_total"
    assert scrapes.moved(tasks, task="merchants.tasks.deliver", state="SUCCESS") >= 1
    assert scrapes.moved(tasks, task="merchants.tasks.fan_out", state="SUCCESS") >= 1


@pytest.mark.django_db
def test_failed_attempts_are_counted_by_outcome(client, loopback):
    from merchants.delivery import delivery_attempt

    with Receiver() as failing:
        failing.script("500")
        register(client, "runner", agent_endpoint=failing.url, subscription_tags=["trail"])
        create_intent(client, intent_tags=["trail"])
        fan_out()
        scrapes = Scrapes(client)

        delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)

    attempts = "gateway_webhook_attempts_total"
    assert scrapes.moved(attempts, kind="delivery", lane=FAST, outcome="http_5xx") == 1
    assert scrapes.moved("gateway_webhook_deliveries_total") == 0  # retried later
    assert WebhookDelivery.objects.get().status == DeliveryStatus.PENDING


@pytest.mark.django_db
def test_pending_deliveries_and_their_age_are_read_per_lane(client, loopback):
    register(client, "fast", subscription_tags=["trail"])
    register(client, "slow", subscription_tags=["trail"])
    MerchantAgent.objects.filter(merchant_id="slow").update(slow_since=timezone.now())
    create_intent(client, intent_tags=["trail"])
    assert fan_out() == 2
    WebhookDelivery.objects.filter(merchant__merchant_id="slow").update(
        next_attempt_at=timezone.now() - timedelta(minutes=10)
    )
    scrapes = Scrapes(client)
    text = scrapes.before

    assert 'gateway_webhook_deliveries_pending{lane="webhooks"} 1.0' in text
    assert 'gateway_webhook_deliveries_pending{lane="webhooks-slow"} 1.0' in text
    assert 'gateway_merchants{status="active"} 2.0' in text
    assert "gateway_merchants_slow 1.0" in text
    ages = {
        lane: float(line.rpartition(" ")[2])
        for lane in ("webhooks", "webhooks-slow")
        for line in text.splitlines()
        if line.startswith(f'gateway_webhook_oldest_pending_age_seconds{{lane="{lane}"}}')
    }
    assert 0 <= ages["webhooks"] < 60
    assert 600 <= ages["webhooks-slow"] < 700

    WebhookDelivery.objects.update(status=DeliveryStatus.SUCCEEDED)
    assert scrapes.moved("gateway_webhook_deliveries_pending") == -2


@pytest.mark.django_db
def test_verifications_are_counted_and_waiting_ones_read(client, loopback):
    with Receiver() as owner, Receiver() as stranger:
        stranger.echo_challenges = False
        register(client, "owner", verified=False, agent_endpoint=owner.url)
        register(client, "squatter", verified=False, agent_endpoint=stranger.url)
        scrapes = Scrapes(client)
        assert "gateway_endpoint_verifications_pending 2.0" in scrapes.before

        for merchant_id in ("owner", "squatter"):
            endpoint_verify(merchant_pk=MerchantAgent.objects.get(merchant_id=merchant_id).pk)

    attempts = "gateway_webhook_attempts_total"
    assert scrapes.moved(attempts, kind="verification", lane="probes", outcome="succeeded") == 1
    assert scrapes.moved(attempts, kind="verification", lane="probes", outcome="no_echo") == 1
    assert scrapes.moved("gateway_endpoint_verifications_pending") == -1


@pytest.mark.django_db
def test_probes_are_counted_by_trigger_and_outcome(client, receiver):
    register(client, "alive", agent_endpoint=receiver.url)
    scrapes = Scrapes(client)

    assert client.get("/v1/merchant/alive/health").json()["healthy"] is True

    probes = "gateway_merchant_probes_total"
    assert scrapes.moved(probes, trigger="api", outcome="succeeded") == 1
