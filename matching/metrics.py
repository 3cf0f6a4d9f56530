"""Metrics of intent matching: the intent engine's calls (OpenTelemetry's GenAI metrics, in
Prometheus's names), its resolution cache and breaker, and the recommends served
(kernel/metrics.py; the table of docs/alerts.md#metrics)."""

import time
from collections.abc import Iterator
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

from kernel import metrics
from matching.engine import breaker
from matching.engine.failures import Failure
from matching.engine.process import Completion

# `gen_ai.client.operation.duration` and `gen_ai.client.token.usage` of OpenTelemetry's GenAI
# semantic conventions, their attributes' dots as underscores.
GEN_AI_LABELS = ("gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model")
ENGINE_DURATION = metrics.histogram(
    "gen_ai_client_operation_duration_seconds",
    "Seconds one call to the intent engine took, retries included (error_type empty when it "
    "answered).",
    metrics.GEN_AI_DURATION_BUCKETS,
    (*GEN_AI_LABELS, "error_type"),
)
ENGINE_TOKENS = metrics.histogram(
    "gen_ai_client_token_usage",
    "Tokens one answer of the intent engine read (input) and wrote (output).",
    metrics.GEN_AI_TOKEN_BUCKETS,
    (*GEN_AI_LABELS, "gen_ai_token_type"),
)
ENGINE_CALLS = metrics.counter(
    "gateway_engine_calls",
    "Calls to the intent engine by outcome: answered, bad_answer, timeout, server_error, "
    "refused, unreachable, error.",
    ("outcome",),
)
ENGINE_LOOKUPS = metrics.counter(
    "gateway_engine_lookups",
    "Resolutions looked up before calling the engine: hit (cached), miss (the engine is asked), "
    "bad_input (answered 503 from the memory of a bad answer), breaker_open (503 at once).",
    ("result",),
)
BREAKER_OPENINGS = metrics.counter(
    "gateway_engine_breaker_openings",
    "Times the intent engine's breaker opened (an outage the canary confirmed).",
)
RECOMMENDS = metrics.counter(
    "gateway_recommends",
    "Recommends answered, by the loosest retrieval tier that contributed (match_tier) and the "
    "note (none, intent_plus_trending, trending_suggested).",
    ("match_tier", "note"),
)
RECOMMEND_OVERHEAD = metrics.histogram(
    "gateway_recommend_overhead_seconds",
    "Seconds a recommend took beyond waiting for the intent engine (all of it when the "
    "resolution was cached), by resolution: cache or engine.",
    metrics.OWN_WORK_BUCKETS,
    ("resolution",),
)


def _gen_ai_labels() -> tuple[str, str, str]:
    model = settings.INTENT_ENGINE_MODEL
    provider = model.partition("/")[0] if "/" in model else "litellm"
    return "chat", provider, model


def outcome_of(failure: Failure) -> str:
    """A failed call's outcome, in a word (its cause is matching/engine/failures.py's)."""
    cause = failure.cause
    if cause == "timeout":
        return "timeout"
    if cause.startswith("HTTP 5"):
        return "server_error"
    if cause.startswith("HTTP "):
        return "refused"  # 4xx: a key, a model or a rate refused, or this input
    if cause.startswith(("connection ", "name lookup")) or cause == "engine process stopped":
        return "unreachable"
    return "error"


Answer = TypeVar("Answer", Completion, Failure)


def engine_called(started: float, answer: Answer) -> Answer:
    """One call to the engine (time.perf_counter() at its start, its retries included), and
    its answer or failure, returned: its duration, and the tokens of an answer."""
    labels = _gen_ai_labels()
    error = outcome_of(answer) if isinstance(answer, Failure) else ""
    ENGINE_DURATION.labels(*labels, error).observe(metrics.since(started))
    if isinstance(answer, Completion):
        if answer.input_tokens is not None:
            ENGINE_TOKENS.labels(*labels, "input").observe(answer.input_tokens)
        if answer.output_tokens is not None:
            ENGINE_TOKENS.labels(*labels, "output").observe(answer.output_tokens)
    return answer


def engine_settled(outcome: str | Failure) -> None:
    """What a call came to once its answer was read: `answered`, `bad_answer`, or its
    failure."""
    ENGINE_CALLS.labels(outcome_of(outcome) if isinstance(outcome, Failure) else outcome).inc()


def recommended(body: dict[str, Any], started: float, engine_s: float) -> None:
    """A recommend answered (`started`: time.perf_counter() as it began; `engine_s`: seconds
    spent waiting for the engine, 0 when the resolution was cached)."""
    RECOMMENDS.labels(body["match_tier"], body["note"] or "none").inc()
    resolution = "engine" if engine_s else "cache"
    RECOMMEND_OVERHEAD.labels(resolution).observe(metrics.since(started) - engine_s)


def readings() -> Iterator[Any]:
    """At scrape time: whether the breaker refuses calls now (the state is shared by every
    process, in the engine's cache)."""
    try:
        open_until = caches["engine"].get(breaker.OPEN_UNTIL_KEY)
    except RedisError:
        return
    state = metrics.gauge(
        "gateway_engine_breaker_open",
        "1 while the intent engine's breaker is open (every recommend answered 503 at once).",
    )
    state.add_metric([], float(open_until is not None and float(open_until) > time.time()))
    yield state
