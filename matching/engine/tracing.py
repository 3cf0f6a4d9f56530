"""The engine call's span, in OpenTelemetry's GenAI semantic conventions: `chat {model}`, with
the model asked and the model that answered, the tokens read and written, the call's bounds, and
`error.type` when it failed.

Never the prompt nor the answer: they hold the shopper's words, which are personal data. The
conventions' `gen_ai.input.messages` and `gen_ai.output.messages` are left out on purpose, and
no setting turns them on.
"""

from collections.abc import Callable
from typing import Any

from django.conf import settings
from opentelemetry.trace import SpanKind

from kernel.tracing import Attributes, AttributeValue, Fn, traced
from matching.engine.failures import Failure
from matching.engine.process import Completion


def provider_and_model(model: str) -> tuple[str, str]:
    """litellm's `provider/model` as (provider, model); litellm tells the provider of a bare
    model name by itself, which the conventions' attribute then names `litellm`."""
    provider, _, name = model.partition("/")
    return (provider, name) if name else ("litellm", model)


def span_name() -> str:
    return f"chat {provider_and_model(settings.INTENT_ENGINE_MODEL)[1]}"


def request_attributes(kwargs: dict[str, Any]) -> Attributes:
    provider, model = provider_and_model(kwargs["model"])
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
        "gen_ai.request.max_tokens": kwargs["max_tokens"],
        "gen_ai.request.temperature": float(kwargs["temperature"]),
        "gen_ai.output.type": "json",
    }


def response_attributes(completion: Completion) -> Attributes:
    found: dict[str, AttributeValue | None] = {
        "gen_ai.response.model": completion.model,
        "gen_ai.usage.input_tokens": completion.input_tokens,
        "gen_ai.usage.output_tokens": completion.output_tokens,
    }
    return {name: value for name, value in found.items() if value is not None}


def error_type(exc: BaseException) -> str:
    """A failed call's kind: `timeout`, the provider's HTTP status (`503`), `connection refused`
    and the like (matching/engine/failures.py)."""
    if isinstance(exc, Failure):
        return exc.cause.removeprefix("HTTP ")
    return type(exc).__qualname__


def chat_span(kwargs_of: Callable[[list[dict[str, str]]], dict[str, Any]]) -> Callable[[Fn], Fn]:
    """The span of one engine call (its retries within the deadline included) made with the
    arguments `kwargs_of(messages)` gives litellm."""
    return traced(
        span_name,
        kind=SpanKind.CLIENT,
        start=lambda messages: request_attributes(kwargs_of(messages)),
        result=response_attributes,
        error=error_type,
    )
