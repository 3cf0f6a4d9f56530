"""One attempt of a delivery: claimed, sent through the SSRF-safe client, recorded, and
retried on the schedule."""

import math
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from kernel.scheduling import RetrySchedule, Scheduled
from kernel.tracing import Attributes, AttributeValue, link_to, traced
from merchants import metrics
from merchants.client import MOST_SIGNATURES, Answer, post_signed
from merchants.delivery.hosts import host_allows, next_minute
from merchants.delivery.lanes import (
    FAST_LANE,
    IN_FLIGHT_PAUSE,
    deliveries_enqueue,
    merchant_answered,
    next_in_line,
    slow_merchants,
)
from merchants.endpoints import endpoint_target_within
from merchants.models import (
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
    MerchantAgent,
    MerchantStatus,
    WebhookDelivery,
    WebhookEvent,
)
from merchants.subscriptions import fits, subscribed_to

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


# The same while the lanes' queues hold no message: nothing waits for a worker, so a delivery
# sent this long ago and still unclaimed lost its message; sent again, it is delivered within a
# minute of the broker's return (a worker reconnects within 30 s, a sweep runs every few).
REQUEUE_IDLE_AFTER = timedelta(seconds=20)


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


# A delivery's attempts on their schedule: a claim (status `sending`) holds for the lease, after
# which the sweeper takes the delivery back (kernel/scheduling.py).
DELIVERING = Scheduled(
    due="next_attempt_at",
    attempts="attempt_count",
    schedule=RetrySchedule(RETRY_SCHEDULE, jitter=0.1),
    lease=claim_lease,
)


def after_failure(attempt_count: int, now: datetime) -> dict[str, Any]:
    """A delivery's state after failed attempt number `attempt_count`: the next attempt on
    schedule, or `failed` after the last one."""
    changes = DELIVERING.after_failure(attempt_count, now)
    if DELIVERING.given_up(changes):
        return {"status": DeliveryStatus.FAILED, "completed_at": now}
    return {**changes, "status": DeliveryStatus.PENDING, "enqueued_at": None}


def merchant_failing(merchant_id: int, now: datetime) -> None:
    """A delivery failed for good: an active merchant becomes unhealthy."""
    MerchantAgent.objects.filter(pk=merchant_id, status=MerchantStatus.ACTIVE).update(
        status=MerchantStatus.UNHEALTHY, updated_at=now
    )


UNVERIFIED = "Not sent: the endpoint changed and has not proven its ownership yet."


def _undeliverable(merchant: MerchantAgent) -> str:
    if merchant.is_deactivated:
        return "Not sent: the merchant agent is deactivated."
    if merchant.endpoint_verified_at is None:
        return UNVERIFIED
    if merchant.deliveries_disabled_at is not None:
        return GONE
    return ""


def _secrets(merchant: MerchantAgent, event: WebhookEvent) -> list[str]:
    """What an event to the merchant's URL is signed with: its secret, then those of the other
    proven merchants naming the same URL that the event is for too (subscribed to its tags, in
    its region), earliest proven first. An event reaches a URL once, so it is signed for each of
    them; one merchant naming another's URL cannot take its events, and a merchant is never
    signed an event it did not subscribe to."""
    tags = set(event.tags)
    others = (
        MerchantAgent.objects.filter(
            subscribed_to(tags),
            agent_endpoint=merchant.agent_endpoint,
            endpoint_verified_at__isnull=False,
        )
        .exclude(pk=merchant.pk)
        .exclude(status=MerchantStatus.DEACTIVATED)
        .order_by("endpoint_verified_at", "pk")
        .only("webhook_secret", "subscription_tags", "regions")
    )
    fitting = (other for other in others if fits(other, tags, event.region))
    return [merchant.webhook_secret, *(other.webhook_secret for other in fitting)][:MOST_SIGNATURES]


def attempt_attributes(delivery: WebhookDelivery | None) -> Attributes:
    """What a delivery attempt's span says of it: whether it won the claim, the delivery's
    status after it (succeeded, pending a retry, failed) and what the merchant answered."""
    if delivery is None:
        return {"gateway.delivery.claimed": False}
    found: dict[str, AttributeValue | None] = {
        "gateway.delivery.claimed": True,
        "gateway.delivery.status": delivery.status,
        "gateway.delivery.attempt": delivery.attempt_count,
        "gateway.event_id": delivery.event_id,
        "http.response.status_code": delivery.last_status_code,
    }
    return {name: value for name, value in found.items() if value is not None}


@traced(
    "deliver",
    start=lambda *, delivery_id, lane=FAST_LANE: {
        "gateway.delivery_id": delivery_id,
        "gateway.delivery.lane": lane,
    },
    result=attempt_attributes,
)
def delivery_attempt(*, delivery_id: int, lane: str = FAST_LANE) -> WebhookDelivery | None:
    """Make a due delivery's next attempt; None when it is not due, another worker has it, its
    merchant or its destination has its fill under way, or (in the fast lane) its merchant
    turned slow and the delivery moved to the slow lane.

    Idempotent: the claim is a conditional UPDATE, so of two tasks for the same delivery only
    one sends.
    """
    due = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=timezone.now()
    )
    endpoint = due.values_list("merchant__agent_endpoint", flat=True).first()
    if endpoint is None:
        return None
    # Where the attempt goes, looked up once, outside the transaction: the bounds count this
    # destination and the request goes to it (merchants/endpoints.py).
    target = endpoint_target_within(endpoint, settings.WEBHOOK_TIMEOUT_S)
    destination = target.destination.key if target.destination else ""
    now = timezone.now()
    with transaction.atomic():
        merchant_id = due.values_list("merchant_id", flat=True).first()
        if merchant_id is None:
            return None
        # Claims for one merchant are decided one at a time (a row lock on PostgreSQL; SQLite
        # has one writer at a time anyway).
        list(MerchantAgent.objects.select_for_update().filter(pk=merchant_id).values("pk"))
        # Under way to this merchant, or to its destination whoever's merchant named it.
        nearby = Q(merchant_id=merchant_id)
        if destination:
            nearby |= Q(destination=destination)
        under_way = WebhookDelivery.objects.filter(nearby, status=DeliveryStatus.SENDING).count()
        if under_way >= settings.WEBHOOK_MERCHANT_IN_FLIGHT:
            # The destination has its fill: this one waits a moment, then the sweeper sends it.
            DELIVERING.postpone(due, now + IN_FLIGHT_PAUSE, enqueued_at=None)
            return None
        if lane == FAST_LANE and slow_merchants([merchant_id], now):
            due.update(enqueued_at=now)  # sent again after commit, to its slow lane
            transaction.on_commit(partial(deliveries_enqueue, [delivery_id]))
            return None
        if not host_allows(target):
            # The destination had its fill this minute: the attempt waits for the next one.
            later = now + timedelta(seconds=next_minute())
            DELIVERING.postpone(due, later, enqueued_at=None)
            return None
        claimed = DELIVERING.claim(
            due, now, status=DeliveryStatus.SENDING, claimed_at=now, destination=destination
        )
        if not claimed:
            return None
        delivery = WebhookDelivery.objects.select_related("merchant", "event").get(pk=delivery_id)
        link_to(delivery.event.traceparent)
        reason = _undeliverable(delivery.merchant)
        if reason:
            delivery.status, delivery.last_error, delivery.completed_at = (
                DeliveryStatus.FAILED,
                reason,
                now,
            )
            delivery.save(update_fields=["status", "last_error", "completed_at"])
            metrics.DELIVERIES.labels(lane, "not_sent").inc()
            return delivery
        delivery.attempt_count += 1
        delivery.save(update_fields=["attempt_count"])
        attempt = DeliveryAttempt.objects.create(
            delivery=delivery, number=delivery.attempt_count, started_at=now
        )
        signing = _secrets(delivery.merchant, delivery.event)
    if not connection.in_atomic_block:
        connection.close()  # no connection held while the merchant takes its time
    merchant = delivery.merchant
    try:
        answer = post_signed(
            url=merchant.agent_endpoint,
            secret=signing,
            msg_id=delivery.event_id,
            body=delivery.event.body.encode(),
            timeout=settings.WEBHOOK_TIMEOUT_S,
            target=target,
        )
    except SoftTimeLimitExceeded:
        elapsed = round((timezone.now() - now).total_seconds() * 1000)
        answer = Answer(None, elapsed, "The attempt ran out of time.", timed_out=True)
    _record(delivery, attempt, answer)
    metrics.delivery_attempted(lane, delivery, answer)
    next_in_line(delivery.merchant_id)
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
            merchant_failing(delivery.merchant_id, now)
