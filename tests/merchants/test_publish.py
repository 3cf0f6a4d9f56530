"""Publishing Intent.Surge: the event written with the intent, which merchants its fan-out is
for, and what each will be sent."""

import orjson
import pytest
from django.db import transaction
from django.utils import timezone

from matching.services import intent_create
from merchants.delivery import MAX_BODY_BYTES, event_fan_out, surge_publish
from merchants.models import (
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
    WebhookEvent,
)
from tests.protocol import create_intent, fan_out, post, register

pytestmark = pytest.mark.django_db


def _recipients() -> set[str]:
    fan_out()  # what the fan-out task does once the intent is committed
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
    assert {d.status for d in deliveries} == {DeliveryStatus.PENDING}
    assert {d.attempt_count for d in deliveries} == {0}
    # One event: the same webhook-id and body for every merchant it goes to.
    (event,) = WebhookEvent.objects.all()
    assert {d.event_id for d in deliveries} == {event.event_id}
    assert event.intent_id == intent["intent_id"]
    assert event.fanned_out_at is not None


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
    fan_out()

    delivery = WebhookDelivery.objects.get()
    body = orjson.loads(delivery.event.body)
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
    # Each field within its bound (metadata 16 KB, 20 constraints of 200 characters, here of
    # two bytes each), together over 20 KB.
    metadata = {f"k{i:02}": "v" * 200 for i in range(78)}  # 16,303 bytes as compact JSON
    constraints = [f"{i:02}" + "é" * 198 for i in range(20)]  # 7,960 bytes

    intent = create_intent(
        client,
        intent_tags=["trail"],
        raw_query="q" * 2000,
        metadata=metadata,
        constraints=constraints,
    )

    body = WebhookEvent.objects.get().body.encode()
    data = orjson.loads(body)["data"]
    assert len(body) <= MAX_BODY_BYTES
    assert data["truncated"] is True
    assert "metadata" not in data["intent"]
    assert data["intent"]["raw_query"] == "q" * 500
    assert data["intent"]["constraints"] == [item[:100] for item in constraints[:5]]
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

    assert not WebhookEvent.objects.exists()
    assert callbacks == []


def test_the_request_writes_one_event_and_sends_one_task_after_commit(
    client, django_capture_on_commit_callbacks
):
    for n in range(5):
        register(client, f"runner-{n}", subscription_tags=["trail"])

    with django_capture_on_commit_callbacks() as callbacks:
        create_intent(client, intent_tags=["trail"])

    assert len(callbacks) == 1  # one task, however many merchants the intent fits
    assert WebhookEvent.objects.count() == 1
    assert not WebhookDelivery.objects.exists()  # the task writes them


def test_a_fan_out_is_made_once_and_sends_its_deliveries_after_commit(
    client, django_capture_on_commit_callbacks
):
    register(client, "runner", subscription_tags=["trail"])
    create_intent(client, intent_tags=["trail"])
    event = WebhookEvent.objects.get()

    with django_capture_on_commit_callbacks() as callbacks:
        assert event_fan_out(event_id=event.event_id) == 1
    assert event_fan_out(event_id=event.event_id) == 0  # a duplicated task writes nothing

    assert len(callbacks) == 1
    assert WebhookDelivery.objects.get().enqueued_at is None  # sent (and stamped) after commit


def test_merchants_that_answer_in_time_are_sent_to_first(client):
    for name in ("slow-a", "quick", "slow-b"):
        register(client, name, subscription_tags=["trail"])
    MerchantAgent.objects.filter(merchant_id__startswith="slow").update(slow_since=timezone.now())

    create_intent(client, intent_tags=["trail"])
    fan_out()

    ordered = WebhookDelivery.objects.order_by("id").values_list("merchant__merchant_id", flat=True)
    assert list(ordered) == ["quick", "slow-a", "slow-b"]


def test_publishing_without_tags_writes_nothing():
    assert surge_publish(intent={"intent_id": "int_x", "intent_tags": [], "region": None}) is None
    assert not WebhookEvent.objects.exists()


def test_an_event_no_merchant_fits_is_gone_once_fanned_out(client):
    register(client, "gb-only", subscription_tags=["trail"], regions=["GB"])
    create_intent(client, intent_tags=["trail"], region="US")
    assert WebhookEvent.objects.count() == 1

    assert fan_out() == 0

    assert not WebhookEvent.objects.exists()  # nothing would ever read it


def test_an_intent_nobody_subscribes_to_writes_no_event_and_sends_no_task(
    client, django_capture_on_commit_callbacks
):
    register(client, "kitchen", subscription_tags=["kitchen"])

    with django_capture_on_commit_callbacks() as callbacks:
        create_intent(client, intent_tags=["trail"])

    assert not WebhookEvent.objects.exists()
    assert callbacks == []


def test_a_new_subscription_counts_from_the_next_intent(client, django_capture_on_commit_callbacks):
    create_intent(client, intent_tags=["trail"])  # nobody subscribes yet
    with django_capture_on_commit_callbacks(execute=True):
        register(client, "runner", subscription_tags=["trail"])

    create_intent(client, intent_tags=["trail"])

    assert _recipients() == {"runner"}
