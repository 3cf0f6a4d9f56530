"""An endpoint that never echoes is parked after the retry schedule (merchants/verification.py):
asked no more, shown as parked with the gateway's reason in the merchant record and the admin,
re-armed only by its merchant's request or an endpoint change (the admin's list of them:
tests/admin/test_parked_endpoints.py)."""

import pytest

from merchants.models import MerchantAgent
from merchants.verification import ATTEMPTS, endpoint_verify, verifications_due
from tests.merchants.verification_calls import attempt_when_due as attempt_when_due_of
from tests.merchants.verification_calls import parked as park
from tests.protocol import get, patch, post, register
from tests.support.receiver import Receiver

pytestmark = pytest.mark.django_db


def merchant(merchant_id: str = "squatter") -> MerchantAgent:
    return MerchantAgent.objects.get(merchant_id=merchant_id)


@pytest.fixture
def victim(loopback):
    """A URL whose owner answers verifications 200 `{"ok": true}`: it never echoes."""
    with Receiver() as endpoint:
        endpoint.echo_challenges = False
        yield endpoint


@pytest.fixture
def parked(client, victim):
    return park(client, "squatter", victim.url)


def attempt_when_due() -> bool | None:
    return attempt_when_due_of("squatter")


def test_an_endpoint_that_never_echoes_is_parked_after_the_schedule(client, victim, parked):
    record = merchant()

    assert record.verification_parked_at is not None
    assert record.next_verification_at is None
    assert record.verification_attempts == ATTEMPTS == 8
    assert verifications_due() == []
    assert attempt_when_due() is None  # asked no more, whatever the clock says
    assert len(victim.verifications) == ATTEMPTS


def test_the_merchant_record_says_parked_and_why_in_the_gateways_words(client, victim, parked):
    body = get(client, "/v1/merchant/squatter").json()["merchant"]

    assert body["verification_state"] == "parked"
    assert body["endpoint_verified_at"] is None
    assert body["verification_error"] == (  # the gateway's words, never the endpoint's answer
        'The endpoint answered 2xx without {"challenge": "<the challenge sent>"}. '
        "Asked 8 times without the challenge echoed; parked."
    )


def test_a_pending_verification_is_shown_pending_with_its_latest_failure(client, victim):
    register(client, "squatter", verified=False, agent_endpoint=victim.url)
    before = get(client, "/v1/merchant/squatter").json()["merchant"]

    attempt_when_due()

    after = get(client, "/v1/merchant/squatter").json()["merchant"]
    assert (before["verification_state"], before["verification_error"]) == ("pending", None)
    assert after["verification_state"] == "pending"
    assert after["verification_error"] == (
        'The endpoint answered 2xx without {"challenge": "<the challenge sent>"}.'
    )


def test_the_merchants_request_re_arms_a_parked_verification(client, victim, parked):
    victim.echo_challenges = True  # the merchant fixed its endpoint

    answer = post(client, "/v1/merchant/squatter/verify", None, token=parked.token)

    assert answer.status_code == 200
    assert answer.json()["merchant"]["verification_state"] == "pending"
    assert answer.json()["merchant"]["verification_error"] is None
    assert attempt_when_due() is True  # once the URL's turn comes (URL_GAP after the last)
    assert get(client, "/v1/merchant/squatter").json()["merchant"]["verification_state"] == (
        "verified"
    )
    assert len(victim.verifications) == ATTEMPTS + 1


def test_only_the_merchant_may_re_arm_its_verification(client, victim, parked):
    other = register(client, "other")

    anonymous = post(client, "/v1/merchant/squatter/verify", None)
    another = post(client, "/v1/merchant/squatter/verify", None, token=other.token)

    assert (anonymous.status_code, another.status_code) == (401, 403)
    assert merchant().verification_parked_at is not None


def test_asking_again_once_verified_sends_nothing(client, receiver):
    shop = register(client, "shop", agent_endpoint=receiver.url)

    answer = post(client, "/v1/merchant/shop/verify", None, token=shop.token)

    assert answer.json()["merchant"]["verification_state"] == "verified"
    assert merchant("shop").next_verification_at is None
    assert receiver.verifications == []


def test_an_endpoint_change_re_arms_a_parked_verification(client, victim, parked):
    with Receiver() as fixed:
        patch(client, "/v1/merchant/squatter", {"agent_endpoint": fixed.url}, parked.token)

        record = merchant()
        assert record.verification_parked_at is None
        assert record.verification_attempts == 0
        assert endpoint_verify(merchant_pk=record.pk) is True
        assert len(fixed.verifications) == 1
