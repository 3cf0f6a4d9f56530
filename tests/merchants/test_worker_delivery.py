"""Intent.Surge through real workers: a `celery -A gateway worker --beat` process, the
configured broker, a merchant on loopback. Faults (a killed worker, Redis or PostgreSQL going
away) are in tests/faults."""

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from merchants.delivery import MAX_ATTEMPTS
from merchants.models import DeliveryStatus, MerchantAgent, MerchantStatus, WebhookDelivery
from merchants.tasks import deliver
from tests.protocol import create_intent, get, post, register
from tests.support.receiver import Receiver
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


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


def test_only_endpoints_that_echo_their_challenge_get_surges_once_per_url(
    client, loopback, waiting_worker
):
    """Registration through the API, verification by the worker, then one intent: the endpoint
    that echoed gets it, the one that did not gets nothing but its challenge, and an endpoint
    three merchants share gets one verification and the intent once."""
    with Receiver() as owner, Receiver() as victim, Receiver() as shared:
        victim.echo_challenges = False
        register(client, "owner", verified=False, agent_endpoint=owner.url,
                 subscription_tags=["trail"])  # fmt: skip
        register(client, "squatter", verified=False, agent_endpoint=victim.url,
                 subscription_tags=["trail"])  # fmt: skip
        for n in range(3):
            register(client, f"tenant-{n}", verified=False, agent_endpoint=shared.url,
                     subscription_tags=["trail"])  # fmt: skip
        waiting_worker.start()
        owner.wait_for_verifications(1)
        shared.wait_for_verifications(1)
        victim.wait_for_verifications(1)
        wait_until(
            lambda: MerchantAgent.objects.filter(endpoint_verified_at__isnull=False).count() == 4,
            what="the echoing endpoints to be verified",
        )

        create_intent(client, intent_tags=["trail"])

        owner.wait_for(1)
        shared.wait_for(1)
        wait_until(lambda: _all_delivered(2), what="both deliveries to succeed")
        assert len(owner.received) == 1
        assert len(shared.received) == 1
        assert len(shared.verifications) == 1
        assert victim.received == []
        assert MerchantAgent.objects.get(merchant_id="squatter").endpoint_verified_at is None


def test_a_failing_merchant_is_retried_by_the_sweeper_with_the_same_webhook_id(
    client, receiver, worker
):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    receiver.script("500")

    create_intent(client, intent_tags=["trail"])

    first, second = receiver.wait_for(2, timeout=60)  # a retry after 5 s, on a busy CI machine
    wait_until(lambda: _all_delivered(1), what="the retry to succeed")
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    for request in (first, second):
        Webhook(shop.webhook_secret).verify(request.body, request.headers)
    attempts = list(WebhookDelivery.objects.get().attempts.all())
    assert [(a.outcome, a.status_code) for a in attempts] == [("failed", 500), ("succeeded", 200)]
    assert (attempts[1].started_at - attempts[0].started_at).total_seconds() >= 4.5


def _settled(attempts: int) -> bool:
    """Whether the delivery's attempt number `attempts` is over and recorded."""
    return WebhookDelivery.objects.filter(
        attempt_count=attempts, status__in=[DeliveryStatus.PENDING, DeliveryStatus.FAILED]
    ).exists()


def test_a_delivery_given_up_and_retried_through_the_api_is_delivered_with_the_same_webhook_id(
    client, receiver, worker
):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])
    receiver.default = "500"
    create_intent(client, intent_tags=["trail"])
    # The worker makes every attempt; between them the clock is moved on (the schedule's waits
    # are hours), and the sweeper sends the attempt that came due.
    for made in range(1, MAX_ATTEMPTS):
        wait_until(lambda made=made: _settled(made), timeout=60, what=f"attempt {made}")
        WebhookDelivery.objects.filter(attempt_count=made).update(next_attempt_at=timezone.now())
    wait_until(
        lambda: WebhookDelivery.objects.filter(status=DeliveryStatus.FAILED).exists(),
        timeout=60,
        what="the gateway to give up",
    )
    delivery = WebhookDelivery.objects.get()
    assert delivery.attempt_count == MAX_ATTEMPTS
    assert MerchantAgent.objects.get(merchant_id="runner").status == MerchantStatus.UNHEALTHY
    receiver.default = "200"

    path = f"/v1/merchant/runner/deliveries/{delivery.pk}/retry"
    response = post(client, path, None, token=shop.token)

    assert response.status_code == 202
    requests = receiver.wait_for(MAX_ATTEMPTS + 1)
    wait_until(lambda: _all_delivered(1), what="the retried delivery to succeed")
    assert len(requests) == MAX_ATTEMPTS + 1
    assert {r.headers["webhook-id"] for r in requests} == {delivery.event_id}
    Webhook(shop.webhook_secret).verify(requests[-1].body, requests[-1].headers)
    (listed,) = get(client, "/v1/merchant/runner/deliveries", shop.token).json()["deliveries"]
    assert (listed["status"], listed["attempt_count"]) == ("succeeded", MAX_ATTEMPTS + 1)
    assert [a["status_code"] for a in listed["attempts"]] == [500] * MAX_ATTEMPTS + [200]
    assert MerchantAgent.objects.get(merchant_id="runner").status == MerchantStatus.ACTIVE
