"""One merchant's delivery never waits for other merchants that hang: the Procfile's own
`webhooks` and `slow-webhooks` roles, sixteen merchants that never answer on the same tag (each
at an endpoint of its own: deliveries under way to one address are bounded too), and a healthy
one registered after them."""

import contextlib
from collections.abc import Iterator

import orjson
import pytest

from gateway.celery import app
from merchants.models import DeliveryAttempt, MerchantAgent
from tests.protocol import create_intent, register
from tests.support.receiver import Receiver
from tests.support.worker import Worker, purge, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

HANGING = 16
TIMEOUT_S = 3


@pytest.fixture
def lanes(tmp_path) -> Iterator[list[Worker]]:
    purge(app.conf.broker_url)
    env = {"WEBHOOK_TIMEOUT_S": str(TIMEOUT_S)}
    workers = [
        Worker(tmp_path, app.conf.broker_url, env=env, role=role).start()
        for role in ("webhooks", "slow-webhooks")
    ]
    yield workers
    for worker in workers:
        worker.stop()
        print(worker.log())  # shown when the test failed


def _hanging_attempts_ended(intent_id: str) -> int:
    return (
        DeliveryAttempt.objects.filter(delivery__event__intent_id=intent_id)
        .exclude(delivery__merchant__merchant_id="healthy")
        .exclude(outcome="in_flight")
        .count()
    )


def _deliveries_received(worker: Worker) -> int:
    lines = worker.log().splitlines()
    return sum("merchants.tasks.deliver[" in line and line.endswith("received") for line in lines)


def _intents(received: list) -> list[str]:
    return [orjson.loads(request.body)["data"]["intent"]["intent_id"] for request in received]


def test_a_healthy_merchant_is_served_while_merchants_on_its_tag_hang(client, loopback, lanes):
    with contextlib.ExitStack() as endpoints, Receiver() as healthy:
        for n in range(HANGING):
            hanging = endpoints.enter_context(Receiver())
            hanging.default = f"hang:{TIMEOUT_S + 1}"
            register(client, f"hangs-{n}", agent_endpoint=hanging.url,
                     subscription_tags=["trail"])  # fmt: skip
        register(client, "healthy", agent_endpoint=healthy.url, subscription_tags=["trail"])

        # First intent: nobody is known to hang yet; all seventeen go out at once.
        first = create_intent(client, intent_tags=["trail"])["intent_id"]
        healthy.wait_for(1, timeout=30)
        ended_then = _hanging_attempts_ended(first)

        # The hanging merchants' attempts run out of time: they move to the slow lane.
        wait_until(
            lambda: MerchantAgent.objects.filter(slow_since__isnull=False).count() == HANGING,
            timeout=30,
            what="the hanging merchants to be marked slow",
        )
        second = create_intent(client, intent_tags=["trail"])["intent_id"]
        healthy.wait_for(2, timeout=30)
        ended_later = _hanging_attempts_ended(second)

        assert _intents(healthy.received) == [first, second]
        # Served before any hanging merchant's attempt at the first intent ran out of time...
        assert ended_then == 0
        # ...and again for the second, whose deliveries to them went to the slow lane.
        assert ended_later == 0
    fast, slow = (_deliveries_received(worker) for worker in lanes)
    assert fast == HANGING + 2  # the first seventeen, then the healthy merchant's only
    assert slow >= 1  # the second intent's hanging deliveries: 4 at a time in their own lane
