"""What waits in the database, read at each scrape of /metrics (merchants/apps.py readings):
deliveries pending per lane and how long the oldest has been due, verifications waiting and
parked, merchants by status. Each figure is one bounded query on an index (merchants/models.py):
the backlog is counted up to PENDING_COUNT_CAP, the oldest found by the due index's order."""

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db.models import Count, Min, Q
from django.utils import timezone

from kernel import metrics
from merchants.delivery.lanes import FAST_LANE, SLOW_LANE
from merchants.models import DeliveryStatus, MerchantAgent, MerchantStatus, WebhookDelivery

# Pending deliveries are counted up to this many per lane at a scrape: the count stays cheap
# whatever the backlog, which past it shows as this number.
PENDING_COUNT_CAP = 10_000


def _age(oldest: datetime | None, now: datetime) -> float:
    return max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0


def readings() -> Iterator[Any]:
    """The deliveries' backlog per lane (the lane their merchant's deliveries take now), then
    the merchants' figures."""
    now = timezone.now()
    pending = metrics.gauge(
        "gateway_webhook_deliveries_pending",
        f"Deliveries waiting for an attempt, retries scheduled later included (counted up to "
        f"{PENDING_COUNT_CAP}), by the lane their merchant's deliveries take now.",
        ("lane",),
    )
    oldest = metrics.gauge(
        "gateway_webhook_oldest_pending_age_seconds",
        "Seconds the longest-waiting due delivery has been due (0 when none is).",
        ("lane",),
    )
    waiting = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
    for lane, slow in ((FAST_LANE, False), (SLOW_LANE, True)):
        mine = waiting.filter(merchant__slow_since__isnull=not slow)
        pending.add_metric([lane], mine[:PENDING_COUNT_CAP].count())
        due = mine.filter(next_attempt_at__lte=now).order_by("next_attempt_at")
        oldest.add_metric([lane], _age(due.values_list("next_attempt_at", flat=True).first(), now))
    yield pending
    yield oldest
    yield from _merchant_readings(now)


def _merchant_readings(now: datetime) -> Iterator[Any]:
    merchants = MerchantAgent.objects.all()
    by_status = dict(merchants.values_list("status").annotate(count=Count("pk")).order_by())
    status = metrics.gauge("gateway_merchants", "Merchant agents by status.", ("status",))
    for name in MerchantStatus.values:
        status.add_metric([name], by_status.get(name, 0))
    yield status
    live = merchants.exclude(status=MerchantStatus.DEACTIVATED)
    unproven = Q(endpoint_verified_at__isnull=True)
    figures = live.aggregate(
        slow=Count("pk", filter=Q(slow_since__isnull=False)),
        verifying=Count("pk", filter=unproven & Q(verification_parked_at__isnull=True)),
        parked=Count("pk", filter=unproven & Q(verification_parked_at__isnull=False)),
        oldest_due=Min(
            "next_verification_at",
            filter=unproven & Q(verification_parked_at__isnull=True, next_verification_at__lte=now),
        ),
    )
    for name, help_text, value in (
        ("gateway_merchants_slow", "Merchants whose deliveries take the slow lane.", "slow"),
        (
            "gateway_endpoint_verifications_pending",
            "Merchants whose endpoint has not echoed its challenge yet, still being asked.",
            "verifying",
        ),
        (
            "gateway_endpoint_verifications_parked",
            "Merchants whose endpoint never echoed through the whole schedule: asked no more.",
            "parked",
        ),
    ):
        gauge = metrics.gauge(name, help_text)
        gauge.add_metric([], figures[value])
        yield gauge
    age = metrics.gauge(
        "gateway_endpoint_verification_oldest_pending_age_seconds",
        "Seconds the longest-waiting due verification has been due (0 when none is).",
    )
    age.add_metric([], _age(figures["oldest_due"], now))
    yield age
