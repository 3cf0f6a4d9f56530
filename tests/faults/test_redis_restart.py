"""Redis restarted empty under load, with the Procfile's own delivery roles on it: no role ends,
nothing is lost, and every delivery waiting on the lost Redis arrives within a minute of its
return, a slow merchant's on the slow lane too."""

import time

import pytest

from merchants.models import DeliveryStatus, WebhookDelivery
from tests.faults.conftest import tally
from tests.protocol import create_intent, register
from tests.support.receiver import Receiver
from tests.support.worker import Worker, wait_until

# Alone: its minute is the Procfile's roles' on the cores it has; beside the flood of another
# fault test on a 2-core machine, the deliveries took longer than the deadline allows.
pytestmark = [pytest.mark.fault, pytest.mark.alone, pytest.mark.django_db(transaction=True)]

# Every role a delivery passes through: a merchant that answers late, or whose delivery is still
# under way after a second on a busy machine, has its next ones sent on the slow lane, which only
# `slow-webhooks` consumes.
ROLES = ("worker", "webhooks", "slow-webhooks", "beat")
RESUMED_WITHIN_S = 60


def _settled() -> bool:
    statuses = set(WebhookDelivery.objects.values_list("status", flat=True))
    return statuses == {DeliveryStatus.SUCCEEDED}


def _first_arrivals(merchants: dict[str, Receiver]) -> dict[str, float]:
    """Each event's first arrival at a merchant (time.monotonic()), by webhook-id."""
    first: dict[str, float] = {}
    for merchant in merchants.values():
        for request in merchant.received:
            key = f"{merchant.url} {request.headers['webhook-id']}"
            first[key] = min(first.get(key, request.at), request.at)
    return first


def test_a_redis_restart_under_load_ends_no_role_loses_nothing_and_delays_a_minute_at_most(
    client, receiver, tmp_path, private_redis, report
):
    with Receiver() as second:
        merchants = {"runner": receiver, "hiker": second}
        for name, merchant in merchants.items():
            register(client, name, agent_endpoint=merchant.url, subscription_tags=["trail"])
        # The runner answers its second and third deliveries late (past the tests' 1-s timeout):
        # it is slow when Redis goes, so its deliveries wait on the slow lane as well.
        receiver.script("200", "slow:1.5", "slow:1.5")
        (tmp_path / "var").mkdir()
        env = {
            "REDIS_URL": private_redis.url,
            "VAR_DIR": str(tmp_path / "var"),
            "WEBHOOK_SWEEP_INTERVAL_S": "5",  # the default sweep, not the tests' quicker one
        }
        roles = [Worker(tmp_path, private_redis.url, env=env, role=role).start() for role in ROLES]
        try:
            intent_ids = {create_intent(client, intent_tags=["trail"])["intent_id"]}
            wait_until(lambda: _settled() and WebhookDelivery.objects.count() == 2, timeout=90)
            # A burst, so that messages wait in Redis when it goes; more intents while it is out.
            intent_ids |= {
                create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(30)
            }
            private_redis.stop()
            before = _first_arrivals(merchants)
            intent_ids |= {
                create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)
            }
            time.sleep(8)
            private_redis.start()  # empty: every message it held is gone
            returned = time.monotonic()
            intent_ids |= {
                create_intent(client, intent_tags=["trail"])["intent_id"] for _ in range(10)
            }
            expected = 2 * len(intent_ids)
            wait_until(
                lambda: _settled() and WebhookDelivery.objects.count() == expected,
                timeout=RESUMED_WITHIN_S + 60,
                what=f"all {expected} deliveries",
            )
            ended = [
                role.role for role in roles if role.process and role.process.poll() is not None
            ]
        finally:
            for role in roles:
                role.stop()
                print(role.log())
    counted = tally(merchants, intent_ids)
    report("Redis restarted empty under load, the Procfile's roles on it", counted)
    assert (counted.created, counted.delivered, counted.lost) == (expected, expected, 0)
    assert ended == []
    assert not any("supervise: celery ended" in role.log() for role in roles)
    waited = {
        key: at - returned for key, at in _first_arrivals(merchants).items() if key not in before
    }
    print(
        f"waited after Redis returned: {len(waited)} events, at most {max(waited.values()):.1f} s"
    )
    assert max(waited.values()) <= RESUMED_WITHIN_S, sorted(waited.values())[-5:]
    for merchant in merchants.values():
        ids = {request.headers["webhook-id"] for request in merchant.received}
        assert len(ids) == len(intent_ids)  # a duplicate is sent under its event's webhook-id
