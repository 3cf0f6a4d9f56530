"""Endpoint ownership (merchants/verification.py): a merchant receives no Intent.Surge until its
endpoint echoed the challenge of a signed endpoint.verification event; every endpoint change
starts again; an event reaches an endpoint URL once; a host gets a bounded number a minute."""

from datetime import timedelta

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from kernel.scheduling import Scheduled
from merchants.delivery import delivery_attempt
from merchants.models import DeliveryStatus, MerchantAgent, WebhookDelivery
from merchants.tasks import sweep_verifications
from merchants.verification import endpoint_verify, verifications_due
from tests.protocol import create_intent, fan_out, get, patch, register
from tests.support.minutes import a_whole_minute_ahead
from tests.support.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def loopback_merchants(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_TIMEOUT_S = 2.0


def merchant(merchant_id: str) -> MerchantAgent:
    return MerchantAgent.objects.get(merchant_id=merchant_id)


def verify(merchant_id: str) -> bool | None:
    """What the verify task does, once the attempt is due."""
    return endpoint_verify(merchant_pk=merchant(merchant_id).pk)


def test_an_endpoint_that_echoes_its_signed_challenge_is_verified(client, receiver):
    shop = register(client, "shop", verified=False, agent_endpoint=receiver.url)
    record = merchant("shop")
    assert record.endpoint_verified_at is None
    assert get(client, "/v1/merchant/shop").json()["merchant"]["endpoint_verified_at"] is None

    assert verify("shop") is True

    (request,) = receiver.verifications
    event = Webhook(shop.webhook_secret).verify(request.body, request.headers)
    assert event["type"] == "endpoint.verification"
    assert event["data"] == {
        "challenge": record.verification_challenge,
        "merchant_agent_id": "shop",
        "merchant_agent_ids": ["shop"],
        "agent_endpoint": receiver.url,
    }
    assert request.headers["webhook-id"] == record.verification_event_id
    verified = merchant("shop")
    assert verified.endpoint_verified_at is not None
    assert verified.next_verification_at is None
    served = get(client, "/v1/merchant/shop").json()["merchant"]["endpoint_verified_at"]
    assert served is not None
    assert verify("shop") is None  # nothing left to do


def test_a_merchant_whose_endpoint_does_not_echo_receives_no_surge(client, receiver):
    receiver.echo_challenges = False  # the victim's URL: it answers 200, but not the challenge
    register(client, "squatter", verified=False, agent_endpoint=receiver.url,
             subscription_tags=["trail"])  # fmt: skip

    assert verify("squatter") is False
    create_intent(client, intent_tags=["trail"])
    fan_out()

    assert not WebhookDelivery.objects.exists()
    assert receiver.received == []
    record = merchant("squatter")
    assert record.endpoint_verified_at is None
    assert record.verification_attempts == 1
    assert "challenge" in record.last_verification_error
    # Asked again on the delivery schedule: 5 s later, then 5 min, ...
    assert record.next_verification_at is not None
    wait = record.next_verification_at - timezone.now()
    assert timedelta(seconds=3) < wait <= timedelta(seconds=5)


@pytest.mark.parametrize("answer", ["500", "redirect", "hang:5"])
def test_an_endpoint_that_fails_is_not_verified_and_asked_again(client, answer):
    with Receiver() as endpoint:
        endpoint.echo_challenges = False
        register(client, "shop", verified=False, agent_endpoint=endpoint.url)
        endpoint.default = answer

        assert verify("shop") is False

    record = merchant("shop")
    assert record.endpoint_verified_at is None
    assert record.last_verification_error
    assert record.next_verification_at is not None
    assert record.next_verification_at > timezone.now()


def test_the_sweeper_sends_the_attempts_that_are_due(client, receiver, settings):
    register(client, "new", verified=False, agent_endpoint=receiver.url)
    register(client, "proven", agent_endpoint=f"{receiver.url}?proven")
    MerchantAgent.objects.filter(merchant_id="new").update(
        next_verification_at=timezone.now() - timedelta(seconds=1)
    )

    assert verifications_due() == [merchant("new").pk]
    settings.CELERY_TASK_ALWAYS_EAGER = True  # the task runs here, as a worker would run it
    sweep_verifications()

    assert merchant("new").endpoint_verified_at is not None
    assert verifications_due() == []


def test_every_endpoint_change_must_be_proven_again(client, receiver):
    shop = register(client, "shop", agent_endpoint=receiver.url, subscription_tags=["trail"])
    before = merchant("shop")
    with Receiver() as moved:
        answer = patch(client, "/v1/merchant/shop", {"agent_endpoint": moved.url}, shop.token)
        assert answer.status_code == 200
        after = merchant("shop")
        assert after.endpoint_verified_at is None
        assert after.verification_event_id != before.verification_event_id
        assert after.verification_challenge != before.verification_challenge

        create_intent(client, intent_tags=["trail"])
        fan_out()
        assert not WebhookDelivery.objects.exists()  # not until the new endpoint echoes

        assert verify("shop") is True
        create_intent(client, intent_tags=["trail"])
        fan_out()
        delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
        assert len(moved.wait_for(1)) == 1


def test_registering_again_with_the_same_endpoint_keeps_the_proof(client, receiver):
    shop = register(client, "shop", agent_endpoint=receiver.url)
    body = {"merchant_id": "shop", "agent_endpoint": receiver.url, "subscription_tags": ["x"]}

    client.post("/v1/merchant/register", body, content_type="application/json",
                headers={"X-Merchant-Token": shop.token})  # fmt: skip

    assert merchant("shop").endpoint_verified_at is not None


def test_a_delivery_queued_before_an_endpoint_change_is_not_sent_to_the_new_one(client, receiver):
    shop = register(client, "shop", agent_endpoint=receiver.url, subscription_tags=["trail"])
    create_intent(client, intent_tags=["trail"])
    fan_out()
    with Receiver() as moved:
        patch(client, "/v1/merchant/shop", {"agent_endpoint": moved.url}, shop.token)

        delivery = delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)

        assert delivery is not None
        assert delivery.status == DeliveryStatus.FAILED
        assert "ownership" in delivery.last_error
        assert moved.received == []


def test_an_event_reaches_an_endpoint_url_once_however_many_merchants_name_it(client, receiver):
    for n in range(3):
        register(client, f"tenant-{n}", agent_endpoint=receiver.url, subscription_tags=["trail"])
    register(client, "elsewhere", agent_endpoint=f"{receiver.url}?own", subscription_tags=["trail"])

    create_intent(client, intent_tags=["trail"])
    fan_out()
    for delivery in WebhookDelivery.objects.all():
        delivery_attempt(delivery_id=delivery.pk)

    urls = sorted(request.path for request in receiver.wait_for(2))
    assert urls == ["/hook", "/hook?own"]
    assert WebhookDelivery.objects.count() == 2


def test_an_endpoint_host_gets_a_bounded_number_of_requests_a_minute(client, receiver, settings):
    settings.WEBHOOK_HOST_PER_MINUTE = 2
    a_whole_minute_ahead()  # the bound counts by the clock's minute: all in one of them
    for n in range(3):
        register(client, f"shop-{n}", agent_endpoint=f"{receiver.url}?m={n}",
                 subscription_tags=["trail"])  # fmt: skip
    create_intent(client, intent_tags=["trail"])
    fan_out()

    outcomes = [delivery_attempt(delivery_id=d.pk) for d in WebhookDelivery.objects.all()]

    assert [outcome is not None for outcome in outcomes].count(True) == 2
    waiting = WebhookDelivery.objects.get(status=DeliveryStatus.PENDING)
    assert waiting.attempt_count == 0  # no attempt spent: it waits for the next minute
    assert waiting.next_attempt_at > timezone.now()
    assert len(receiver.received) == 2


def test_unverified_merchants_are_not_probed(client, receiver):
    register(client, "shop", verified=False, agent_endpoint=receiver.url)

    health = get(client, "/v1/merchant/shop/health").json()

    assert health["healthy"] is False
    assert "ownership" in health["message"]
    assert receiver.received == []


def test_a_repeated_task_leaves_the_attempt_to_the_task_that_took_the_urls_turn(
    client, receiver, monkeypatch
):
    """A merchant that changed its endpoint several times has a verify task for each change,
    and workers run them at once: one that finds the URL's turn taken by the same event must
    neither attempt nor postpone the attempt the other task is about to claim."""
    register(client, "mover", verified=False, agent_endpoint=receiver.url)
    pk = merchant("mover").pk
    due_before = merchant("mover").next_verification_at
    repeats: list[bool | None] = []
    claim = Scheduled.claim

    def claim_after_a_repeated_task(self, rows, now, **changes):
        if not repeats:  # between the first task's turn and its claim, the repeat runs
            repeats.append(endpoint_verify(merchant_pk=pk))
            repeats.append(merchant("mover").next_verification_at == due_before)
        return claim(self, rows, now, **changes)

    monkeypatch.setattr(Scheduled, "claim", claim_after_a_repeated_task)

    assert verify("mover") is True
    assert repeats == [None, True]  # the repeat did nothing and left the row due
    assert len(receiver.verifications) == 1
    assert merchant("mover").endpoint_verified_at is not None
