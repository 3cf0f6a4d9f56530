"""Intent.Surge delivery: publish an event, fan it out to the merchants it fits, attempt,
retry, give up.

Every event, delivery and attempt is a row. Publishing writes the event (its exact body, once)
in the intent's own transaction and, after commit, sends one task that fans it out: one delivery
per merchant the intent fits, each sent as a task that only names it. A worker claims a due
delivery with a conditional UPDATE, so a task that arrives twice sends once. Retries are
scheduled in the database (`next_attempt_at`) and sent by the sweeper, which also fans out
events whose task was lost and takes back deliveries whose worker died mid-attempt: a lost
broker message or a killed worker delays a delivery, never loses it. The merchant may see an
event twice (at-least-once), always under the same `webhook-id`.

No merchant can hold up another's deliveries (DESIGN.md section 7): a merchant has at most
WEBHOOK_MERCHANT_IN_FLIGHT deliveries under way (the next ones wait a moment); a merchant whose
last attempt or probe got no answer in time is `slow`, and its deliveries go to the slow lane,
a queue with its own workers, until it answers again; probes have their own queue too.
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
from merchants import subscriptions
from merchants.client import Answer, post_signed
from merchants.models import (
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
    WebhookEvent,
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


# --- Publishing and fanning out ---------------------------------------------------------------

FAST_LANE = "webhooks"
SLOW_LANE = "webhooks-slow"
# An event still not fanned out this long after it was written lost its task: the sweeper
# fans it out.
FAN_OUT_GRACE = timedelta(seconds=10)
# How long a delivery waits when its merchant already has its fill of deliveries under way.
IN_FLIGHT_PAUSE = timedelta(seconds=2)
# A merchant with a delivery under way for longer than this is slow at once, before its attempt
# runs out of time: its next deliveries take the slow lane, so another merchant waits about a
# second at most (DESIGN.md section 7).
STUCK_AFTER = timedelta(seconds=1)


def slow_merchants(merchant_ids: Iterable[int], now: datetime) -> set[int]:
    """Of these merchants, the slow ones: no answer in time lately, or a delivery under way
    for longer than STUCK_AFTER."""
    ids = set(merchant_ids)
    marked = MerchantAgent.objects.filter(pk__in=ids, slow_since__isnull=False)
    stuck = WebhookDelivery.objects.filter(
        merchant_id__in=ids, status=DeliveryStatus.SENDING, claimed_at__lt=now - STUCK_AFTER
    )
    return set(marked.values_list("pk", flat=True)) | set(
        stuck.values_list("merchant_id", flat=True)
    )


def surge_publish(*, intent: dict[str, Any]) -> WebhookEvent | None:
    """Write the Intent.Surge event of an intent with tags; it is fanned out after commit.

    Call it inside the transaction that gives the intent its tags: the event commits or rolls
    back with the intent. The request writes one row and sends one task, however many
    merchants the intent fits, and neither when no merchant subscribes to its tags
    (merchants/subscriptions.py).
    """
    tags = sorted(set(intent["intent_tags"]))
    if not tags or not subscriptions.anyone_subscribes(set(tags)):
        return None
    now, event_id = timezone.now(), new_id(EVENT)
    event = WebhookEvent.objects.create(
        event_id=event_id,
        event_type=SURGE,
        intent_id=intent["intent_id"],
        tags=tags,
        region=intent["region"],
        body=surge_body(event_id, intent, now).decode(),
    )
    transaction.on_commit(partial(_fan_out_later, event_id))
    return event


def _fan_out_later(event_id: str) -> None:
    from merchants.tasks import fan_out  # the tasks call this module's use cases

    try:
        fan_out.apply_async((event_id,), retry=False)
    except (OperationalError, OSError) as exc:
        logger.warning("broker unavailable, the sweeper will fan the event out: %s", exc)


def event_fan_out(*, event_id: str) -> int:
    """Write one delivery per active merchant the event fits and send them; how many merchants.

    Idempotent: the event is claimed with a conditional UPDATE, so it is fanned out once. The
    merchants that answer in time come first, then the first registered; at most
    WEBHOOK_FANOUT_MAX.
    """
    event = WebhookEvent.objects.filter(pk=event_id, fanned_out_at__isnull=True).first()
    if event is None:
        return 0
    tags = set(event.tags)
    candidates = MerchantAgent.objects.filter(
        subscribed_to(tags), status=MerchantStatus.ACTIVE, deliveries_disabled_at__isnull=True
    ).only("id", "subscription_tags", "regions")
    fitting = [m for m in candidates.order_by("id") if fits(m, tags, event.region)]
    slow = slow_merchants((m.pk for m in fitting), timezone.now())
    merchants = sorted(fitting, key=lambda m: m.pk in slow)  # the slow ones last
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


def deliveries_enqueue(ids: Iterable[int]) -> int:
    """Send one task per delivery, on its merchant's lane. With the broker down the rest wait
    for the sweeper."""
    from merchants.tasks import deliver  # the tasks call this module's use cases

    ids, now = list(ids), timezone.now()
    merchant_of = dict(WebhookDelivery.objects.filter(pk__in=ids).values_list("pk", "merchant_id"))
    slow = slow_merchants(merchant_of.values(), now)
    # Stamped before sending: a worker may claim, fail and reschedule a delivery (clearing the
    # stamp) before this loop ends, and its retry must stay visible to the sweeper.
    WebhookDelivery.objects.filter(pk__in=ids, status=DeliveryStatus.PENDING).update(
        enqueued_at=now
    )
    for sent, pk in enumerate(ids):
        try:
            lane = SLOW_LANE if merchant_of.get(pk) in slow else FAST_LANE
            deliver.apply_async((pk, lane), queue=lane, retry=False)
        except (OperationalError, OSError) as exc:
            logger.warning("broker unavailable, the sweeper will send the deliveries: %s", exc)
            WebhookDelivery.objects.filter(pk__in=ids[sent:], enqueued_at=now).update(
                enqueued_at=None
            )
            return sent
    return len(ids)


def _next_in_line(merchant_id: int) -> None:
    """Send the merchant's next due delivery that no task is on its way for: one that waited
    for this one to finish (WEBHOOK_MERCHANT_IN_FLIGHT) goes now, not at the next sweep."""
    waiting = (
        WebhookDelivery.objects.filter(
            merchant_id=merchant_id,
            status=DeliveryStatus.PENDING,
            enqueued_at__isnull=True,
            next_attempt_at__lte=timezone.now() + IN_FLIGHT_PAUSE,
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)
        .first()
    )
    if waiting is not None:
        WebhookDelivery.objects.filter(pk=waiting).update(next_attempt_at=timezone.now())
        deliveries_enqueue([waiting])


def _to_slow_lane(delivery_id: int) -> None:
    from merchants.tasks import deliver

    try:
        deliver.apply_async((delivery_id, SLOW_LANE), queue=SLOW_LANE, retry=False)
    except (OperationalError, OSError) as exc:
        logger.warning("broker unavailable, the sweeper will send the delivery: %s", exc)
        WebhookDelivery.objects.filter(pk=delivery_id).update(enqueued_at=None)


def merchant_answered(merchant_id: int, answer: Answer, now: datetime) -> None:
    """What an attempt or a probe says of the merchant's speed: an answer in time brings it
    back to the fast lane, none moves it to the slow lane."""
    merchants = MerchantAgent.objects.filter(pk=merchant_id)
    if answer.status_code is not None:
        merchants.filter(slow_since__isnull=False).update(slow_since=None)
    elif answer.timed_out:
        merchants.filter(slow_since__isnull=True).update(slow_since=now)


# --- Attempts ----------------------------------------------------------------------------------


def _undeliverable(merchant: MerchantAgent) -> str:
    if merchant.is_deactivated:
        return "Not sent: the merchant agent is deactivated."
    if merchant.deliveries_disabled_at is not None:
        return GONE
    return ""


def delivery_attempt(*, delivery_id: int, lane: str = FAST_LANE) -> WebhookDelivery | None:
    """Make a due delivery's next attempt; None when it is not due, another worker has it, its
    merchant has its fill under way, or (in the fast lane) its merchant turned slow and the
    delivery moved to the slow lane.

    Idempotent: the claim is a conditional UPDATE, so of two tasks for the same delivery only
    one sends.
    """
    now = timezone.now()
    due = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
    )
    with transaction.atomic():
        merchant_id = due.values_list("merchant_id", flat=True).first()
        if merchant_id is None:
            return None
        # Claims for one merchant are decided one at a time (a row lock on PostgreSQL; SQLite
        # has one writer at a time anyway).
        list(MerchantAgent.objects.select_for_update().filter(pk=merchant_id).values("pk"))
        under_way = WebhookDelivery.objects.filter(
            merchant_id=merchant_id, status=DeliveryStatus.SENDING
        ).count()
        if under_way >= settings.WEBHOOK_MERCHANT_IN_FLIGHT:
            # The merchant has its fill: this one waits a moment, then the sweeper sends it.
            due.update(next_attempt_at=now + IN_FLIGHT_PAUSE, enqueued_at=None)
            return None
        if lane == FAST_LANE and slow_merchants([merchant_id], now):
            due.update(enqueued_at=now)
            transaction.on_commit(partial(_to_slow_lane, delivery_id))
            return None
        if not due.update(status=DeliveryStatus.SENDING, claimed_at=now):
            return None
        delivery = WebhookDelivery.objects.select_related("merchant", "event").get(pk=delivery_id)
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
    if not connection.in_atomic_block:
        connection.close()  # no connection held while the merchant takes its time
    merchant = delivery.merchant
    try:
        answer = post_signed(
            url=merchant.agent_endpoint,
            secret=merchant.webhook_secret,
            msg_id=delivery.event_id,
            body=delivery.event.body.encode(),
            timeout=settings.WEBHOOK_TIMEOUT_S,
        )
    except SoftTimeLimitExceeded:
        elapsed = round((timezone.now() - now).total_seconds() * 1000)
        answer = Answer(None, elapsed, "The attempt ran out of time.", timed_out=True)
    _record(delivery, attempt, answer)
    _next_in_line(delivery.merchant_id)
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
        merchant_answered(delivery.merchant_id, answer, now)
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
    lost = list(
        WebhookEvent.objects.filter(
            fanned_out_at__isnull=True, created_at__lt=now - FAN_OUT_GRACE
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for event_id in lost:
        event_fan_out(event_id=event_id)
    due = list(
        WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
        .filter(Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - REQUEUE_AFTER))
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    sent = deliveries_enqueue(due) if due else 0
    if stale or sent or lost:
        logger.info(
            "sweep: %d events fanned out, %d deliveries taken back, %d sent",
            len(lost),
            len(stale),
            sent,
        )
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
    """Delete deliveries (and their attempts) finished before the given time, never a pending
    or sending one, then the fanned-out events left without deliveries. Returns how many
    deliveries went."""
    deleted = delete_in_batches(
        WebhookDelivery.objects.filter(
            status__in=[DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED],
            completed_at__lt=finished_before,
        )
    )
    delete_in_batches(
        WebhookEvent.objects.filter(
            fanned_out_at__isnull=False, created_at__lt=finished_before, deliveries__isnull=True
        )
    )
    return deleted
