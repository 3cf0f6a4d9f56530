"""A merchant sees through the API why its endpoint is not verified: its record, looked up with
its own token, shows the verification's state, attempts, next attempt and last error, and its
deliveries log lists every attempt of the verification; nobody else learns more than the public
record says."""

import pytest
from rest_framework.fields import DateTimeField

from merchants.models import MerchantAgent, VerificationAttempt, WebhookDelivery
from merchants.verification import ATTEMPTS
from tests.merchants.verification_calls import attempt_when_due, parked
from tests.protocol import get, patch, register

pytestmark = pytest.mark.django_db

NO_ECHO = 'The endpoint answered 2xx without {"challenge": "<the challenge sent>"}.'


@pytest.fixture(autouse=True)
def loopback_merchants(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_TIMEOUT_S = 2.0


def _iso(moment):
    return DateTimeField().to_representation(moment)


def _record(client, merchant_id, token=None):
    return get(client, f"/v1/merchant/{merchant_id}", token)


def test_a_merchant_whose_endpoint_refuses_sees_why_with_its_token(client, receiver):
    receiver.echo_challenges = False
    shop = register(client, "shop", verified=False, agent_endpoint=receiver.url)
    assert attempt_when_due("shop") is False
    assert attempt_when_due("shop") is False
    stored = MerchantAgent.objects.get(merchant_id="shop")

    response = _record(client, "shop", shop.token)

    assert response.status_code == 200
    merchant = response.json()["merchant"]
    assert merchant["verification_state"] == "pending"
    assert merchant["verification"] == {
        "webhook_id": stored.verification_event_id,
        "state": "pending",
        "attempt_count": 2,
        "next_attempt_at": _iso(stored.next_verification_at),
        "last_error": NO_ECHO,
        "parked_at": None,
    }
    assert stored.next_verification_at is not None
    assert "secret" not in str(merchant)
    assert stored.verification_challenge not in response.content.decode()


def test_the_public_record_shows_no_more_than_before(client, receiver):
    receiver.echo_challenges = False
    register(client, "shop", verified=False, agent_endpoint=receiver.url)
    assert attempt_when_due("shop") is False

    response = _record(client, "shop")

    assert response.status_code == 200
    merchant = response.json()["merchant"]
    assert merchant["verification"] is None
    assert merchant["verification_state"] == "pending"
    assert merchant["verification_error"] == NO_ECHO


def test_a_lookup_with_another_token_is_refused(client, receiver):
    register(client, "shop", verified=False, agent_endpoint=receiver.url)
    other = register(client, "other")

    theirs = _record(client, "shop", other.token)
    forged = _record(client, "shop", "mrt_not-a-token")

    assert (theirs.status_code, forged.status_code) == (403, 403)
    assert theirs.json()["error"] == forged.json()["error"] == "invalid registration token"
    assert "merchant" not in theirs.json()


def test_a_verified_endpoint_shows_verified(client, receiver):
    shop = register(client, "shop", verified=False, agent_endpoint=receiver.url)
    assert attempt_when_due("shop") is True
    stored = MerchantAgent.objects.get(merchant_id="shop")

    merchant = _record(client, "shop", shop.token).json()["merchant"]

    assert merchant["endpoint_verified_at"] == _iso(stored.endpoint_verified_at)
    assert merchant["verification"] == {
        "webhook_id": stored.verification_event_id,
        "state": "verified",
        "attempt_count": 1,
        "next_attempt_at": None,
        "last_error": None,
        "parked_at": None,
    }


def test_a_parked_verification_shows_when_it_stopped(client, receiver):
    receiver.echo_challenges = False
    shop = parked(client, "shop", receiver.url)
    stored = MerchantAgent.objects.get(merchant_id="shop")

    verification = _record(client, "shop", shop.token).json()["merchant"]["verification"]

    assert verification["state"] == "parked"
    assert verification["attempt_count"] == ATTEMPTS
    assert verification["next_attempt_at"] is None
    assert verification["parked_at"] == _iso(stored.verification_parked_at)
    assert verification["last_error"] == stored.last_verification_error
    assert verification["last_error"].startswith(NO_ECHO)


def test_the_deliveries_log_lists_the_verification_attempts(client, receiver):
    receiver.echo_challenges = False
    shop = register(client, "shop", verified=False, agent_endpoint=receiver.url)
    assert attempt_when_due("shop") is False
    receiver.echo_challenges = True
    assert attempt_when_due("shop") is True
    stored = MerchantAgent.objects.get(merchant_id="shop")
    first, second = VerificationAttempt.objects.order_by("number")

    response = get(client, "/v1/merchant/shop/deliveries", shop.token)

    assert response.status_code == 200
    page = response.json()
    assert page["deliveries"] == []  # the verification's requests are no deliveries
    assert not WebhookDelivery.objects.exists()
    assert page["verification"] == {
        "webhook_id": stored.verification_event_id,
        "state": "verified",
        "attempt_count": 2,
        "next_attempt_at": None,
        "last_error": None,
        "parked_at": None,
        "attempts": [
            {
                "number": 1,
                "started_at": _iso(first.started_at),
                "outcome": "failed",
                "status_code": 200,
                "latency_ms": first.latency_ms,
                "error": NO_ECHO,
            },
            {
                "number": 2,
                "started_at": _iso(second.started_at),
                "outcome": "succeeded",
                "status_code": 200,
                "latency_ms": second.latency_ms,
                "error": None,
            },
        ],
    }
    assert [r.headers["webhook-id"] for r in receiver.verifications] == [
        stored.verification_event_id
    ] * 2


def test_a_new_endpoint_starts_a_new_log(client, receiver):
    receiver.echo_challenges = False
    shop = register(client, "shop", verified=False, agent_endpoint=receiver.url)
    assert attempt_when_due("shop") is False
    moved = patch(client, "/v1/merchant/shop", {"agent_endpoint": receiver.url + "/v2"}, shop.token)
    assert moved.status_code == 200
    assert moved.json()["merchant"]["verification"]["attempt_count"] == 0

    before = get(client, "/v1/merchant/shop/deliveries", shop.token).json()["verification"]
    assert attempt_when_due("shop") is False
    after = get(client, "/v1/merchant/shop/deliveries", shop.token).json()["verification"]

    assert before["attempts"] == []
    assert [attempt["number"] for attempt in after["attempts"]] == [1]
    stored = MerchantAgent.objects.get(merchant_id="shop")
    assert list(VerificationAttempt.objects.values_list("event_id", flat=True)) == [
        stored.verification_event_id
    ]


def test_the_deliveries_log_needs_the_merchants_own_token(client, receiver):
    register(client, "shop", verified=False, agent_endpoint=receiver.url)
    other = register(client, "other")

    assert get(client, "/v1/merchant/shop/deliveries").status_code == 401
    assert get(client, "/v1/merchant/shop/deliveries", other.token).status_code == 403
