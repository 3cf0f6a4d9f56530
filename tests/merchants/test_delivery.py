"""Intent.Surge delivery to a real receiver on loopback: signatures, answers, retries, refusals
and lanes."""

from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from merchants.delivery import (
    FAST_LANE,
    MAX_ATTEMPTS,
    SLOW_LANE,
    delivery_attempt,
)
from merchants.endpoints import NOT_PUBLIC, Destination, Target
from merchants.models import (
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
)
from tests.merchants.delivery_calls import (
    attempt_every_time,
    due_now,
    publish_surge,
    surge_delivery,
)
from tests.protocol import post, register

pytestmark = pytest.mark.django_db


def test_a_2xx_answer_delivers_a_body_the_merchant_can_verify(client, receiver, shop):
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    (request,) = receiver.wait_for(1)
    payload = Webhook(shop.webhook_secret).verify(request.body, request.headers)
    assert payload["id"] == delivery.event_id
    assert payload["type"] == "intent.surge"
    assert request.body == delivery.event.body.encode()  # the exact bytes stored are the bytes sent
    assert request.headers["webhook-id"] == delivery.event_id
    assert request.headers["content-type"] == "application/json"
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert delivery.attempt_count == 1
    assert delivery.completed_at is not None
    (attempt,) = delivery.attempts.all()
    assert (attempt.number, attempt.outcome, attempt.status_code) == (1, "succeeded", 200)
    assert attempt.response_excerpt == '{"ok": true}'


def test_a_signature_made_with_another_secret_does_not_verify(client, receiver, shop):
    delivery_attempt(delivery_id=surge_delivery(client).pk)

    (request,) = receiver.wait_for(1)
    other = register(client, "shop-2", agent_endpoint=receiver.url)
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(other.webhook_secret).verify(request.body, request.headers)
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(shop.webhook_secret).verify(request.body + b" ", request.headers)


def test_a_failure_is_retried_on_schedule_with_the_same_webhook_id(client, receiver, shop):
    receiver.script("500")
    delivery = surge_delivery(client)

    before = timezone.now()
    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_status_code == 500
    assert delivery.last_error == "The endpoint answered 500."
    # The first retry waits 5 s, jittered by 10%.
    wait = (delivery.next_attempt_at - before).total_seconds()
    assert 4.5 <= wait <= 5.6
    assert delivery_attempt(delivery_id=delivery.pk) is None  # not due yet: nothing sent
    assert len(receiver.received) == 1

    due_now(delivery)
    delivery_attempt(delivery_id=delivery.pk)

    first, second = receiver.wait_for(2)
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery.event_id
    assert first.body == second.body
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.SUCCEEDED, 2)
    outcomes = list(delivery.attempts.values_list("number", "outcome", "status_code"))
    assert outcomes == [(1, "failed", 500), (2, "succeeded", 200)]


def test_a_redirect_is_a_failure_and_is_never_followed(client, receiver, shop):
    receiver.script("redirect")
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_status_code == 302
    assert "redirects are never followed" in delivery.last_error
    assert [r.path for r in receiver.received] == ["/hook"]  # /elsewhere never requested


def test_410_gone_disables_the_merchants_deliveries(client, receiver, shop):
    receiver.script("410")
    delivery = surge_delivery(client)
    publish_surge(client)  # a second delivery, still waiting
    waiting = WebhookDelivery.objects.exclude(pk=delivery.pk).get()

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    waiting.refresh_from_db()
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.FAILED, 1)
    assert merchant.deliveries_disabled_at is not None
    assert waiting.status == DeliveryStatus.FAILED
    assert waiting.attempt_count == 0
    publish_surge(client)
    assert WebhookDelivery.objects.count() == 2  # nothing new for a gone endpoint
    assert len(receiver.received) == 1
    lookup = client.get("/v1/merchant/shop-1").json()["merchant"]
    assert lookup["deliveries_disabled_at"] is not None


def test_registering_again_re_enables_deliveries_after_410(client, receiver, shop):
    receiver.script("410")
    delivery_attempt(delivery_id=surge_delivery(client).pk)

    body = {"merchant_id": "shop-1", "agent_endpoint": receiver.url, "subscription_tags": ["trail"]}
    assert post(client, "/v1/merchant/register", body, token=shop.token).status_code == 200

    assert MerchantAgent.objects.get(merchant_id="shop-1").deliveries_disabled_at is None
    publish_surge(client)
    assert WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).count() == 1


def test_a_merchant_that_does_not_answer_in_time_is_a_failed_attempt(client, receiver, shop):
    receiver.script("hang:5")
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    (attempt,) = delivery.attempts.all()
    assert delivery.status == DeliveryStatus.PENDING
    assert attempt.outcome == AttemptOutcome.FAILED
    assert attempt.status_code is None
    assert attempt.error == "No answer within 1 s."
    assert attempt.latency_ms is not None
    assert attempt.latency_ms >= 1000


def test_only_the_start_of_a_huge_answer_is_read(client, receiver, shop):
    receiver.script("huge")
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    (attempt,) = delivery.attempts.all()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert attempt.response_excerpt == "x" * 1024  # and no wait for the 50 MB never sent


def test_a_private_target_is_refused_at_delivery_when_the_switches_are_off(
    client, receiver, shop, settings
):
    delivery = surge_delivery(client)
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.last_error == f"Not sent: the endpoint {NOT_PUBLIC}."
    assert delivery.status == DeliveryStatus.PENDING  # DNS may change: retried on schedule
    assert receiver.received == []


def test_plain_http_is_refused_at_delivery_when_the_switch_is_off(client, receiver, shop, settings):
    delivery = surge_delivery(client)
    settings.WEBHOOK_ALLOW_HTTP = False

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.last_error == "Not sent: the endpoint must be an https URL."
    assert receiver.received == []


def test_a_second_task_for_the_same_delivery_sends_nothing(client, receiver, shop):
    delivery = surge_delivery(client)

    assert delivery_attempt(delivery_id=delivery.pk) is not None
    assert delivery_attempt(delivery_id=delivery.pk) is None

    assert len(receiver.wait_for(1)) == 1
    assert DeliveryAttempt.objects.count() == 1


def test_after_the_last_attempt_the_delivery_fails_and_the_merchant_is_unhealthy(
    client, receiver, shop
):
    receiver.script(*["503"] * MAX_ATTEMPTS)
    delivery = surge_delivery(client)

    attempt_every_time(delivery)

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.FAILED, MAX_ATTEMPTS)
    assert MAX_ATTEMPTS == 8
    assert len({r.headers["webhook-id"] for r in receiver.wait_for(MAX_ATTEMPTS)}) == 1
    due_now(delivery)
    assert delivery_attempt(delivery_id=delivery.pk) is None  # final: no ninth attempt
    assert MerchantAgent.objects.get(merchant_id="shop-1").status == MerchantStatus.UNHEALTHY


def test_a_success_makes_an_unhealthy_merchant_active_again(client, receiver, shop):
    delivery = surge_delivery(client)
    MerchantAgent.objects.filter(merchant_id="shop-1").update(status=MerchantStatus.UNHEALTHY)

    delivery_attempt(delivery_id=delivery.pk)

    assert MerchantAgent.objects.get(merchant_id="shop-1").status == MerchantStatus.ACTIVE


def test_a_delivery_to_a_merchant_deactivated_since_fails_without_a_request(client, receiver, shop):
    delivery = surge_delivery(client)
    post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token)

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_error == "Not sent: the merchant agent is deactivated."
    assert delivery.attempt_count == 0
    assert receiver.received == []


def test_a_body_that_breaks_off_after_a_2xx_is_still_a_success(client, receiver, shop):
    receiver.script("short")
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert delivery.attempts.get().response_excerpt == '{"ok": tr'


def test_a_nul_in_the_answer_is_kept_out_of_the_record(client, receiver, shop):
    receiver.script("500")
    receiver.answer_body = b"broken\x00answer"
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    assert delivery.attempts.get().response_excerpt == "broken\ufffdanswer"


def test_an_answer_dripped_a_byte_at_a_time_is_cut_off_at_the_timeout(client, receiver, shop):
    receiver.script("drip")
    delivery = surge_delivery(client)

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING
    assert delivery.last_error == "No answer within 1 s."


def test_the_connection_filter_refuses_a_private_address_on_its_own(
    client, receiver, shop, settings, monkeypatch
):
    """The second line of defence: should the endpoint check pass (a bug, a list out of date),
    the connection still refuses to go to a private address."""
    delivery = surge_delivery(client)
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    port = urlsplit(receiver.url).port
    monkeypatch.setattr(
        "merchants.delivery.attempts.endpoint_target_within",
        lambda url, timeout: Target(url, Destination("127.0.0.1", port)),
    )

    delivery_attempt(delivery_id=delivery.pk)

    delivery.refresh_from_db()
    assert delivery.last_error == "Not sent: the endpoint resolved to a private address."
    assert receiver.received == []


def test_a_merchant_with_its_fill_of_deliveries_under_way_waits_for_the_next(
    client, receiver, shop, settings
):
    settings.WEBHOOK_MERCHANT_IN_FLIGHT = 2
    for _ in range(3):
        publish_surge(client)
    first, second, third = WebhookDelivery.objects.order_by("id")
    WebhookDelivery.objects.filter(pk__in=[first.pk, second.pk]).update(
        status=DeliveryStatus.SENDING, claimed_at=timezone.now()
    )  # two under way, as two workers would have them

    assert delivery_attempt(delivery_id=third.pk) is None

    third.refresh_from_db()
    assert third.status == DeliveryStatus.PENDING
    assert third.attempt_count == 0
    assert third.next_attempt_at > timezone.now()  # a moment later, sent by the sweeper
    assert third.enqueued_at is None
    assert receiver.received == []


def test_no_answer_in_time_moves_the_merchant_to_the_slow_lane_until_it_answers(
    client, receiver, shop
):
    receiver.script("hang:5", "500")
    delivery_attempt(delivery_id=surge_delivery(client).pk)
    assert MerchantAgent.objects.get(merchant_id="shop-1").slow_since is not None

    publish_surge(client)
    later = WebhookDelivery.objects.order_by("-id")[0]
    assert delivery_attempt(delivery_id=later.pk, lane=FAST_LANE) is None  # handed over
    later.refresh_from_db()
    assert (later.status, later.attempt_count) == (DeliveryStatus.PENDING, 0)
    delivery_attempt(delivery_id=later.pk, lane=SLOW_LANE)  # a 500 is an answer: back again

    assert MerchantAgent.objects.get(merchant_id="shop-1").slow_since is None
