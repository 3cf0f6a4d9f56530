"""Celery tasks of the merchant side: fan-outs, webhook deliveries, the sweeper, endpoint
verifications, health probes.

Tasks take ids and call the use cases in delivery.py, verification.py and probes.py.
Merchant-facing work has queues of its own (settings.CELERY_TASK_ROUTES), away from the
gateway's other work: `fan_out` and `deliver` the `webhooks` lane, `deliver` for slow merchants
the `webhooks-slow` lane (delivery.deliveries_enqueue), probes and endpoint verifications the
`probes` queue.
"""

import logging
from datetime import timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from kernel.idempotency_keys import idempotency_keys_prune
from merchants import delivery, probes, verification
from merchants.models import MerchantAgent, ProbeTrigger

SOFT_LIMIT, HARD_LIMIT = delivery.attempt_time_limits()
# A task that makes one request to a merchant: a delivery's attempt, a verification's, a probe.
ONE_ATTEMPT: dict[str, Any] = {
    "acks_late": True,
    "soft_time_limit": SOFT_LIMIT,
    "time_limit": HARD_LIMIT,
    "ignore_result": True,
}

# Beat's tasks run every few seconds: each logs a line only when it did something (Celery's own
# lines for their runs are left out, gateway/logging_settings.py).
logger = logging.getLogger(__name__)


# The use cases send these three by name (kernel/dispatch.py); the names are theirs.
@shared_task(
    name=delivery.FAN_OUT, acks_late=True, soft_time_limit=60, time_limit=90, ignore_result=True
)
def fan_out(event_id: str) -> None:
    """Write and send an event's deliveries. Idempotent: the event is claimed once."""
    delivery.event_fan_out(event_id=event_id)


@shared_task(name=delivery.DELIVER, **ONE_ATTEMPT)
def deliver(delivery_id: int, lane: str = delivery.FAST_LANE) -> None:
    """Make one attempt of a delivery. Idempotent: it sends only if it wins the claim."""
    delivery.delivery_attempt(delivery_id=delivery_id, lane=lane)


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90, ignore_result=True)
def sweep_deliveries() -> None:
    """Re-send due or abandoned deliveries. Idempotent: claims decide who sends."""
    delivery.deliveries_sweep()


@shared_task(name=verification.VERIFY_ENDPOINT, **ONE_ATTEMPT)
def verify_endpoint(merchant_pk: int) -> None:
    """One attempt of a merchant's endpoint verification, if due. Idempotent: claimed once."""
    verification.endpoint_verify(merchant_pk=merchant_pk)


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90, ignore_result=True)
def sweep_verifications() -> None:
    """Send the verification attempts that are due. Idempotent: claims decide who sends."""
    due = verification.verifications_due()
    for pk in due:
        verify_endpoint.apply_async((pk,), expires=settings.WEBHOOK_SWEEP_INTERVAL_S * 4)
    if due:
        logger.info("verification sweep: %d endpoint verifications sent", len(due))


@shared_task(**ONE_ATTEMPT)
def probe(merchant_pk: int, trigger: str = ProbeTrigger.SCHEDULE) -> None:
    """Probe one merchant. Idempotent: a probe only records what the merchant answers now."""
    merchant = MerchantAgent.objects.filter(pk=merchant_pk).first()
    if merchant is not None and not merchant.is_deactivated:
        probes.merchant_probe(merchant=merchant, trigger=ProbeTrigger(trigger))


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90, ignore_result=True)
def probe_merchants() -> None:
    """Queue a probe of every merchant not deactivated. Idempotent: probes only observe."""
    # A probe still waiting when the next round is queued is dropped, so a backlog never grows.
    due = probes.probes_due()
    for pk in due:
        probe.apply_async((pk,), expires=settings.MERCHANT_PROBE_INTERVAL_S)
    if due:
        logger.info("probe round: %d merchants to probe", len(due))


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660, ignore_result=True)
def prune_records() -> None:
    """Delete finished deliveries and probes past their retention, and expired idempotency
    keys. Idempotent: it only deletes."""
    now = timezone.now()
    deliveries = delivery.deliveries_prune(
        finished_before=now - timedelta(days=settings.WEBHOOK_RETENTION_DAYS)
    )
    checks = probes.probes_prune(
        checked_before=now - timedelta(days=settings.HEALTH_PROBE_RETENTION_DAYS)
    )
    keys = idempotency_keys_prune(now=now)
    if deliveries or checks or keys:
        logger.info(
            "pruned %d deliveries, %d health probes and %d expired idempotency keys",
            deliveries,
            checks,
            keys,
        )
