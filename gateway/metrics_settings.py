"""The settings of metrics (gateway/settings.py; docs/operations.md#metrics): the token that
turns them on, and django-prometheus's middleware and buckets while they are on."""

import re

from django.core.exceptions import ImproperlyConfigured

METRICS_TOKEN_MIN_LENGTH = 32
# django-prometheus's request latency buckets: the budgets of DESIGN.md section 11 (cards,
# match) fall on edges; the intent engine's calls reach the longer ones.
REQUEST_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, float("inf"))


def metrics_token(raw: str) -> str:
    """METRICS_TOKEN: empty (metrics off), or a token of at least METRICS_TOKEN_MIN_LENGTH
    characters with no spaces (it travels in an Authorization header)."""
    token = raw.strip()
    printable = re.fullmatch(r"[\x21-\x7e]+", token)
    if token and (len(token) < METRICS_TOKEN_MIN_LENGTH or not printable):
        raise ImproperlyConfigured(
            f"METRICS_TOKEN must be at least {METRICS_TOKEN_MIN_LENGTH} printable characters "
            "without spaces"
        )
    return token


def measured(middleware: list[str]) -> list[str]:
    """The middleware chain with django-prometheus's first and last
    (gateway/metrics_middleware.py): requests by view and status, with their latency."""
    return [
        "gateway.metrics_middleware.PrometheusBeforeMiddleware",
        *middleware,
        "gateway.metrics_middleware.PrometheusAfterMiddleware",
    ]
