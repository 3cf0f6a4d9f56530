"""The fault suite (marker `fault`): real worker processes, a merchant on loopback, and a fault
injected while intents arrive. Each test prints what was created, delivered, duplicated (always
a redelivery under the same webhook-id) and lost, and lost is 0.

Restarting PostgreSQL disturbs every client of the server, so that test runs only where
GATEWAY_FAULTS_RESTART_DB=1 says the server is the test run's own (`.ci/run` sets it in its
PostgreSQL pass).
"""

import subprocess

import pytest
from django.db import connection
from standardwebhooks.webhooks import Webhook

from merchants.models import (
    AttemptOutcome,
    DeliveryStatus,
    MerchantAgent,
    WebhookDelivery,
    WebhookEvent,
)
from tests.faults.conftest import database_answers, own_cluster, tally
from tests.protocol import create_intent, register
from tests.support.receiver import Receiver
from tests.support.worker import Worker, wait_until

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True)]


def _settled(count: int) -> bool:
    """Every one of `count` deliveries succeeded."""
    statuses = list(WebhookDelivery.objects.values_list("status", flat=True))
    return len(statuses) == count and set(statuses) == {DeliveryStatus.SUCCEEDED}


def test_killing_the_worker_mid_delivery_loses_nothing(
    client, receiver, tmp_path, broker_url, report
):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    receiver.script("hang:60")
    first_worker = Worker(tmp_path, broker_url, "first").start()
    try:
        intent_id = create_intent(client, intent_tags=["trail"])["intent_id"]
        receiver.wait_for(1, timeout=30)  # the worker is inside the attempt now
    finally:
        first_worker.kill()
    receiver.release.set()
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SENDING

    second_worker = Worker(tmp_path, broker_url, "second").start()
    try:
        first, again = receiver.wait_for(2, timeout=60)
        wait_until(lambda: _settled(1), what="the delivery to succeed")
    finally:
        second_worker.stop()
        print(first_worker.log(), second_worker.log())

    counted = tally({"runner": receiver}, {intent_id})
    report("worker killed mid-delivery", counted)
    assert (counted.created, counted.delivered, counted.duplicated, counted.lost) == (1, 1, 1, 0)
    assert first.headers["webhook-id"] == again.headers["webhook-id"]
    Webhook(shop.webhook_secret).verify(again.body, again.headers)
    attempts = WebhookDelivery.objects.get().attempts.values_list("number", "outcome")
    assert list(attempts) == [(1, AttemptOutcome.ABANDONED), (2, AttemptOutcome.SUCCEEDED)]


def test_intents_created_while_redis_is_down_are_delivered_once_it_returns(
    client, receiver, tmp_path, private_redis, report
):
    with Receiver() as second:
        merchants = {"runner": receiver, "hiker": second}
        for name, merchant in merchants.items():
            register(client, name, agent_endpoint=merchant.url, subscription_tags=["trail"])
        private_redis.stop()

        intent_ids = {create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)}

        # Their events are written; no fan-out task reached the broker.
        assert WebhookEvent.objects.filter(fanned_out_at__isnull=True).count() == 10
        assert not WebhookDelivery.objects.exists()
        private_redis.start()
        worker = Worker(tmp_path, private_redis.url).start()
        try:
            wait_until(lambda: _settled(20), timeout=60, what="all 20 deliveries")
        finally:
            worker.stop()
            print(worker.log())
        counted = tally(merchants, intent_ids)
        report("Redis stopped while intents arrived, then restarted", counted)
        assert (counted.created, counted.delivered, counted.lost) == (20, 20, 0)
        for merchant in merchants.values():
            surges = [request.json() for request in merchant.received]
            assert {s["data"]["intent"]["intent_id"] for s in surges} == intent_ids
            assert len({request.headers["webhook-id"] for request in merchant.received}) == 10


def test_misbehaving_merchants_cost_the_others_nothing(
    client, receiver, tmp_path, broker_url, report
):
    """One good merchant beside one that hangs, one that redirects, one that answers 410 and
    one that floods (a 200 announcing 50 MB): the good one gets every intent, the others'
    deliveries are retried or given up with their reason, and nothing is lost."""
    with Receiver() as hangs, Receiver() as redirects, Receiver() as gone, Receiver() as floods:
        hangs.default, redirects.default, gone.default, floods.default = (
            "hang:30",
            "redirect",
            "410",
            "huge",
        )
        merchants = {
            "good": receiver,
            "hangs": hangs,
            "redirects": redirects,
            "gone": gone,
            "floods": floods,
        }
        for name, merchant in merchants.items():
            register(client, name, agent_endpoint=merchant.url, subscription_tags=["trail"])
        worker = Worker(tmp_path, broker_url).start()
        try:
            intent_ids = {
                create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(8)
            }
            receiver.wait_for(8, timeout=60)
            floods.wait_for(8, timeout=60)

            def accounted() -> bool:
                return tally(merchants, intent_ids).lost == 0

            wait_until(accounted, timeout=90, what="every delivery to be accounted for")
        finally:
            hangs.release.set()
            floods.release.set()
            worker.stop()
            print(worker.log())
        counted = tally(merchants, intent_ids)
        report("merchants that hang, redirect, answer 410 and flood", counted)
        assert counted.lost == 0
        good = tally({"good": receiver}, intent_ids)
        assert (good.delivered, good.duplicated) == (8, 0)
        assert tally({"floods": floods}, intent_ids).delivered == 8  # the status decides
        assert MerchantAgent.objects.get(merchant_id="gone").deliveries_disabled_at is not None
        assert set(
            WebhookDelivery.objects.filter(merchant__merchant_id="gone").values_list(
                "status", flat=True
            )
        ) == {DeliveryStatus.FAILED}
        assert redirects.received[0].path == "/hook"  # never followed to /elsewhere
        assert all(request.path == "/hook" for request in redirects.received)


@pytest.mark.alone
def test_postgresql_restarted_during_delivery_loses_nothing(
    client, receiver, tmp_path, broker_url, report
):
    cluster = own_cluster("restarts")
    receiver.default = "slow:0.3"  # deliveries are in flight when the server goes away
    register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    worker = Worker(tmp_path, broker_url).start()
    try:
        intent_ids = {create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)}
        receiver.wait_for(2, timeout=30)
        subprocess.run([*cluster, "restart", "-m", "fast"], check=True, timeout=60)  # noqa: S603
        connection.close()  # this process's connection died with the server
        wait_until(database_answers, timeout=60, what="PostgreSQL to answer again")
        intent_ids |= {create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)}
        wait_until(lambda: _settled(20), timeout=120, what="all 20 deliveries")
    finally:
        worker.stop()
        print(worker.log())
    counted = tally({"runner": receiver}, intent_ids)
    report("PostgreSQL restarted during delivery", counted)
    assert (counted.created, counted.delivered, counted.lost) == (20, 20, 0)
    ids = [request.headers["webhook-id"] for request in receiver.received]
    assert set(ids) == set(WebhookDelivery.objects.values_list("event_id", flat=True))
