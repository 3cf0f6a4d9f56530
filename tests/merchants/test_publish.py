"""Publishing Intent.Surge: which merchants an intent is for, and what each will be sent."""

import orjson
import pytest
from django.db import transaction
from django.utils import timezone

from matching.services import intent_create
from merchants.delivery import MAX_BODY_BYTES, surge_publish
from merchants.models import DeliveryStatus, MerchantAgent, MerchantStatus, WebhookDelivery
from tests.protocol import create_intent, post, register

pytestmark = pytest.mark.django_db


def _recipients() -> set[str]:
    return set(WebhookDelivery.objects.values_list("merchant__merchant_id", flat=True))


def test_an_intent_goes_to_the_merchants_whose_tags_and_regions_fit(client):
    register(client, "runner", subscription_tags=["Trail", "shoes"])
    register(client, "everything", subscription_tags=["*"])
    register(client, "us-only", subscription_tags=["trail"], regions=["US"])
    register(client, "gb-only", subscription_tags=["trail"], regions=["GB"])
    register(client, "kitchen", subscription_tags=["kitchen"])
    register(client, "nothing")  # no subscriptions at all

    intent = create_intent(client, intent_tags=["TRAIL", "running"], region="us")

    assert _recipients() == {"runner", "everything", "us-only"}
    deliveries = WebhookDelivery.objects.all()
    assert {d.intent_id for d in deliveries} == {intent["intent_id"]}
    assert {d.status for d in deliveries} == {DeliveryStatus.PENDING}
    assert {d.attempt_count for d in deliveries} == {0}
    # One event: the same webhook-id and body for every merchant it goes to.
    assert len({(d.event_id, d.body) for d in deliveries}) == 1


def test_an_intent_without_a_region_goes_to_merchants_of_every_region(client):
    register(client, "gb-only", subscription_tags=["trail"], regions=["GB"])

    create_intent(client, intent_tags=["trail"])

    assert _recipients() == {"gb-only"}


def test_deactivated_unhealthy_and_gone_merchants_receive_nothing(client):
    register(client, "live", subscription_tags=["trail"])
    gone = register(client, "gone", subscription_tags=["trail"])
    post(client, "/v1/merchant/gone/deactivate", None, token=gone.token)
    register(client, "ill", subscription_tags=["trail"])
    MerchantAgent.objects.filter(merchant_id="ill").update(status=MerchantStatus.UNHEALTHY)
    register(client, "moved", subscription_tags=["trail"])
    MerchantAgent.objects.filter(merchant_id="moved").update(deliveries_disabled_at=timezone.now())

    create_intent(client, intent_tags=["trail"])

    assert _recipients() == {"live"}


def test_an_intent_without_tags_is_not_published(client):
    register(client, "everything", subscription_tags=["*"])

    create_intent(client)

    assert not WebhookDelivery.objects.exists()


def test_fan_out_is_capped_at_the_first_merchants_registered(client, settings):
    settings.WEBHOOK_FANOUT_MAX = 2
    for name in ("first", "second", "third"):
        register(client, name, subscription_tags=["trail"])

    create_intent(client, intent_tags=["trail"])

    assert _recipients() == {"first", "second"}


def test_the_surge_body_carries_the_intent_and_where_to_answer(client, settings):
    register(client, "runner", subscription_tags=["trail"])

    intent = create_intent(client, intent_tags=["trail"], region="US", audience="runners")

    delivery = WebhookDelivery.objects.get()
    body = orjson.loads(delivery.body)
    assert body == {
        "id": delivery.event_id,
        "type": "intent.surge",
        "created_at": body["created_at"],
        "protocol_version": "0.2",
        "data": {
            "intent": intent,
            "intent_url": f"{settings.PUBLIC_BASE_URL}/v1/intents/{intent['intent_id']}",
            "proposals_url": f"{settings.PUBLIC_BASE_URL}/v1/proposals",
        },
    }
    assert delivery.event_id.startswith("evt_")
    assert body["created_at"].endswith("Z")


def test_an_oversized_intent_is_cut_down_below_20_kb_and_marked(client):
    register(client, "runner", subscription_tags=["trail"])
    metadata = {f"k{i}": "v" * 200 for i in range(200)}  # about 40 KB

    intent = create_intent(client, intent_tags=["trail"], raw_query="q" * 2000, metadata=metadata)

    body = WebhookDelivery.objects.get().body.encode()
    data = orjson.loads(body)["data"]
    assert len(body) <= MAX_BODY_BYTES
    assert data["truncated"] is True
    assert "metadata" not in data["intent"]
    assert data["intent"]["raw_query"] == "q" * 500
    assert data["intent"]["intent_id"] == intent["intent_id"]


def test_deliveries_roll_back_with_the_intent_and_no_task_is_sent(
    client, django_capture_on_commit_callbacks
):
    register(client, "runner", subscription_tags=["trail"])

    def create_then_fail() -> None:
        with transaction.atomic():
            intent_create(
                raw_query="shoes",
                region=None,
                audience=None,
                budget_range=None,
                constraints=[],
                intent_tags=["trail"],
                source_channel=None,
                metadata={},
            )
            raise RuntimeError("the request failed after the intent was written")

    with (
        django_capture_on_commit_callbacks() as callbacks,
        pytest.raises(RuntimeError, match="after the intent"),
    ):
        create_then_fail()

    assert not WebhookDelivery.objects.exists()
    assert callbacks == []


def test_the_tasks_are_sent_only_after_commit(client, django_capture_on_commit_callbacks):
    register(client, "runner", subscription_tags=["trail"])

    with django_capture_on_commit_callbacks() as callbacks:
        create_intent(client, intent_tags=["trail"])

    assert len(callbacks) == 1
    assert WebhookDelivery.objects.get().enqueued_at is None  # sent (and stamped) after commit


def test_publishing_without_tags_writes_nothing():
    assert surge_publish(intent={"intent_id": "int_x", "intent_tags": [], "region": None}) == 0
