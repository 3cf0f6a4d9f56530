"""Spans of the gateway's own steps (a retrieval, an insert, an engine call, a fan-out, a
delivery), through OpenTelemetry's API alone.

The API is all the apps and the kernel see: whether spans are recorded and where they go is the
process's business (gateway/telemetry.py installs the SDK when OTEL_EXPORTER_OTLP_ENDPOINT is
set). Without it the API's no-op tracer answers, and `traced` computes no attribute at all.

A step that runs later, in another process, than the request that caused it (an Intent.Surge
fanned out or delivered by the sweeper once the broker is back, a retry hours later) is no longer
in that request's trace: its row keeps the request's W3C `traceparent`, and the step's span
links to it (`link_to`).
"""

import functools
import inspect
from collections.abc import Callable, Mapping
from contextvars import Token
from typing import Any, TypeVar, cast

from opentelemetry import context, trace
from opentelemetry.context import Context
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from opentelemetry.util.types import AttributeValue

Attributes = Mapping[str, AttributeValue]
Fn = TypeVar("Fn", bound=Callable[..., Any])
__all__ = ["AttributeValue", "Attributes", "Fn", "link_to", "traced", "traceparent"]

tracer = trace.get_tracer("gateway")
_w3c = TraceContextTextMapPropagator()


def error_type(exc: BaseException) -> str:
    """What `error.type` says of an exception, unless the step says better: its class."""
    return type(exc).__qualname__


class Step:
    """One run of a traced function: its span, current while it runs. A class rather than the
    API's context managers, which are generators: passing through one, an exception has its
    traceback assigned, and a frozen dataclass's (the engine's Failure) refuses it."""

    def __init__(self, name: str, kind: SpanKind, error: Callable[[BaseException], str]) -> None:
        self.span = tracer.start_span(name, kind=kind)
        self.error = error
        self.token: Token[Context] | None = None

    def __enter__(self) -> "Step":
        self.token = context.attach(trace.set_span_in_context(self.span))
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _: Any) -> None:
        if exc is not None and self.span.is_recording():
            kind_of = self.error(exc)
            self.span.set_attribute("error.type", kind_of)
            self.span.set_status(Status(StatusCode.ERROR, kind_of))
        assert self.token is not None
        context.detach(self.token)
        self.span.end()

    def said(self, make: Callable[..., Attributes] | None, *args: Any, **kwargs: Any) -> None:
        """The attributes `make(*args, **kwargs)` gives, when the span is recorded."""
        if make is not None and self.span.is_recording():
            self.span.set_attributes(make(*args, **kwargs))


def traced(
    name: str | Callable[[], str],
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    start: Callable[..., Attributes] | None = None,
    result: Callable[[Any], Attributes] | None = None,
    error: Callable[[BaseException], str] = error_type,
) -> Callable[[Fn], Fn]:
    """Run the decorated function (or coroutine function) in a span named `name` (or what
    `name()` says as it starts). `start` is called with the function's arguments for the
    attributes known before it runs, `result` with what it returned; an exception sets the
    span's status and `error.type` (`error(exc)`), never its message, which may quote what a
    shopper or a merchant sent."""

    def step(args: Any, kwargs: Any) -> Step:
        began = Step(name if isinstance(name, str) else name(), kind, error)
        began.said(start, *args, **kwargs)
        return began

    def decorate(fn: Fn) -> Fn:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def arun(*args: Any, **kwargs: Any) -> Any:
                with step(args, kwargs) as running:
                    value = await fn(*args, **kwargs)
                    running.said(result, value)
                    return value

            return cast(Fn, arun)

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with step(args, kwargs) as running:
                value = fn(*args, **kwargs)
                running.said(result, value)
                return value

        return cast(Fn, run)

    return decorate


def traceparent() -> str:
    """The W3C traceparent of the current span, to keep with a row whose work goes on later;
    "" when no span is recorded (tracing off)."""
    if not trace.get_current_span().get_span_context().is_valid:
        return ""
    carrier: dict[str, str] = {}
    _w3c.inject(carrier)
    return carrier.get("traceparent", "")


def link_to(origin: str) -> None:
    """Link the current span to the span `origin` (a traceparent kept with a row) when that is
    in another trace: the request that caused this work, seen from a sweep or a retry."""
    span = trace.get_current_span()
    if not origin or not span.is_recording():
        return
    linked = trace.get_current_span(_w3c.extract({"traceparent": origin})).get_span_context()
    if linked.is_valid and linked.trace_id != span.get_span_context().trace_id:
        span.add_link(linked, {"gateway.link": "origin"})
