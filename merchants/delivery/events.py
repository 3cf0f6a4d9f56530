"""Intent.Surge events: the signed body, who is subscribed, publishing with the intent, and
fanning out to one delivery per merchant."""

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from kernel.dispatch import dispatch_after_commit
from kernel.ids import EVENT, new_id
from kernel.tracing import link_to, traced, traceparent
from merchants import subscriptions
from merchants.delivery.attempts import MAX_BODY_BYTES
from merchants.delivery.lanes import deliveries_enqueue, slow_merchants
from merchants.models import (
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
    WebhookEvent,
)
from merchants.subscriptions import fits, subscribed_to

PROTOCOL_VERSION = "0.2"

# The task that fans an event out (merchants/tasks.py), sent by name: the tasks call this
# package's use cases, not the other way round.
FAN_OUT = "merchants.tasks.fan_out"

logger = logging.getLogger(__name__)


SURGE = "intent.surge"


def event_body(event_id: str, event_type: str, data: dict[str, Any], at: datetime) -> bytes:
    return orjson.dumps(
        {
            "id": event_id,
            "type": event_type,
            "created_at": at,
            "protocol_version": PROTOCOL_VERSION,
            "data": data,
        },
        option=orjson.OPT_UTC_Z,
    )


def surge_body(event_id: str, intent: dict[str, Any], at: datetime) -> bytes:
    """The Intent.Surge body, under 20 KB: an oversized intent is cut down, marked `truncated`,
    and the merchant reads it whole at `intent_url`."""
    base = settings.PUBLIC_BASE_URL
    data: dict[str, Any] = {
        "intent": intent,
        "intent_url": f"{base}/v1/intents/{intent['intent_id']}",
        "proposals_url": f"{base}/v1/proposals",
    }
    body = event_body(event_id, SURGE, data, at)
    if len(body) > MAX_BODY_BYTES:
        data["intent"] = {
            **{key: value for key, value in intent.items() if key != "metadata"},
            "raw_query": intent["raw_query"][:500],
            "constraints": [item[:100] for item in intent.get("constraints", [])[:5]],
        }
        data["truncated"] = True
        body = event_body(event_id, SURGE, data, at)
    return body


# An event still not fanned out this long after it was written lost its task: the sweeper
# fans it out.
FAN_OUT_GRACE = timedelta(seconds=10)


def surge_publish(*, intent: dict[str, Any]) -> WebhookEvent | None:
    """Write the Intent.Surge event of an intent with tags; it is fanned out after commit.

    Call it inside the transaction that gives the intent its tags: the event commits or rolls
    back with the intent. The request writes one row and sends one task, however many
    merchants the intent fits, and neither when no merchant subscribes to its tags
    (merchants/subscriptions.py).
    """
    event = surge_event(intent=intent)
    if event is not None:
        event.save(force_insert=True)
        surge_announce(event)
    return event


def surge_event(*, intent: dict[str, Any]) -> WebhookEvent | None:
    """The Intent.Surge event of an intent, not yet written; None when no merchant subscribes
    to its tags. Whoever writes it with the intent calls `surge_announce` after."""
    tags = sorted(set(intent["intent_tags"]))
    if not tags or not subscriptions.anyone_subscribes(set(tags)):
        return None
    now, event_id = timezone.now(), new_id(EVENT)
    return WebhookEvent(
        event_id=event_id,
        event_type=SURGE,
        intent_id=intent["intent_id"],
        tags=tags,
        region=intent["region"],
        body=surge_body(event_id, intent, now).decode(),
        created_at=now,
        traceparent=traceparent(),
    )


def surge_announce(event: WebhookEvent) -> None:
    """Fan a written event out once its transaction commits (at once outside of one); with the
    broker down, the sweeper fans it out after FAN_OUT_GRACE."""
    dispatch_after_commit(FAN_OUT, event.event_id)


def _one_per_endpoint(merchants: list[MerchantAgent]) -> list[MerchantAgent]:
    """The first merchant of each distinct endpoint URL: an event reaches a URL once, however
    many merchants name it."""
    seen: set[str] = set()
    kept = []
    for merchant in merchants:
        if merchant.agent_endpoint not in seen:
            seen.add(merchant.agent_endpoint)
            kept.append(merchant)
    return kept


@traced(
    "fan_out",
    start=lambda *, event_id: {"gateway.event_id": event_id},
    result=lambda deliveries: {"gateway.fan_out.deliveries": deliveries},
)
def event_fan_out(*, event_id: str) -> int:
    """Write one delivery per active, verified merchant the event fits, one per distinct
    endpoint URL, and send them; how many deliveries.

    Idempotent: the event is claimed with a conditional UPDATE, so it is fanned out once. The
    merchants that answer in time come first, then the first registered; at most
    WEBHOOK_FANOUT_MAX.
    """
    event = WebhookEvent.objects.filter(pk=event_id, fanned_out_at__isnull=True).first()
    if event is None:
        return 0
    link_to(event.traceparent)
    tags = set(event.tags)
    candidates = MerchantAgent.objects.filter(
        subscribed_to(tags),
        status=MerchantStatus.ACTIVE,
        deliveries_disabled_at__isnull=True,
        endpoint_verified_at__isnull=False,  # ownership proven (merchants/verification.py)
    ).only("id", "subscription_tags", "regions", "agent_endpoint")
    fitting = [m for m in candidates.order_by("id") if fits(m, tags, event.region)]
    slow = slow_merchants((m.pk for m in fitting), timezone.now())
    merchants = _one_per_endpoint(sorted(fitting, key=lambda m: m.pk in slow))  # slow ones last
    if len(merchants) > settings.WEBHOOK_FANOUT_MAX:
        logger.warning(
            "event %s fits %d merchants; delivering to the first %d (WEBHOOK_FANOUT_MAX)",
            event_id,
            len(merchants),
            settings.WEBHOOK_FANOUT_MAX,
        )
        merchants = merchants[: settings.WEBHOOK_FANOUT_MAX]
    now = timezone.now()
    with transaction.atomic():
        if not WebhookEvent.objects.filter(pk=event_id, fanned_out_at__isnull=True).update(
            fanned_out_at=now
        ):
            return 0
        if not merchants:  # announced to nobody: nothing will ever read it
            WebhookEvent.objects.filter(pk=event_id).delete()
            return 0
        WebhookDelivery.objects.bulk_create(
            (WebhookDelivery(merchant=m, event=event, next_attempt_at=now) for m in merchants),
            ignore_conflicts=True,
        )
        pending = list(
            event.deliveries.filter(status=DeliveryStatus.PENDING).values_list("pk", flat=True)
        )
        transaction.on_commit(partial(deliveries_enqueue, pending))
    return len(merchants)
