"""Intent.Surge delivery: publish to the merchants an intent fits, attempt, retry, give up.

Every delivery and every attempt is a row. Publishing writes the deliveries in the intent's own
transaction and sends their tasks after commit; a task only names a delivery. A worker claims a
due delivery with a conditional UPDATE, so a task that arrives twice sends once. Retries are
scheduled in the database (`next_attempt_at`) and sent by the sweeper, which also takes back
deliveries whose worker died mid-attempt: a lost broker message or a killed worker delays a
delivery, never loses it. The merchant may see an event twice (at-least-once), always under the
same `webhook-id`.
"""

import logging
import math
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone
from kombu.exceptions import OperationalError

from gateway.api import EVENT, new_id
from merchants.client import Answer, post_signed
from merchants.models import (
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
)

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = "0.2"
SURGE = "intent.surge"
# Waits after each failed attempt: the Standard Webhooks (Svix) schedule, jittered by 10%.
RETRY_SCHEDULE = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
MAX_BODY_BYTES = 20 * 1024
# A due delivery whose task was sent this long ago and never claimed lost its message (a broker
# that restarted empty). Long enough that a backlogged queue is not flooded with duplicates.
REQUEUE_AFTER = timedelta(minutes=5)
SWEEP_BATCH = 500
WORKER_STOPPED = "The worker stopped before the merchant answered."
GONE = "Not sent: the endpoint answered 410 Gone; deliveries to it are disabled."


def attempt_time_limits() -> tuple[int, int]:
    """(soft, hard) seconds for one delivery task: an attempt takes at most about 3 timeouts
    (connect, answer, the bounded read of the body)."""
    soft = math.ceil(3 * settings.WEBHOOK_TIMEOUT_S) + 2
    return soft, soft + 3


def claim_lease() -> timedelta:
    """After this long a claimed delivery's worker is surely gone: its hard limit has passed,
    with a margin for the clocks of different hosts."""
    return timedelta(seconds=attempt_time_limits()[1] + 5)


def retry_delay(attempt_count: int) -> timedelta:
    """The wait after failed attempt number `attempt_count` (1-based), with jitter."""
    return RETRY_SCHEDULE[attempt_count - 1] * random.uniform(0.9, 1.1)  # noqa: S311 - jitter


def after_failure(attempt_count: int, now: datetime) -> dict[str, Any]:
    """A delivery's state after failed attempt number `attempt_count`: the next attempt on
    schedule, or `failed` after the last one."""
    if attempt_count >= MAX_ATTEMPTS:
        return {"status": DeliveryStatus.FAILED, "completed_at": now}
    return {
        "status": DeliveryStatus.PENDING,
        "next_attempt_at": now + retry_delay(attempt_count),
        "enqueued_at": None,
    }


def _merchant_failing(merchant_id: int, now: datetime) -> None:
    """A delivery failed for good: an active merchant becomes unhealthy."""
    MerchantAgent.objects.filter(pk=merchant_id, status=MerchantStatus.ACTIVE).update(
        status=MerchantStatus.UNHEALTHY, updated_at=now
    )


def subscribed_to(tags: Iterable[str]) -> RawSQL:
    """A filter on merchants: subscribed to any of `tags` or to "*", decided by the database
    (a JSON array of strings on both vendors), so a surge reads only the merchants it fits
    rather than every active one."""
    # Constant SQL; the tags are bound parameters.
    wanted = sorted({*tags, "*"})
    if connection.vendor == "postgresql":
        sql = "merchants_merchantagent.subscription_tags ?| %s::text[]"
        return RawSQL(sql, [wanted], output_field=BooleanField())  # noqa: S611
    marks = ", ".join(["%s"] * len(wanted))
    sql = (
        "EXISTS (SELECT 1 FROM json_each(merchants_merchantagent.subscription_tags) "  # noqa: S608
        f"WHERE json_each.value IN ({marks}))"
    )
    return RawSQL(sql, wanted, output_field=BooleanField())  # noqa: S611


def fits(merchant: MerchantAgent, tags: set[str], region: str | None) -> bool:
    """Whether an intent with these (lower-case) tags and region is for this merchant."""
    subscriptions = set(merchant.subscription_tags)
    if "*" not in subscriptions and not subscriptions & tags:
        return False
    return not merchant.regions or region is None or region in merchant.regions


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


# --- Publishing --------------------------------------------------------------------------------


def surge_publish(*, intent: dict[str, Any]) -> int:
    """Queue Intent.Surge for every active merchant the intent fits; returns how many.

    Call it inside the transaction that gives the intent its tags: the deliveries commit or roll
    back with the intent, and their tasks are sent only once both are committed.
    """
    tags = set(intent["intent_tags"])
    if not tags:
        return 0
    candidates = MerchantAgent.objects.filter(
        subscribed_to(tags), status=MerchantStatus.ACTIVE, deliveries_disabled_at__isnull=True
    ).only("id", "subscription_tags", "regions")
    merchants = [m for m in candidates.order_by("id") if fits(m, tags, intent["region"])]
    if len(merchants) > settings.WEBHOOK_FANOUT_MAX:
        logger.warning(
            "intent %s fits %d merchants; delivering to the first %d (WEBHOOK_FANOUT_MAX)",
            intent["intent_id"],
            len(merchants),
            settings.WEBHOOK_FANOUT_MAX,
        )
        merchants = merchants[: settings.WEBHOOK_FANOUT_MAX]
    if not merchants:
        return 0
    now, event_id = timezone.now(), new_id(EVENT)
    body = surge_body(event_id, intent, now).decode()
    with transaction.atomic():
        deliveries = WebhookDelivery.objects.bulk_create(
            WebhookDelivery(
                merchant=merchant,
                event_id=event_id,
                event_type=SURGE,
                intent_id=intent["intent_id"],
                body=body,
                next_attempt_at=now,
            )
            for merchant in merchants
        )
        transaction.on_commit(partial(deliveries_enqueue, [d.pk for d in deliveries]))
    return len(deliveries)


def deliveries_enqueue(ids: Iterable[int]) -> int:
    """Send one task per delivery. With the broker down the rest wait for the sweeper."""
    from merchants.tasks import deliver  # the tasks call this module's use cases

    ids, now = list(ids), timezone.now()
    # Stamped before sending: a worker may claim, fail and reschedule a delivery (clearing the
    # stamp) before this loop ends, and its retry must stay visible to the sweeper.
    WebhookDelivery.objects.filter(pk__in=ids, status=DeliveryStatus.PENDING).update(
        enqueued_at=now
    )
    for sent, pk in enumerate(ids):
        try:
            deliver.apply_async((pk,), retry=False)
        except (OperationalError, OSError) as exc:
            logger.warning("broker unavailable, the sweeper will send the deliveries: %s", exc)
            WebhookDelivery.objects.filter(pk__in=ids[sent:], enqueued_at=now).update(
                enqueued_at=None
            )
            return sent
    return len(ids)


# --- Attempts ----------------------------------------------------------------------------------


def _undeliverable(merchant: MerchantAgent) -> str:
    if merchant.is_deactivated:
        return "Not sent: the merchant agent is deactivated."
    if merchant.deliveries_disabled_at is not None:
        return GONE
    return ""


def delivery_attempt(*, delivery_id: int) -> WebhookDelivery | None:
    """Make a due delivery's next attempt; None when it is not due or another worker has it.

    Idempotent: the claim is a conditional UPDATE, so of two tasks for the same delivery only
    one sends.
    """
    now = timezone.now()
    with transaction.atomic():
        claimed = WebhookDelivery.objects.filter(
            pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        ).update(status=DeliveryStatus.SENDING, claimed_at=now)
        if not claimed:
            return None
        delivery = WebhookDelivery.objects.select_related("merchant").get(pk=delivery_id)
        reason = _undeliverable(delivery.merchant)
        if reason:
            delivery.status, delivery.last_error, delivery.completed_at = (
                DeliveryStatus.FAILED,
                reason,
                now,
            )
            delivery.save(update_fields=["status", "last_error", "completed_at"])
            return delivery
        delivery.attempt_count += 1
        delivery.save(update_fields=["attempt_count"])
        attempt = DeliveryAttempt.objects.create(
            delivery=delivery, number=delivery.attempt_count, started_at=now
        )
    merchant = delivery.merchant
    try:
        answer = post_signed(
            url=merchant.agent_endpoint,
            secret=merchant.webhook_secret,
            msg_id=delivery.event_id,
            body=delivery.body.encode(),
            timeout=settings.WEBHOOK_TIMEOUT_S,
        )
    except SoftTimeLimitExceeded:
        elapsed = round((timezone.now() - now).total_seconds() * 1000)
        answer = Answer(None, elapsed, "The attempt ran out of time.")
    _record(delivery, attempt, answer)
    return delivery


def _record(delivery: WebhookDelivery, attempt: DeliveryAttempt, answer: Answer) -> None:
    now = timezone.now()
    attempt.outcome = AttemptOutcome.SUCCEEDED if answer.ok else AttemptOutcome.FAILED
    attempt.status_code, attempt.latency_ms = answer.status_code, answer.latency_ms
    attempt.error, attempt.response_excerpt = answer.error[:300], answer.excerpt
    changes: dict[str, Any] = {
        "last_status_code": answer.status_code,
        "last_error": answer.error[:300],
        "claimed_at": None,
    }
    gone = answer.status_code == 410
    if answer.ok:
        changes.update(status=DeliveryStatus.SUCCEEDED, completed_at=now)
    elif gone:
        changes.update(status=DeliveryStatus.FAILED, completed_at=now)
    else:
        changes.update(after_failure(delivery.attempt_count, now))
    merchants = MerchantAgent.objects.filter(pk=delivery.merchant_id)
    with transaction.atomic():
        attempt.save()
        # Only the holder of the claim settles the delivery: if the sweeper took it back (this
        # worker overran its lease), the attempt is on record and the new claim decides.
        mine = WebhookDelivery.objects.filter(
            pk=delivery.pk, status=DeliveryStatus.SENDING, attempt_count=delivery.attempt_count
        ).update(**changes)
        for name, value in changes.items():
            setattr(delivery, name, value)
        if not mine:
            return
        if answer.ok:
            merchants.filter(status=MerchantStatus.UNHEALTHY).update(
                status=MerchantStatus.ACTIVE, updated_at=now
            )
        elif gone:
            merchants.update(deliveries_disabled_at=now, updated_at=now)
            WebhookDelivery.objects.filter(
                merchant_id=delivery.merchant_id, status=DeliveryStatus.PENDING
            ).update(status=DeliveryStatus.FAILED, completed_at=now, last_error=GONE)
        elif changes["status"] == DeliveryStatus.FAILED:
            _merchant_failing(delivery.merchant_id, now)


# --- The sweeper and staff retries -------------------------------------------------------------


def deliveries_sweep() -> tuple[int, int]:
    """Take back deliveries whose worker died; send the due ones no task is on its way for.

    Returns (taken back, sent). Run every few seconds by beat; safe to run concurrently.
    """
    now = timezone.now()
    with transaction.atomic():
        stale = list(
            WebhookDelivery.objects.filter(
                status=DeliveryStatus.SENDING, claimed_at__lt=now - claim_lease()
            ).values_list("pk", "attempt_count", "merchant_id")[:SWEEP_BATCH]
        )
        DeliveryAttempt.objects.filter(
            delivery_id__in=[pk for pk, _, _ in stale], outcome=AttemptOutcome.IN_FLIGHT
        ).update(outcome=AttemptOutcome.ABANDONED, error=WORKER_STOPPED)
        for pk, attempt_count, merchant_id in stale:
            # The abandoned attempt counts: the next one waits its turn on the schedule.
            changes = after_failure(attempt_count, now)
            WebhookDelivery.objects.filter(
                pk=pk, status=DeliveryStatus.SENDING, attempt_count=attempt_count
            ).update(claimed_at=None, last_error=WORKER_STOPPED, **changes)
            if changes["status"] == DeliveryStatus.FAILED:
                _merchant_failing(merchant_id, now)
    due = list(
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - REQUEUE_AFTER))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    sent = deliveries_enqueue(due) if due else 0
    if stale or sent:
        logger.info("sweep: %d deliveries taken back, %d sent", len(stale), sent)
    return len(stale), sent


def deliveries_retry(*, delivery_ids: Iterable[int]) -> int:
    """Make waiting or failed deliveries due now: a failed one gets one more attempt."""
    ids = list(delivery_ids)
    with transaction.atomic():
        count = WebhookDelivery.objects.filter(
            pk__in=ids, status__in=[DeliveryStatus.PENDING, DeliveryStatus.FAILED]
        ).update(
            status=DeliveryStatus.PENDING,
            next_attempt_at=timezone.now(),
            enqueued_at=None,
            completed_at=None,
        )
        transaction.on_commit(partial(deliveries_enqueue, ids))
    return count


PRUNE_BATCH = 2000


def delete_in_batches(rows: QuerySet[Any]) -> int:
    """Delete `rows` PRUNE_BATCH at a time, so no long lock is held; returns how many went."""
    deleted = 0
    while batch := list(rows.values_list("pk", flat=True)[:PRUNE_BATCH]):
        rows.model.objects.filter(pk__in=batch).delete()
        deleted += len(batch)
    return deleted


def deliveries_prune(*, finished_before: datetime) -> int:
    """Delete deliveries (and their attempts) finished before the given time; never a pending
    or sending one. Returns how many went."""
    return delete_in_batches(
        WebhookDelivery.objects.filter(
            status__in=[DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED],
            completed_at__lt=finished_before,
        )
    )
