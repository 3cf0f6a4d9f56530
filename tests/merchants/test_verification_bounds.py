"""What verification can cost a URL, through real workers (`celery -A gateway worker --beat`, the
configured broker) and receivers on loopback: endpoint changes are throttled per merchant, and
one URL gets one verification however many merchants name it."""

import pytest
from standardwebhooks.webhooks import Webhook

from merchants.models import MerchantAgent
from tests.protocol import patch, register
from tests.support.receiver import Receiver
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

# The `endpoint_change` scope's default: endpoint changes a merchant may make an hour.
CHANGES_AN_HOUR = 10


def test_a_merchant_changing_its_endpoint_100_times_a_minute_is_throttled(
    client, receiver, waiting_worker, settings
):
    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["endpoint_change"] == "10/hour"
    shop = register(client, "mover", agent_endpoint=receiver.url)
    waiting_worker.start()

    changes = [{"agent_endpoint": f"{receiver.url}?n={n}"} for n in range(100)]
    answers = [patch(client, "/v1/merchant/mover", change, shop.token) for change in changes]

    codes = [answer.status_code for answer in answers]
    assert codes == [200] * CHANGES_AN_HOUR + [429] * (100 - CHANGES_AN_HOUR)
    assert all(int(answer["Retry-After"]) > 0 for answer in answers[CHANGES_AN_HOUR:])
    assert answers[-1].json()["error"] == "throttled"
    last = f"{receiver.url}?n={CHANGES_AN_HOUR - 1}"
    wait_until(
        lambda: MerchantAgent.objects.filter(
            agent_endpoint=last, endpoint_verified_at__isnull=False
        ).exists(),
        what="the last endpoint to be verified",
    )
    waiting_worker.stop()  # every task under way has finished: every POST it made has arrived
    assert 1 <= len(receiver.verifications) <= CHANGES_AN_HOUR
    assert receiver.received == []  # nothing but verifications


def test_n_merchants_naming_one_url_cause_one_verification(client, loopback, waiting_worker):
    with Receiver() as shared, Receiver() as victim:
        victim.echo_challenges = False
        tenants = [
            register(client, f"tenant-{n}", verified=False, agent_endpoint=shared.url)
            for n in range(5)
        ]
        for n in range(5):
            register(client, f"squatter-{n}", verified=False, agent_endpoint=victim.url)
        waiting_worker.start()  # ten verification tasks are waiting on the broker

        wait_until(
            lambda: MerchantAgent.objects.filter(endpoint_verified_at__isnull=False).count() == 5,
            what="the tenants of the shared URL to be verified",
        )
        wait_until(
            lambda: MerchantAgent.objects.filter(verification_attempts=1).count() == 10,
            what="the squatters' first attempt to be settled",
        )

        (request,) = shared.verifications
        assert len(victim.verifications) == 1
        # One event, signed for each tenant: each verifies it with its own secret.
        event = request.json()
        assert sorted(event["data"]["merchant_agent_ids"]) == [f"tenant-{n}" for n in range(5)]
        for tenant in tenants:
            assert Webhook(tenant.webhook_secret).verify(request.body, request.headers)
        squatters = MerchantAgent.objects.filter(merchant_id__startswith="squatter")
        assert {m.endpoint_verified_at for m in squatters} == {None}
        assert all(m.last_verification_error for m in squatters)
