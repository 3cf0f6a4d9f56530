"""Intent.Surge through real workers: a `celery -A gateway worker --beat` process, the
configured broker, a merchant on loopback. Also what happens when the worker is killed
mid-delivery or Redis is down while intents are created: nothing is lost."""

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
from standardwebhooks.webhooks import Webhook

from gateway.celery import app
from merchants.models import AttemptOutcome, DeliveryStatus, WebhookDelivery
from merchants.tasks import deliver
from tests.protocol import create_intent, post, register
from tests.support.receiver import Receiver
from tests.support.worker import Worker, purge, wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def broker_url() -> str:
    url: str = app.conf.broker_url
    purge(url)
    return url


@pytest.fixture
def worker(tmp_path, broker_url) -> Iterator[Worker]:
    running = Worker(tmp_path, broker_url).start()
    yield running
    running.stop()
    print(running.log())  # shown when the test failed


def _all_delivered(count: int) -> bool:
    statuses = list(WebhookDelivery.objects.values_list("status", flat=True))
    return len(statuses) == count and set(statuses) == {DeliveryStatus.SUCCEEDED}


def test_a_subscribed_merchant_receives_a_verifiable_surge_exactly_once(client, receiver, worker):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    with Receiver() as others:
        register(client, "kitchen", agent_endpoint=others.url, subscription_tags=["kitchen"])
        register(
            client, "gb", agent_endpoint=others.url, subscription_tags=["trail"], regions=["GB"]
        )
        gone = register(client, "gone", agent_endpoint=others.url, subscription_tags=["trail"])
        post(client, "/v1/merchant/gone/deactivate", None, token=gone.token)

        intent = create_intent(client, intent_tags=["trail"], region="US")

        (request,) = receiver.wait_for(1)
        wait_until(lambda: _all_delivered(1), what="the delivery to succeed")
        assert others.received == []
    event = Webhook(shop.webhook_secret).verify(request.body, request.headers)
    assert event["data"]["intent"]["intent_id"] == intent["intent_id"]

    # A duplicated task message (a broker redelivery, a sweeper re-send) sends nothing more.
    delivery = WebhookDelivery.objects.get()
    deliver.delay(delivery.pk)
    wait_until(
        lambda: worker.log().count("merchants.tasks.deliver[") >= 4,  # received + done, twice
        what="the duplicate task to run",
    )
    assert len(receiver.received) == 1
    assert WebhookDelivery.objects.get().attempt_count == 1


def test_a_failing_merchant_is_retried_by_the_sweeper_with_the_same_webhook_id(
    client, receiver, worker
):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    receiver.script("500")

    create_intent(client, intent_tags=["trail"])

    first, second = receiver.wait_for(2, timeout=30)
    wait_until(lambda: _all_delivered(1), what="the retry to succeed")
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    for request in (first, second):
        Webhook(shop.webhook_secret).verify(request.body, request.headers)
    attempts = list(WebhookDelivery.objects.get().attempts.all())
    assert [(a.outcome, a.status_code) for a in attempts] == [("failed", 500), ("succeeded", 200)]
    assert (attempts[1].started_at - attempts[0].started_at).total_seconds() >= 4.5


def test_killing_the_worker_mid_delivery_loses_nothing(client, receiver, tmp_path, broker_url):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    receiver.script("hang:60")
    first_worker = Worker(tmp_path, broker_url, "first").start()
    try:
        create_intent(client, intent_tags=["trail"])
        receiver.wait_for(1, timeout=30)  # the worker is inside the attempt now
    finally:
        first_worker.kill()
    receiver.release.set()
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SENDING

    second_worker = Worker(tmp_path, broker_url, "second").start()
    try:
        first, again = receiver.wait_for(2, timeout=60)
        wait_until(lambda: _all_delivered(1), what="the delivery to succeed")
    finally:
        second_worker.stop()
        print(first_worker.log(), second_worker.log())

    assert len(receiver.received) == 2
    assert first.headers["webhook-id"] == again.headers["webhook-id"]
    Webhook(shop.webhook_secret).verify(again.body, again.headers)
    attempts = WebhookDelivery.objects.get().attempts.values_list("number", "outcome")
    assert list(attempts) == [(1, AttemptOutcome.ABANDONED), (2, AttemptOutcome.SUCCEEDED)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A Redis of the test's own on a free port, so stopping it disturbs nothing else."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed command line
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def private_redis(settings) -> Iterator[RedisServer]:
    """The gateway's cache and broker pointed at a Redis the test can stop and start."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer()
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": server.url,
        }
    }
    configured = app.conf.broker_url
    _use_broker(server.url)
    yield server
    server.stop()
    _use_broker(configured)


def _use_broker(url: str) -> None:
    """Send this process's tasks to `url`, dropping connections pooled for the previous one."""
    app.conf["broker_url"] = url
    app._pool = None  # type: ignore[attr-defined]
    app.amqp._producer_pool = None  # type: ignore[attr-defined]


def test_intents_created_while_redis_is_down_are_delivered_once_it_returns(
    client, receiver, tmp_path, private_redis
):
    with Receiver() as second:
        for name, endpoint in (("runner", receiver.url), ("hiker", second.url)):
            register(client, name, agent_endpoint=endpoint, subscription_tags=["trail"])
        private_redis.stop()

        intent_ids = {create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)}

        deliveries = WebhookDelivery.objects.all()
        assert deliveries.count() == 20
        assert set(deliveries.values_list("enqueued_at", flat=True)) == {None}  # never sent
        private_redis.start()
        worker = Worker(tmp_path, private_redis.url).start()
        try:
            wait_until(lambda: _all_delivered(20), timeout=60, what="all 20 deliveries")
        finally:
            worker.stop()
            print(worker.log())
        for merchant in (receiver, second):
            surges = [request.json() for request in merchant.received]
            assert len(surges) == 10
            assert {s["data"]["intent"]["intent_id"] for s in surges} == intent_ids
            assert len({request.headers["webhook-id"] for request in merchant.received}) == 10
