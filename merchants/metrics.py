"""Metrics of merchant-facing work: deliveries of Intent.Surge by lane, endpoint verifications and
health probes (kernel/metrics.py; the table of docs/alerts.md#metrics). What waits in the
database is read at scrape time (merchants/backlog.py)."""

from django.utils import timezone

from kernel import metrics
from merchants.client import Answer
from merchants.models import DeliveryStatus, WebhookDelivery

# Verifications go through the probes' queue and workers, never a delivery lane.
PROBES_LANE = "probes"

ATTEMPTS = metrics.counter(
    "gateway_webhook_attempts",
    "Requests to merchants' endpoints by kind (delivery, verification), lane (webhooks, "
    "webhooks-slow, probes) and outcome (succeeded, no_echo, timeout, connection_error, "
    "http_4xx, http_5xx, ...).",
    ("kind", "lane", "outcome"),
)
ATTEMPT_DURATION = metrics.histogram(
    "gateway_webhook_attempt_duration_seconds",
    "Seconds one request to a merchant's endpoint took until its answer or the timeout.",
    metrics.REMOTE_BUCKETS,
    ("kind", "lane"),
)
DELIVERY_WAIT = metrics.histogram(
    "gateway_webhook_delivery_wait_seconds",
    "Seconds from the event (the intent) to a delivery's first attempt.",
    metrics.WAIT_BUCKETS,
    ("lane",),
)
DELIVERIES = metrics.counter(
    "gateway_webhook_deliveries",
    "Deliveries finished, by the lane of their last attempt and outcome: succeeded, failed "
    "(attempts exhausted or 410 Gone), not_sent (merchant deactivated, endpoint unproven or "
    "gone).",
    ("lane", "outcome"),
)
PROBES = metrics.counter(
    "gateway_merchant_probes",
    "Health probes of merchants by trigger (schedule, api, staff) and outcome.",
    ("trigger", "outcome"),
)


def outcome_of(answer: Answer) -> str:
    if answer.ok:
        return "succeeded"
    if answer.timed_out:
        return "timeout"
    if answer.status_code is None:
        return "connection_error"
    return f"http_{answer.status_code // 100}xx"


def delivery_attempted(lane: str, delivery: WebhookDelivery, answer: Answer) -> None:
    """An attempt of `delivery` answered (its state already settled by the answer)."""
    ATTEMPTS.labels("delivery", lane, outcome_of(answer)).inc()
    ATTEMPT_DURATION.labels("delivery", lane).observe(answer.latency_ms / 1000)
    if delivery.attempt_count == 1:
        waited = (timezone.now() - delivery.event.created_at).total_seconds()
        DELIVERY_WAIT.labels(lane).observe(waited - answer.latency_ms / 1000)
    if delivery.status in (DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED):
        DELIVERIES.labels(lane, delivery.status).inc()


def verification_attempted(answer: Answer, verified: bool) -> None:
    outcome = "no_echo" if answer.ok and not verified else outcome_of(answer)
    ATTEMPTS.labels("verification", PROBES_LANE, outcome).inc()
    ATTEMPT_DURATION.labels("verification", PROBES_LANE).observe(answer.latency_ms / 1000)


def probed(trigger: str, answer: Answer) -> None:
    PROBES.labels(trigger, outcome_of(answer)).inc()
