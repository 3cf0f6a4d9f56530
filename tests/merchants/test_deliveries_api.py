"""A merchant's deliveries through the API: the list (its own only, with every attempt, paged
and filtered) and the retry of a failed delivery, on deliveries made to a real receiver."""

import pytest
from django.utils import timezone
from rest_framework.fields import DateTimeField

from merchants.delivery import MAX_ATTEMPTS, MOST_ATTEMPTS, delivery_attempt
from merchants.models import DeliveryStatus, MerchantAgent, MerchantStatus, WebhookDelivery
from tests.merchants.delivery_calls import (
    attempt_every_time,
    due_now,
    publish_surge,
    surge_delivery,
)
from tests.protocol import get, patch, post, register
from tests.support.receiver import Receiver

pytestmark = pytest.mark.django_db


def _iso(moment):
    return DateTimeField().to_representation(moment)


def _deliveries(client, token, merchant_id="shop-1", **query):
    return get(client, f"/v1/merchant/{merchant_id}/deliveries", token, **query)


def _retry(client, token, delivery_id, merchant_id="shop-1"):
    return post(client, f"/v1/merchant/{merchant_id}/deliveries/{delivery_id}/retry", None, token)


def _give_up(delivery: WebhookDelivery, receiver) -> WebhookDelivery:
    """The delivery attempted against 503 answers until the gateway gives up."""
    receiver.default = "503"
    attempt_every_time(delivery)
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    return delivery


def _failed(client, receiver) -> WebhookDelivery:
    return _give_up(surge_delivery(client), receiver)


def test_a_merchant_sees_its_delivery_with_every_attempt(client, receiver, shop):
    receiver.script("500")
    delivery = surge_delivery(client)
    delivery_attempt(delivery_id=delivery.pk)
    due_now(delivery)
    delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    first, second = delivery.attempts.all()

    response = _deliveries(client, shop.token)

    assert response.status_code == 200
    sent = receiver.wait_for(2)
    stored = MerchantAgent.objects.get(merchant_id="shop-1")
    assert response.json() == {
        "merchant_id": "shop-1",
        "verification": {
            "webhook_id": stored.verification_event_id,
            "state": "verified",
            "attempt_count": 0,  # taken as proven (tests/protocol.py)
            "next_attempt_at": None,
            "last_error": None,
            "parked_at": None,
            "attempts": [],
        },
        "count": 1,
        "deliveries": [
            {
                "delivery_id": delivery.pk,
                "event": {
                    "webhook_id": sent[0].headers["webhook-id"],
                    "type": "intent.surge",
                    "intent_id": delivery.event.intent_id,
                },
                "status": "succeeded",
                "attempt_count": 2,
                "attempts": [
                    {
                        "number": 1,
                        "started_at": _iso(first.started_at),
                        "outcome": "failed",
                        "status_code": 500,
                        "latency_ms": first.latency_ms,
                        "error": "The endpoint answered 500.",
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
                "last_status_code": 200,
                "last_error": None,
                "next_retry_at": None,
                "created_at": _iso(delivery.created_at),
                "delivered_at": _iso(delivery.completed_at),
                "failed_at": None,
            }
        ],
        "next_cursor": None,
    }
    assert sent[1].headers["webhook-id"] == sent[0].headers["webhook-id"]
    # Never the signature, the secret, the token or the merchant's own answer.
    text = response.content.decode()
    signature = sent[0].headers["webhook-signature"]
    for secret in (shop.webhook_secret, shop.token, signature, '"ok": true'):
        assert secret not in text


def test_a_waiting_delivery_says_when_it_is_tried_next(client, receiver, shop):
    receiver.script("503")
    delivery = surge_delivery(client)
    delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()

    (shown,) = _deliveries(client, shop.token).json()["deliveries"]

    assert shown["status"] == "pending"
    assert shown["next_retry_at"] == _iso(delivery.next_attempt_at)
    assert delivery.next_attempt_at > timezone.now()
    assert (shown["last_status_code"], shown["last_error"]) == (503, "The endpoint answered 503.")
    assert (shown["delivered_at"], shown["failed_at"]) == (None, None)


def test_a_failed_delivery_says_when_it_failed_and_no_next_retry(client, receiver, shop):
    delivery = _failed(client, receiver)

    (shown,) = _deliveries(client, shop.token).json()["deliveries"]

    assert (shown["status"], shown["attempt_count"]) == ("failed", MAX_ATTEMPTS)
    assert [a["number"] for a in shown["attempts"]] == list(range(1, MAX_ATTEMPTS + 1))
    assert {a["status_code"] for a in shown["attempts"]} == {503}
    assert shown["next_retry_at"] is None
    assert shown["failed_at"] == _iso(delivery.completed_at)
    assert shown["delivered_at"] is None


def test_deliveries_come_newest_first_in_pages_that_miss_nothing(client, receiver, shop):
    for _ in range(5):
        publish_surge(client)
    made = list(WebhookDelivery.objects.order_by("-created_at", "-id").values_list("pk", flat=True))

    first = _deliveries(client, shop.token, limit=2).json()
    publish_surge(client)  # a newer delivery does not shift the pages that follow
    seen, cursor = [d["delivery_id"] for d in first["deliveries"]], first["next_cursor"]
    pages = 1
    while cursor is not None:
        page = _deliveries(client, shop.token, limit=2, cursor=cursor).json()
        assert page["count"] == len(page["deliveries"]) <= 2
        seen += [d["delivery_id"] for d in page["deliveries"]]
        cursor, pages = page["next_cursor"], pages + 1

    assert seen == made
    assert pages == 3


def test_deliveries_filter_by_status(client, receiver, shop):
    for _ in range(3):
        publish_surge(client)
    failed, waiting, delivered = WebhookDelivery.objects.order_by("-id")
    delivery_attempt(delivery_id=delivered.pk)
    _give_up(failed, receiver)

    def ids(status):
        body = _deliveries(client, shop.token, status=status).json()
        return [d["delivery_id"] for d in body["deliveries"]]

    assert ids("failed") == [failed.pk]
    assert ids("succeeded") == [delivered.pk]
    assert ids("pending") == [waiting.pk]
    assert ids("sending") == []
    assert ids("") == [failed.pk, waiting.pk, delivered.pk]  # empty counts as absent


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"status": "delivered"}, "status"),
        ({"status": "FAILED"}, "status"),
        ({"limit": "0"}, "limit"),
        ({"limit": "101"}, "limit"),
        ({"limit": ""}, "limit"),  # no integer: never read as absent, the default
        ({"cursor": "abc"}, "cursor"),
        ({"cursor": "MjAyNS0xMS0xOFQwNjowMDowMCswMDowMHxldnRfMQ"}, "cursor"),  # not a delivery
    ],
)
def test_a_bad_query_is_a_400_naming_the_parameter(client, shop, query, field):
    response = _deliveries(client, shop.token, **query)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_parameter"
    assert list(response.json()["fields"]) == [field]


def test_a_merchant_never_sees_or_retries_another_merchants_deliveries(client, receiver, shop):
    with Receiver() as elsewhere:
        other = register(
            client, "shop-2", agent_endpoint=elsewhere.url, subscription_tags=["trail"]
        )
        publish_surge(client)  # one delivery each
        theirs = _give_up(WebhookDelivery.objects.get(merchant__merchant_id="shop-2"), elsewhere)

    mine = _deliveries(client, shop.token).json()["deliveries"]
    peeking = _deliveries(client, shop.token, merchant_id="shop-2")
    retrying = _retry(client, shop.token, theirs.pk)

    ours = WebhookDelivery.objects.get(merchant__merchant_id="shop-1")
    assert [d["delivery_id"] for d in mine] == [ours.pk]
    assert (peeking.status_code, peeking.json()["error"]) == (403, "invalid registration token")
    assert (retrying.status_code, retrying.json()["error"]) == (404, "delivery_not_found")
    theirs_after = WebhookDelivery.objects.get(pk=theirs.pk)
    assert (theirs_after.status, theirs_after.attempt_count) == ("failed", MAX_ATTEMPTS)
    assert _deliveries(client, other.token, merchant_id="shop-2").json()["count"] == 1


def test_the_list_costs_the_same_queries_however_many_deliveries(
    client, receiver, shop, django_assert_max_num_queries
):
    receiver.default = "503"
    for _ in range(6):
        publish_surge(client)
    for delivery in WebhookDelivery.objects.all():
        delivery_attempt(delivery_id=delivery.pk)

    # The merchant by its token, a page of deliveries with their events, their attempts, and
    # the attempts of the endpoint's verification.
    with django_assert_max_num_queries(4):
        response = _deliveries(client, shop.token)

    assert response.json()["count"] == 6
    assert all(len(d["attempts"]) == 1 for d in response.json()["deliveries"])


def test_a_failed_delivery_is_retried_with_the_same_webhook_id(client, receiver, shop):
    delivery = _failed(client, receiver)
    assert MerchantAgent.objects.get(merchant_id="shop-1").status == MerchantStatus.UNHEALTHY
    receiver.default = "200"

    response = _retry(client, shop.token, delivery.pk)

    assert response.status_code == 202
    shown = response.json()["delivery"]
    assert (shown["delivery_id"], shown["status"]) == (delivery.pk, "pending")
    assert (shown["attempt_count"], shown["failed_at"]) == (MAX_ATTEMPTS, None)
    due = WebhookDelivery.objects.get(pk=delivery.pk).next_attempt_at
    assert shown["next_retry_at"] == _iso(due)
    assert due <= timezone.now()
    delivery_attempt(delivery_id=delivery.pk)  # what the worker does with the task sent
    requests = receiver.wait_for(MAX_ATTEMPTS + 1)
    assert {r.headers["webhook-id"] for r in requests} == {delivery.event_id}
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("succeeded", MAX_ATTEMPTS + 1)
    assert MerchantAgent.objects.get(merchant_id="shop-1").status == MerchantStatus.ACTIVE


def test_a_retried_delivery_that_fails_again_fails_after_one_attempt(client, receiver, shop):
    delivery = _failed(client, receiver)
    assert _retry(client, shop.token, delivery.pk).status_code == 202

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == ("failed", MAX_ATTEMPTS + 1)
    assert _retry(client, shop.token, delivery.pk).status_code == 202  # and may be retried again


@pytest.mark.parametrize("status", ["pending", "sending", "succeeded"])
def test_only_a_failed_delivery_can_be_retried(client, receiver, shop, status):
    delivery = surge_delivery(client)
    if status == "succeeded":
        delivery_attempt(delivery_id=delivery.pk)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=status)
    before = WebhookDelivery.objects.values().get(pk=delivery.pk)

    response = _retry(client, shop.token, delivery.pk)

    assert response.status_code == 409
    assert response.json() == {
        "error": "delivery_not_failed",
        "message": f"The delivery is {status}; only a failed delivery can be retried.",
    }
    assert WebhookDelivery.objects.values().get(pk=delivery.pk) == before


@pytest.mark.parametrize("delivery_id", ["999999", "0", "-1", "abc", "1" * 30, "1.0"])
def test_an_unknown_delivery_is_a_404(client, shop, delivery_id):
    response = _retry(client, shop.token, delivery_id)

    assert (response.status_code, response.json()["error"]) == (404, "delivery_not_found")


def test_no_retry_while_the_merchant_is_deactivated(client, receiver, shop):
    delivery = _failed(client, receiver)
    post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token)

    response = _retry(client, shop.token, delivery.pk)

    assert (response.status_code, response.json()["error"]) == (403, "merchant_deactivated")
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == "failed"
    assert _deliveries(client, shop.token).json()["count"] == 1  # its history stays readable


def test_no_retry_while_the_endpoint_is_unproven(client, receiver, shop):
    delivery = _failed(client, receiver)
    moved = patch(client, "/v1/merchant/shop-1", {"agent_endpoint": receiver.url_root}, shop.token)
    assert moved.json()["merchant"]["endpoint_verified_at"] is None

    response = _retry(client, shop.token, delivery.pk)

    assert (response.status_code, response.json()["error"]) == (409, "endpoint_unverified")
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == "failed"


def test_no_retry_while_deliveries_are_off_after_410_until_registering_again(
    client, receiver, shop
):
    receiver.script("410")
    delivery = surge_delivery(client)
    delivery_attempt(delivery_id=delivery.pk)

    refused = _retry(client, shop.token, delivery.pk)
    body = {"merchant_id": "shop-1", "agent_endpoint": receiver.url, "subscription_tags": ["trail"]}
    post(client, "/v1/merchant/register", body, token=shop.token)
    accepted = _retry(client, shop.token, delivery.pk)

    assert (refused.status_code, refused.json()["error"]) == (409, "deliveries_disabled")
    assert accepted.status_code == 202


def test_a_delivery_has_a_bounded_number_of_attempts(client, receiver, shop):
    delivery = _failed(client, receiver)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(attempt_count=MOST_ATTEMPTS)

    response = _retry(client, shop.token, delivery.pk)

    assert response.status_code == 409
    assert response.json() == {
        "error": "delivery_retry_limit",
        "message": f"The delivery has had {MOST_ATTEMPTS} attempts, the most one delivery may "
        "have.",
    }
    assert WebhookDelivery.objects.get(pk=delivery.pk).status == "failed"


def test_retries_are_throttled_per_merchant(client, receiver, shop, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "delivery_retry": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    other = register(client, "shop-2")  # subscribed to nothing: no delivery of its own
    delivery = _failed(client, receiver)

    statuses = [_retry(client, shop.token, delivery.pk).status_code for _ in range(3)]
    throttled = _retry(client, shop.token, delivery.pk)
    others = _retry(client, other.token, delivery.pk, merchant_id="shop-2")

    assert statuses == [202, 409, 429]
    assert throttled.json()["error"] == "throttled"
    assert int(throttled.headers["Retry-After"]) >= 1
    assert others.status_code == 404  # another merchant, from the same address, is not held
