"""The test suite's settings: the gateway's own (gateway/settings.py), read after each parallel
worker's environment points at stores of its own (tests/support/isolation.py)."""

import os

import gateway.environment  # noqa: F401 - reads .env first, so that its REDIS_URL counts too
from tests.support.isolation import isolate_worker

isolate_worker(os.environ)
# Metrics are on for the whole suite (every measured point runs in every test), in a directory of
# each parallel worker's own: set, not defaulted, since the workers inherit the environment of
# the process that started them, whose settings named a directory of its own.
# tests/gateway/test_metrics_endpoint.py checks what off means.
os.environ.setdefault("METRICS_TOKEN", "suite-metrics-token-0123456789abcdef")
os.environ["METRICS_DIR"] = os.path.join(os.environ.get("VAR_DIR", "var"), "test-metrics")
# Traces go only where a test sends them (tests/support/otlp.py), never to a collector the
# developer's environment or .env names.
for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
    os.environ.pop(name, None)
# The processes the tests start (Celery workers, the web role) inherit this environment and read
# the gateway's settings themselves, as they do in production.
os.environ["DJANGO_SETTINGS_MODULE"] = "gateway.settings"

from gateway.settings import *  # noqa: E402, F403

if METRICS_DIR is not None:  # noqa: F405
    from gateway import metrics_files

    metrics_files.forget_dead(METRICS_DIR)  # noqa: F405 - the earlier runs' processes
