"""The gateway's own Prometheus metrics: how an app declares one, and what it costs when metrics
are off.

Metrics are on when METRICS_TOKEN is set (docs/alerts.md#metrics). The settings then point
prometheus_client at the host's multiprocess directory before anything imports it, and every
metric declared here is prometheus_client's own, its samples written to that directory so that
one scrape of the web role's `GET /metrics` adds up every process of the host. Off, a metric is
a stand-in whose methods do nothing and prometheus_client is never imported: a measured point
then costs one method call.

An app declares its metrics in its own `metrics.py`, with low-cardinality labels only (never a
shopper's words, a merchant id or a URL), and measures each point with one call. What is read
at scrape time rather than counted (rows waiting in the database, the breaker's state) is its
AppConfig's `readings()`, which gateway/metrics.py asks at each scrape.
"""

import time
from collections.abc import Sequence
from typing import Any

from django.conf import settings

# OpenTelemetry's advice for `gen_ai.client.operation.duration`, seconds.
GEN_AI_DURATION_BUCKETS = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
# OpenTelemetry's advice for `gen_ai.client.token.usage`, tokens.
GEN_AI_TOKEN_BUCKETS = tuple(float(4**power) for power in range(14))
# Work the gateway does itself (a warm recommend, a retrieval), seconds: the budgets of
# DESIGN.md section 11 fall on bucket edges, so an alert on a quantile compares like with like.
OWN_WORK_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.015,
    0.02,
    0.025,
    0.05,
    0.06,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
)
# A request to a merchant's endpoint, and the wait of a delivery, seconds.
REMOTE_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
WAIT_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0, 7200.0, 36000.0)


def enabled() -> bool:
    """Whether this process measures: it started with METRICS_TOKEN set, so its settings named
    the host's metrics directory (read as each metric is declared, whatever a test overrides
    later)."""
    return settings.METRICS_DIR is not None


class Off:
    """A metric while metrics are off: every measurement is dropped."""

    def labels(self, *values: str, **labels: str) -> "Off":
        return self

    def inc(self, amount: float = 1) -> None:
        pass

    def observe(self, amount: float) -> None:
        pass


def counter(name: str, documentation: str, labels: Sequence[str] = ()) -> Any:
    """A prometheus_client Counter (`name` without its `_total`), or Off."""
    if not enabled():
        return Off()
    from prometheus_client import Counter

    return Counter(name, documentation, labelnames=labels)


def histogram(
    name: str, documentation: str, buckets: Sequence[float], labels: Sequence[str] = ()
) -> Any:
    """A prometheus_client Histogram, or Off."""
    if not enabled():
        return Off()
    from prometheus_client import Histogram

    return Histogram(name, documentation, labelnames=labels, buckets=buckets)


def since(started: float) -> float:
    """Seconds since `started` (a time.perf_counter() reading)."""
    return time.perf_counter() - started


def gauge(name: str, documentation: str, labels: Sequence[str] = ()) -> Any:
    """A gauge family for an AppConfig's `readings()`, filled at scrape time with
    `.add_metric(label_values, value)`."""
    from prometheus_client.core import GaugeMetricFamily

    return GaugeMetricFamily(name, documentation, labels=list(labels))
