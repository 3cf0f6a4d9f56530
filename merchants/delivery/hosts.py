"""A bound per endpoint host on what the gateway sends it a minute (WEBHOOK_HOST_PER_MINUTE):
deliveries and verification attempts to one host, however many merchants name it. Fifty
merchants registered with one victim's URL cannot make the gateway flood it; what is over the
bound waits for the next minute (a delivery keeps its attempt count).

Counted in the shared cache (Redis, or the embedded default's files), one counter per host and
minute. A cache outage lets everything through: the bound is a brake, not a lock.
"""

import logging
import time
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


def host_allows(url: str) -> bool:
    """Count one request to `url`'s host this minute; False when it is over the bound."""
    host = (urlsplit(url).hostname or "").lower()
    key = f"webhook-host:{int(time.time() // 60)}:{host}"
    try:
        count = 1 if cache.add(key, 1, timeout=120) else cache.incr(key)
    except (RedisError, OSError, ValueError) as exc:
        logger.warning("cache unavailable, endpoint host %s not bounded: %s", host, exc)
        return True
    return count <= settings.WEBHOOK_HOST_PER_MINUTE


def next_minute() -> float:
    """Seconds until the next minute's bound starts."""
    return 60 - time.time() % 60
