"""A bound per destination on what the gateway sends it a minute (WEBHOOK_HOST_PER_MINUTE):
deliveries and verification attempts to one address and port, however many merchants name it
and however they spell it (`127.0.0.1`, `2130706433`, `127.1` and a name that resolves there are
one destination: merchants/endpoints.py). Fifty merchants registered with one victim's URL cannot
make the gateway flood it; what is over the bound waits for the next minute (a delivery keeps
its attempt count).

Counted in the shared cache (Redis, or the embedded default's files), one counter per
destination and minute. A cache outage lets everything through: the bound is a brake, not a
lock.
"""

import logging
import time

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

from merchants.endpoints import Target

logger = logging.getLogger(__name__)


def host_allows(
    target: Target, *, bound: str = "webhook-destination", per_minute: int | None = None
) -> bool:
    """Count one request to `target`'s destination this minute; False when it is over the
    bound. A target that may not be called is never sent, so it counts nothing. `bound` names
    a count of its own and `per_minute` its size: WEBHOOK_HOST_PER_MINUTE by default, the
    deliveries' and verifications' (UCP's profile fetches keep another)."""
    if target.destination is None:
        return True
    destination = target.destination.key
    key = f"{bound}:{int(time.time() // 60)}:{destination}"
    try:
        count = 1 if cache.add(key, 1, timeout=120) else cache.incr(key)
    except (RedisError, OSError, ValueError) as exc:
        logger.warning("cache unavailable, destination %s not bounded: %s", destination, exc)
        return True
    return count <= (settings.WEBHOOK_HOST_PER_MINUTE if per_minute is None else per_minute)


def next_minute() -> float:
    """Seconds until the next minute's bound starts."""
    return 60 - time.time() % 60
