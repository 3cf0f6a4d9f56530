"""The intent engine's circuit breaker, which only an outage opens, and its memory of bad inputs.

An engine failure is one of two kinds:

- an **outage**: the engine cannot answer anyone: no connection, a timeout, a 5xx, a 429, or a
  refused key or model (401, 403, 404). Each intent counts once: after
  INTENT_ENGINE_BREAKER_FAILURES distinct intents failed this way in a row, the breaker opens
  and every caller gets 503 at once, with `Retry-After`, for INTENT_ENGINE_BREAKER_COOLDOWN_S;
  then one trial call decides (half-open). The same intent failing again and again never opens
  it: a shopper whose words time out cannot deny the engine to everyone else.
- a **bad answer** to one input: an answer that is not a resolution, or a 4xx that names the
  request (400, 413, 422). The engine did answer, so it is up: the streak of outages ends. The
  input is remembered for INTENT_ENGINE_BAD_INPUT_S: the same words are answered 503 at once
  without calling the engine again (each call is paid), then tried afresh.

A timeout or a 5xx may also be one input's doing (words that make the model write until the
deadline, or that a provider's filter chokes on), and distinct words cost a caller nothing. So
the outage that would open the breaker (the last of the streak, or a failed trial) is first
confirmed by a **canary**: a tiny fixed question, answered in a few tokens, under
INTENT_ENGINE_CANARY_TIMEOUT_S (matching/engine/client.py). Only when the canary fails too does the
breaker open. When it is answered, the engine is up: the streak ends, the breaker closes, and
the failure is that intent's, remembered as a bad answer is. One canary at a time is asked.

The state lives in the engine's cache (`caches["engine"]`, beside the resolutions, read in the
same round trip), so every web and worker process sees one breaker. With the cache down the
breaker stays closed.
"""

import contextlib
import logging
import math
import secrets
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

OPEN_UNTIL_KEY = "engine:breaker:open-until"
STREAK_KEY = "engine:breaker:streak"  # the id of the current streak of outages
TRIAL_KEY = "engine:breaker:trial"
CANARY_KEY = "engine:breaker:canary"  # held by the one caller asking the canary
# A streak of outages with no answer in between counts for at most this long.
STREAK_HORIZON_S = 3600


def _cache() -> Any:
    return caches["engine"]


def bad_input_key(resolution_key: str) -> str:
    return f"{resolution_key}:bad"


def keys(resolution_key: str) -> list[str]:
    """What one lookup reads, besides the resolution: the input's bad-answer mark and the state
    of the breaker."""
    return [bad_input_key(resolution_key), OPEN_UNTIL_KEY, STREAK_KEY]


def admits(found: Mapping[str, Any]) -> tuple[bool, float]:
    """Whether a call may go to the engine now, given the state read (`keys`); if not, the
    seconds until one may. After the cooldown one caller at a time makes the trial call."""
    open_until = found.get(OPEN_UNTIL_KEY)
    if open_until is None:
        return True, 0
    wait = float(open_until) - time.time()
    if wait > 0:
        return False, wait
    trial_s = math.ceil(settings.INTENT_ENGINE_TIMEOUT_S) + 5
    try:
        return bool(_cache().add(TRIAL_KEY, 1, timeout=trial_s)), trial_s
    except RedisError:
        return True, 0


def outage(resolution_key: str, found: Mapping[str, Any]) -> bool:
    """Count an outage against the breaker: once per intent in the current streak. True when
    it would open the breaker and this caller is to ask the canary: it then reports what the
    canary said with `confirmed` or `disproved`."""
    cache = _cache()
    try:
        streak = found.get(STREAK_KEY)
        if streak is None:
            cache.add(STREAK_KEY, secrets.token_hex(8), timeout=STREAK_HORIZON_S)
            streak = cache.get(STREAK_KEY)
        # `add` is atomic on every cache backend: an intent counts once per streak.
        if streak is None or not cache.add(
            f"engine:breaker:{streak}:{resolution_key}", 1, timeout=STREAK_HORIZON_S
        ):
            return False
        count_key = f"engine:breaker:{streak}:count"
        cache.add(count_key, 0, timeout=STREAK_HORIZON_S)
        count = cache.incr(count_key)
        trial = found.get(OPEN_UNTIL_KEY) is not None
        if not trial and count < settings.INTENT_ENGINE_BREAKER_FAILURES:
            return False
        canary_s = math.ceil(settings.INTENT_ENGINE_CANARY_TIMEOUT_S) + 5
        return bool(cache.add(CANARY_KEY, 1, timeout=canary_s))
    except (RedisError, ValueError):
        return False


def confirmed() -> None:
    """The canary failed too: the engine is out, the breaker opens."""
    cooldown = settings.INTENT_ENGINE_BREAKER_COOLDOWN_S
    with contextlib.suppress(RedisError):
        cache = _cache()
        cache.set(OPEN_UNTIL_KEY, time.time() + cooldown, timeout=None)
        cache.delete_many([TRIAL_KEY, CANARY_KEY])
    logger.warning(
        "intent engine breaker open for %.0f s: distinct intents met an outage in a row and "
        "the canary failed too",
        cooldown,
    )


def disproved(resolution_key: str, message: str) -> None:
    """The canary was answered: the engine is up, the streak ends and the breaker closes; the
    failure was this intent's, remembered as a bad answer is."""
    with contextlib.suppress(RedisError):
        _cache().delete_many([STREAK_KEY, OPEN_UNTIL_KEY, TRIAL_KEY, CANARY_KEY])
    bad_input(resolution_key, message)


def answered(found: Mapping[str, Any]) -> None:
    """The engine answered (well or badly): it is up, the breaker closes."""
    if found.get(STREAK_KEY) is None and found.get(OPEN_UNTIL_KEY) is None:
        return  # nothing to reset: the usual case costs no round trip
    with contextlib.suppress(RedisError):
        _cache().delete_many([STREAK_KEY, OPEN_UNTIL_KEY, TRIAL_KEY])


def bad_input(resolution_key: str, message: str) -> None:
    """Remember that the engine answered this input badly, for INTENT_ENGINE_BAD_INPUT_S."""
    if settings.INTENT_ENGINE_BAD_INPUT_S:
        with contextlib.suppress(RedisError):
            _cache().set(
                bad_input_key(resolution_key),
                {"message": message, "until": time.time() + settings.INTENT_ENGINE_BAD_INPUT_S},
                timeout=settings.INTENT_ENGINE_BAD_INPUT_S,
            )


def remembered_bad(resolution_key: str, found: Mapping[str, Any]) -> tuple[str, float] | None:
    """The message and remaining seconds of a bad answer remembered for this input, if any."""
    mark = found.get(bad_input_key(resolution_key))
    if not isinstance(mark, dict):
        return None
    wait = float(mark.get("until", 0)) - time.time()
    return (str(mark.get("message", "")), wait) if wait > 0 else None
