"""The sweeper (deliveries due again, or stuck), retries asked by staff or by a merchant, and
pruning of finished deliveries."""

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import partial

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from kernel.dispatch import waiting
from kernel.pruning import delete_in_batches
from merchants.delivery.attempts import (
    DELIVERING,
    REQUEUE_AFTER,
    REQUEUE_IDLE_AFTER,
    WORKER_STOPPED,
    after_failure,
    merchant_failing,
)
from merchants.delivery.events import FAN_OUT_GRACE, event_fan_out
from merchants.delivery.lanes import FAST_LANE, SLOW_LANE, deliveries_enqueue
from merchants.models import (
    AttemptOutcome,
    DeliveryAttempt,
    DeliveryStatus,
    WebhookDelivery,
    WebhookEvent,
)

SWEEP_BATCH = 500

logger = logging.getLogger(__name__)


def deliveries_sweep() -> tuple[int, int]:
    """Take back deliveries whose worker died; send the due ones no task is on its way for.

    Returns (taken back, sent). Run every few seconds by beat; safe to run concurrently.
    """
    now = timezone.now()
    with transaction.atomic():
        sending = WebhookDelivery.objects.filter(status=DeliveryStatus.SENDING)
        stale = list(  # claims whose lease lapsed
            DELIVERING.due_in(sending, now).values_list("pk", "attempt_count", "merchant_id")[
                :SWEEP_BATCH
            ]
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
                merchant_failing(merchant_id, now)
    lost = list(
        WebhookEvent.objects.filter(
            fanned_out_at__isnull=True, created_at__lt=now - FAN_OUT_GRACE
        ).values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    for event_id in lost:
        event_fan_out(event_id=event_id)
    unsent = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING).filter(
        Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=now - requeue_after())
    )
    due = DELIVERING.sweep(unsent, now, batch=SWEEP_BATCH)
    sent = deliveries_enqueue(due) if due else 0
    if stale or sent or lost:  # one line when the sweep did something, none otherwise
        logger.info(
            "delivery sweep: %d deliveries sent, %d taken back from a stopped worker, "
            "%d events fanned out",
            sent,
            len(stale),
            len(lost),
        )
    return len(stale), sent


def requeue_after() -> timedelta:
    """How long ago a still unclaimed delivery's task was sent when it counts as lost: sooner
    while no message waits in the lanes (a broker that restarted empty), later while some do (a
    backlog, not to be flooded with duplicates; a duplicate is harmless, its claim fails)."""
    idle = waiting(FAST_LANE, SLOW_LANE) == 0
    return REQUEUE_IDLE_AFTER if idle else REQUEUE_AFTER


def deliveries_retry(*, delivery_ids: Iterable[int], only_failed: bool = False) -> int:
    """Make waiting or failed deliveries due now (only failed ones with `only_failed`): a failed
    one gets one more attempt. Returns how many changed; the condition is in the UPDATE, so of
    two retries of one failed delivery only one counts it."""
    ids = list(delivery_ids)
    statuses = (
        [DeliveryStatus.FAILED] if only_failed else [DeliveryStatus.PENDING, DeliveryStatus.FAILED]
    )
    with transaction.atomic():
        count = WebhookDelivery.objects.filter(pk__in=ids, status__in=statuses).update(
            status=DeliveryStatus.PENDING,
            next_attempt_at=timezone.now(),
            enqueued_at=None,
            completed_at=None,
        )
        transaction.on_commit(partial(deliveries_enqueue, ids))
    return count


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
