"""The test suite's settings: the gateway's own (gateway/settings.py), read after each parallel
worker's environment points at stores of its own (tests/support/isolation.py)."""

import os

import gateway.environment  # noqa: F401 - reads .env first, so that its REDIS_URL counts too
from tests.support.isolation import isolate_worker

isolate_worker(os.environ)
# Traces go only where a test sends them (tests/support/otlp.py), never to a collector the
# developer's environment or .env names.
for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
    os.environ.pop(name, None)
# The processes the tests start (Celery workers, the web role) inherit this environment and read
# the gateway's settings themselves, as they do in production.
os.environ["DJANGO_SETTINGS_MODULE"] = "gateway.settings"

from gateway.settings import *  # noqa: E402, F403
