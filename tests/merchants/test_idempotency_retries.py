"""Retries under one Idempotency-Key (kernel/idempotency.py) while the first request is still
being answered, held at the scripted intent engine from a thread of its own; and a retried intent
through real Celery workers to a merchant on loopback, which gets one Intent.Surge."""

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from kernel.models import IdempotencyKey
from matching.models import Intent
from merchants.models import DeliveryStatus, WebhookDelivery
from tests.protocol import register
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "0f8e2a4c-retry-of-one-intent"
BODY = {"raw_query": "trail running shoes", "region": "US"}


def keyed_post(client, body=BODY, key=KEY):
    return client.post(
        "/v1/intents", body, content_type="application/json", headers={"Idempotency-Key": key}
    )


@pytest.fixture
def waiting(engine, settings):
    """The engine, answering only once released; requests wait for it that long."""
    settings.INTENT_ENGINE_TIMEOUT_S = 30
    engine.hold()
    yield engine
    engine.release()


def test_a_retry_while_the_first_is_in_flight_is_409_and_then_replays_it(client, waiting):
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(keyed_post, Client())
        wait_until(lambda: waiting.calls_count == 1, what="the first request at the engine")

        meanwhile = keyed_post(client)
        other = keyed_post(client, {"raw_query": "wool socks"})
        recorded_meanwhile = Intent.objects.count()
        waiting.release()
        answered = first.result(timeout=60)
    again = keyed_post(client)

    assert meanwhile.status_code == 409
    assert meanwhile.json() == {
        "error": "idempotency_key_in_flight",
        "message": "A request with this Idempotency-Key is still being answered: retry it in a "
        "moment.",
    }
    assert other.status_code == 422  # another body under the key, even in flight
    assert recorded_meanwhile == 0
    assert answered.status_code == 201
    assert again.status_code == 201
    assert again.content == answered.content
    assert again["Idempotent-Replayed"] == "true"
    assert waiting.calls_count == 1
    assert Intent.objects.count() == 1


def test_a_request_whose_lock_lapsed_is_run_again_by_its_retry(client, waiting):
    with ThreadPoolExecutor(2) as pool:
        abandoned = pool.submit(keyed_post, Client())
        wait_until(lambda: waiting.calls_count == 1, what="the first request at the engine")
        # Its lock lapses, as a request's does when its worker was killed (IDEMPOTENCY_LOCK_S).
        IdempotencyKey.objects.update(locked_until=timezone.now() - timedelta(seconds=1))
        retry = pool.submit(keyed_post, Client())
        wait_until(lambda: waiting.calls_count == 2, what="the retry at the engine")
        waiting.release()
        late, taken_over = abandoned.result(timeout=60), retry.result(timeout=60)
    later = keyed_post(client)

    assert (late.status_code, taken_over.status_code, later.status_code) == (201, 201, 201)
    assert later.content == taken_over.content  # the run that held the key keeps its answer
    assert later.content != late.content
    assert IdempotencyKey.objects.get().run == 2


def _delivered(count: int) -> bool:
    statuses = list(WebhookDelivery.objects.values_list("status", flat=True))
    return statuses == [DeliveryStatus.SUCCEEDED] * count


def test_a_retried_intent_sends_its_merchant_no_second_surge(client, receiver, worker, engine):
    shop = register(client, "runner", agent_endpoint=receiver.url, subscription_tags=["trail"])

    first = keyed_post(client)
    receiver.wait_for(1)
    wait_until(lambda: _delivered(1), what="the first intent's delivery")
    again = keyed_post(client)
    # An intent of a key of its own, sent after the retry: once it is delivered, a surge of the
    # retry would have been too.
    marker = keyed_post(client, {"raw_query": "trail socks", "region": "US"}, key="marker")
    receiver.wait_for(2)
    wait_until(lambda: _delivered(2), what="the marker's delivery")

    assert (first.status_code, again.status_code, marker.status_code) == (201, 201, 201)
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    surged = [
        Webhook(shop.webhook_secret).verify(request.body, request.headers)["data"]["intent"]
        for request in receiver.received
    ]
    assert [intent["intent_id"] for intent in surged] == [
        first.json()["intent"]["intent_id"],
        marker.json()["intent"]["intent_id"],
    ]
    assert Intent.objects.count() == 2
    assert engine.intent_texts == ["trail running shoes", "trail socks"]
