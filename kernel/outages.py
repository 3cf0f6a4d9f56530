"""A store the gateway depends on that does not answer (its database, its Redis cache): the
request is answered 503 `service_unavailable` with `Retry-After`, not 500, and counted apart
from the bugs (gateway_store_outages_total, alert StoreOutage in ops/prometheus/alerts.yml)."""

import logging

from django import db
from redis import exceptions as redis_errors

from kernel import metrics

logger = logging.getLogger(__name__)

# Seconds a client is told to wait: a restarted server or a failover is back within a few.
RETRY_AFTER_S = 5

OUTAGES = metrics.counter(
    "gateway_store_outages",
    "Requests answered 503 service_unavailable because a store did not answer, by store "
    "(database, cache).",
    ("store",),
)

_DATABASE = (db.OperationalError, db.InterfaceError)
# django-redis wraps the client's errors in ConnectionInterrupted, whose cause is one of these.
_CACHE = (redis_errors.ConnectionError, redis_errors.TimeoutError)


def store_down(exc: BaseException | None) -> str | None:
    """The store ("database" or "cache") whose outage `exc` is, or None for anything else."""
    seen = 0
    while exc is not None and seen < 5:  # the error, or what it wraps
        if isinstance(exc, _DATABASE):
            return "database"
        if isinstance(exc, _CACHE):
            return "cache"
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def counted(store: str, exc: BaseException) -> None:
    """Count the outage and log it in one line: the class of the error, never its text (a
    connection error may spell out a host or a user)."""
    OUTAGES.labels(store=store).inc()
    logger.warning("the %s did not answer (%s): 503", store, type(exc).__name__)
