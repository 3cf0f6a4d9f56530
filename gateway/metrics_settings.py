"""The settings of metrics (gateway/settings.py; docs/alerts.md#metrics): the token that
turns them on, and django-prometheus's middleware and buckets while they are on."""

import re
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from gateway import metrics_files
from gateway.environment import env

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


def metrics_settings(middleware: list[str]) -> tuple[str, Path | None, list[str]]:
    """METRICS_TOKEN; METRICS_DIR, named to prometheus_client (gateway/metrics_files.py), None
    while metrics are off; and `middleware` with django-prometheus's while they are on."""
    token = metrics_token(env.str("METRICS_TOKEN", default=""))
    directory = metrics_files.exported()
    return token, directory, measured(middleware) if directory else middleware
