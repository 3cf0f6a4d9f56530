"""The fault suite (marker `fault`): real worker processes, a merchant on loopback, and a fault
injected while intents arrive. Each test prints what was created, delivered, duplicated (always
a redelivery under the same webhook-id) and lost, and lost is 0.

Restarting PostgreSQL disturbs every client of the server, so that test runs only where
GATEWAY_FAULTS_RESTART_DB=1 says the server is the test run's own (`.ci/run` sets it in its
PostgreSQL pass).
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.db import OperationalError, close_old_connections, connection
from standardwebhooks.webhooks import Webhook

from merchants.models import (
    AttemptOutcome,
    DeliveryStatus,
    MerchantAgent,
    WebhookDelivery,
    WebhookEvent,
)
from tests.faults.conftest import tally
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


def _cluster() -> list[str] | None:
    """The pg_ctlcluster command of the local PostgreSQL server, when there is exactly one."""
    pg_ctlcluster = shutil.which("pg_ctlcluster")
    versions = sorted(os.listdir("/etc/postgresql")) if Path("/etc/postgresql").is_dir() else []
    if pg_ctlcluster is None or len(versions) != 1:
        return None
    return [pg_ctlcluster, "--skip-systemctl-redirect", versions[0], "main"]


def _database_answers() -> bool:
    close_old_connections()
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except OperationalError:
        connection.close()
        return False


def test_postgresql_restarted_during_delivery_loses_nothing(
    client, receiver, tmp_path, broker_url, report
):
    cluster = _cluster()
    if connection.vendor != "postgresql" or os.environ.get("GATEWAY_FAULTS_RESTART_DB") != "1":
        pytest.skip(
            "restarts the PostgreSQL server: only on PostgreSQL with GATEWAY_FAULTS_RESTART_DB=1"
        )
    if cluster is None:
        pytest.skip("no single local PostgreSQL cluster to restart")
    receiver.default = "slow:0.3"  # deliveries are in flight when the server goes away
    register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    worker = Worker(tmp_path, broker_url).start()
    try:
        intent_ids = {create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)}
        receiver.wait_for(2, timeout=30)
        subprocess.run([*cluster, "restart", "-m", "fast"], check=True, timeout=60)  # noqa: S603
        connection.close()  # this process's connection died with the server
        wait_until(_database_answers, timeout=60, what="PostgreSQL to answer again")
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
