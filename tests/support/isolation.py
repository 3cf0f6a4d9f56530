"""Parallel test workers (pytest-xdist, `pytest -n 2`) on stores of their own.

Every test clears the caches before and after it (tests/conftest.py), and the tests that start
Celery workers purge the broker's queues: two workers sharing a Redis database or a `var/`
directory would wipe each other's state and run each other's tasks. So each xdist worker `gwN`
gets, before the gateway's settings are read:

- its own directory for the embedded default's files (`VAR_DIR=var/test-gwN`): file cache,
  filesystem broker, beat's schedule;
- its own Redis database, the configured one plus N (`redis://host:6379/1` gives gw0 db 1, gw1
  db 2), for the cache, the A2A tasks and the Celery broker;
- its own test database, which pytest-django names with the suffix `_gwN` itself.

The changes go into the environment, so the processes the tests start (Celery workers, the web
role) read the same stores through the gateway's own settings. Without xdist nothing changes.
"""

from collections.abc import MutableMapping
from urllib.parse import urlsplit, urlunsplit

REDIS_DATABASES = 16  # Redis's default `databases`
REDIS_VARIABLES = ("REDIS_URL", "A2A_TASKS_REDIS_URL", "CELERY_BROKER_URL")
DONE = "GATEWAY_TEST_WORKER_STORES"  # set once the environment is adjusted for a worker


def worker_redis_url(url: str, worker: int) -> str:
    """`url` with its database number moved up by `worker`."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    database = base + worker
    if database >= REDIS_DATABASES:
        raise RuntimeError(
            f"{url}: test worker gw{worker} would use Redis database {database}, past the last "
            f"one ({REDIS_DATABASES - 1}); give REDIS_URL a lower database number or run fewer "
            "workers (pytest -n)"
        )
    return urlunsplit(parts._replace(path=f"/{database}"))


def isolate_worker(environ: MutableMapping[str, str]) -> None:
    """Point this xdist worker's environment at its own stores (see the module's docstring)."""
    name = environ.get("PYTEST_XDIST_WORKER", "")
    if not name or environ.get(DONE) == name:
        return
    worker = int(name.removeprefix("gw"))
    environ["VAR_DIR"] = f"var/test-{name}"
    for variable in REDIS_VARIABLES:
        if environ.get(variable, "").startswith(("redis://", "rediss://")):
            environ[variable] = worker_redis_url(environ[variable], worker)
    environ[DONE] = name
