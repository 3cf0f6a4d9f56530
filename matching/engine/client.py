"""The intent engine: the only door to the language model that resolves shoppers' words.

Reached through litellm (any provider by configuration, DESIGN.md section 6), imported only once
the engine is configured: the import costs seconds. One call per resolution, with the prompt and
the checks of what the model answers in matching/engine/resolution.py.

Failures (not configured, timeout, provider error, an answer that is not a resolution) raise
EngineUnavailable, which the API renders as 503 `intent_engine_unavailable`. A circuit breaker
that only an outage opens, confirmed by a canary call, stops calling a failing engine for a while
(matching/engine/breaker.py); a resolution cache keyed on the normalized text and region spares the
engine repeated questions. An answer is capped at INTENT_ENGINE_MAX_TOKENS, so that words which
make the model write on end in a short, unreadable answer (a bad input), not a timeout.
"""

import asyncio
import contextlib
import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

from kernel.errors import INTENT_ENGINE_UNAVAILABLE, ApiError
from kernel.steps import after_the_wait
from matching import metrics
from matching.engine import breaker
from matching.engine import process as engine_process
from matching.engine.failures import Failure, failure_of
from matching.engine.process import Completion, completion_of
from matching.engine.resolution import Resolution, Unreadable, messages_for, normalize, parse
from matching.engine.tracing import chat_span

logger = logging.getLogger(__name__)

# The canary (matching/engine/breaker.py): a question any model answers in a few tokens.
CANARY_MESSAGES = [
    {"role": "system", "content": 'Answer with the JSON object {"ok": true} and nothing else.'},
    {"role": "user", "content": "Are you there?"},
]
CANARY_MAX_TOKENS = 16


class EngineUnavailable(ApiError):
    """503 `intent_engine_unavailable`. `asked` says whether the engine was asked about this
    intent (it failed, or answered it badly), rather than not asked at all (not configured, or
    its breaker open): what a retry schedule counts."""

    def __init__(self, message: str, *, retry_after: int | None = None, asked: bool = True) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after else None
        error = INTENT_ENGINE_UNAVAILABLE
        super().__init__(error.status, error.code, message, headers=headers)
        self.retry_after = retry_after
        self.asked = asked


def is_configured() -> bool:
    return bool(settings.INTENT_ENGINE_MODEL)


def require_configured() -> None:
    if not is_configured():
        raise EngineUnavailable(INTENT_ENGINE_UNAVAILABLE.message, asked=False)


# --- Calling the engine ------------------------------------------------------------------------
# Two doors to the same call, with one retry policy (`_Retries`): `aresolve` for the web's
# coroutine views (litellm's async client: a waiting request holds no thread), `resolve` for
# tasks and other synchronous callers.


def completion_kwargs(messages: list[dict[str, str]]) -> dict[str, Any]:
    return {
        "model": settings.INTENT_ENGINE_MODEL,
        "messages": messages,
        "api_base": settings.INTENT_ENGINE_API_BASE,
        "api_key": settings.INTENT_ENGINE_API_KEY,
        # The same on every call: litellm keys the client it keeps on it, and a new client per
        # call cost milliseconds. The caller's own deadline bounds each attempt.
        "timeout": settings.INTENT_ENGINE_TIMEOUT_S,
        "max_retries": 0,
        "temperature": 0,
        "max_tokens": settings.INTENT_ENGINE_MAX_TOKENS,
        "response_format": {"type": "json_object"},
        "drop_params": True,  # providers without JSON mode still get the rest of the call
    }


# litellm's own timeout bounds a silent connection, not a provider that drips bytes: every
# synchronous call runs on this pool and the caller stops waiting at the deadline.
_pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="intent-engine")
_import_lock = threading.Lock()


def load_litellm() -> Any:
    """litellm in this process, for the synchronous door (`call`)."""
    with _import_lock:
        return engine_process.load_litellm()


class _Retries:
    """The retry policy of one call, the same for both doors (`call`, `acall`): every attempt
    within one deadline of INTENT_ENGINE_TIMEOUT_S, retries included; a dropped connection, a
    429 or a 5xx tried again after a growing pause, at most INTENT_ENGINE_RETRIES times and
    only while the pause leaves time to try; every failure logged, the call metered once, as it
    ends. A door only makes each attempt and sleeps its way (a thread's or a coroutine's)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.deadline = time.monotonic() + settings.INTENT_ENGINE_TIMEOUT_S
        self.attempt = 0

    def next(self) -> float:
        """Seconds the next attempt may take: what is left before the deadline."""
        self.attempt += 1
        return self.deadline - time.monotonic()

    def answered(self, completion: Completion) -> Completion:
        return metrics.engine_called(self.started, completion)

    def failed(self, failure: Failure) -> float:
        """Seconds to wait before the next attempt. Raises the failure, metered, when there
        is none."""
        kind = "outage" if failure.outage else "bad input"
        logger.warning("intent engine call %d failed (%s): %s", self.attempt, kind, failure.detail)
        pause = 0.2 * self.attempt
        if (
            self._retryable(failure)
            and self.attempt <= settings.INTENT_ENGINE_RETRIES
            and self.deadline - time.monotonic() > pause + 0.1
        ):
            return pause
        raise metrics.engine_called(self.started, failure)

    @staticmethod
    def _retryable(failure: Failure) -> bool:
        """Worth one more try within the deadline: a dropped connection, a 429 or a 5xx."""
        if failure.cause == "timeout" or not failure.outage:
            return False
        return not failure.cause.startswith("HTTP 4") or failure.cause == "HTTP 429"


@chat_span(completion_kwargs)
def call(messages: list[dict[str, str]]) -> Completion:
    """The engine's answer within INTENT_ENGINE_TIMEOUT_S, retries included. Raises Failure."""
    litellm = load_litellm()  # the first import takes seconds: never from the engine's time
    retries = _Retries()
    while True:
        remaining = retries.next()
        future = _pool.submit(litellm.completion, **completion_kwargs(messages))
        try:
            return retries.answered(completion_of(future.result(timeout=remaining)))
        except FutureTimeout:
            future.cancel()
            failure = failure_of(TimeoutError())
        except Exception as exc:  # every provider error, mapped by litellm
            failure = failure_of(exc)
        time.sleep(retries.failed(failure))


@chat_span(completion_kwargs)
async def acall(messages: list[dict[str, str]]) -> Completion:
    """`call` for coroutines: the same deadline, retries and failures, holding no thread;
    litellm runs in the engine's own process (matching/engine/process.py)."""
    await engine_process.started(settings.INTENT_ENGINE_MODEL)  # never from the engine's time
    retries = _Retries()
    while True:
        remaining = retries.next()
        try:
            async with asyncio.timeout(remaining):
                completion = await engine_process.complete(completion_kwargs(messages))
            return retries.answered(completion)
        except TimeoutError:
            failure = failure_of(TimeoutError())
        except Exception as exc:  # every provider error, mapped by litellm
            failure = failure_of(exc)
        await asyncio.sleep(retries.failed(failure))


def _canary() -> bool:
    """Whether the engine answers the canary within INTENT_ENGINE_CANARY_TIMEOUT_S: any answer,
    or a refusal that names the request, shows it is up."""
    future = _pool.submit(load_litellm().completion, **canary_kwargs())
    try:
        future.result(timeout=settings.INTENT_ENGINE_CANARY_TIMEOUT_S)
    except FutureTimeout:
        future.cancel()
        return False
    except Exception as exc:  # every provider error, mapped by litellm
        return not failure_of(exc).outage
    return True


async def _acanary() -> bool:
    """`_canary` for coroutines, in the engine's own process."""
    await engine_process.started(settings.INTENT_ENGINE_MODEL)  # a new one, if the last stopped
    try:
        async with asyncio.timeout(settings.INTENT_ENGINE_CANARY_TIMEOUT_S):
            await engine_process.complete(canary_kwargs())
    except TimeoutError:
        return False
    except Exception as exc:  # every provider error, mapped by litellm
        return not failure_of(exc).outage
    return True


def canary_kwargs() -> dict[str, Any]:
    return {**completion_kwargs(CANARY_MESSAGES), "max_tokens": CANARY_MAX_TOKENS}


def _after_canary(found: "Lookup", failure: Failure, answered: bool) -> Failure:
    """What an outage that would open the breaker is, once the canary spoke: an outage (the
    breaker opens), or this intent's own failure (remembered; the breaker stays closed)."""
    if not answered:
        breaker.confirmed()
        metrics.BREAKER_OPENINGS.inc()
        return failure
    logger.warning(
        "intent engine canary answered: the failure (%s) is this intent's, not an outage",
        failure.cause,
    )
    breaker.disproved(found.key, failure.message)
    return replace(failure, outage=False)


def _judged(found: "Lookup", failure: Failure) -> Failure:
    """Keep the breaker's books on a failed call; asks the canary when the breaker would open."""
    if failure.outage and breaker.outage(found.key, found.found):
        return _after_canary(found, failure, _canary())
    return failure


async def _ajudged(found: "Lookup", failure: Failure) -> Failure:
    """`_judged` for coroutines: the canary is awaited on the event loop."""
    if failure.outage and await sync_to_async(breaker.outage)(found.key, found.found):
        return await sync_to_async(_after_canary)(found, failure, await _acanary())
    return failure


# --- Resolving ---------------------------------------------------------------------------------


def cache_key(text: str, region: str | None) -> str:
    digest = hashlib.sha256(
        f"{settings.INTENT_ENGINE_MODEL}\n{region or ''}\n{normalize(text)}".encode()
    ).hexdigest()
    return f"engine:resolution:{digest}"


@dataclass(frozen=True)
class Lookup:
    """What one round trip to the engine's cache found for an intent."""

    key: str
    found: dict[str, Any]
    resolution: Resolution | None  # cached
    categories: list[str]  # the catalog's, when the engine must be called


def lookup(text: str, region: str | None, categories: Callable[[], Collection[str]]) -> Lookup:
    """The cached resolution, or what calling the engine needs. Raises EngineUnavailable when
    the breaker is open or this input was answered badly a moment ago."""
    require_configured()
    key = cache_key(text, region)
    try:
        found = caches["engine"].get_many([key, *breaker.keys(key)])
    except RedisError:
        found = {}
    if key in found:
        metrics.ENGINE_LOOKUPS.labels("hit").inc()
        return Lookup(key, found, Resolution.from_dict(found[key]), [])
    remembered = breaker.remembered_bad(key, found)
    if remembered is not None:
        metrics.ENGINE_LOOKUPS.labels("bad_input").inc()
        message, wait = remembered
        raise EngineUnavailable(message, retry_after=math.ceil(wait))
    admitted, wait = breaker.admits(found)
    if not admitted:
        metrics.ENGINE_LOOKUPS.labels("breaker_open").inc()
        raise EngineUnavailable(
            "The intent engine is failing, so the gateway stopped calling it for a while; "
            f"try again in {math.ceil(wait)} s.",
            retry_after=math.ceil(wait),
            asked=False,
        )
    metrics.ENGINE_LOOKUPS.labels("miss").inc()
    return Lookup(key, found, None, list(categories()))


def settle(found: Lookup, text: str, answer: Completion | Failure) -> Resolution:
    """Read the engine's answer (or its failure, an outage already counted: `_judged`), keep
    the breaker's books, cache the resolution. Raises EngineUnavailable."""
    if isinstance(answer, Failure):
        metrics.engine_settled(answer)
        if not answer.outage:
            breaker.answered(found.found)
            breaker.bad_input(found.key, answer.message)
        raise EngineUnavailable(answer.message)
    breaker.answered(found.found)  # any answer at all shows the engine is up
    try:
        resolution = parse(answer.content, text=text, categories=found.categories)
    except Unreadable as exc:
        logger.warning("intent engine answer refused (bad input): unreadable answer: %s", exc)
        metrics.engine_settled("bad_answer")
        message = "The intent engine answered something that is not a resolution of the intent."
        breaker.bad_input(found.key, message)
        raise EngineUnavailable(message) from None
    metrics.engine_settled("answered")
    if settings.INTENT_ENGINE_CACHE_S:
        with contextlib.suppress(RedisError):
            caches["engine"].set(
                found.key, asdict(resolution), timeout=settings.INTENT_ENGINE_CACHE_S
            )
    return resolution


def resolve(
    *, text: str, region: str | None, categories: Callable[[], Collection[str]]
) -> tuple[Resolution, bool]:
    """Resolve the shopper's text; returns the resolution and whether it came from the cache.

    `categories` lists the catalog's categories; it is called only when the engine is. Raises
    EngineUnavailable. The cache is read only once the engine is known to be configured: an
    unconfigured gateway never answers from an old resolution.
    """
    found = lookup(text, region, categories)
    if found.resolution is not None:
        return found.resolution, True
    try:
        answer: Completion | Failure = call(messages_for(text, found.categories))
    except Failure as failure:
        answer = _judged(found, failure)
    return settle(found, text, answer), False


async def aresolve(
    *, text: str, region: str | None, categories: Callable[[], Collection[str]]
) -> tuple[Resolution, bool]:
    """`resolve` for coroutines: the cache and the breaker are read and written on the web's
    threads, the engine is awaited on the event loop."""
    found = await sync_to_async(lookup)(text, region, categories)
    if found.resolution is not None:
        return found.resolution, True
    answer = await aask(found, text)
    return await after_the_wait(partial(settle, found, text, answer)), False


async def aask(found: Lookup, text: str) -> Completion | Failure:
    """The engine's answer to what a lookup did not find cached, or its failure, awaited on
    the event loop; `settle` reads it (on a thread: it writes the cache)."""
    try:
        return await acall(messages_for(text, found.categories))
    except Failure as failure:
        return await _ajudged(found, failure)
