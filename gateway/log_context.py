"""What ties a log line to its request or task, and to its trace: the request id the gateway
answers in X-Request-ID (set by gateway/middleware.py), the Celery task being run (set by
gateway/celery.py as it starts), and the current span's trace and span ids.

Context variables, so that each request and each task sees its own, on whichever thread or
coroutine it runs; a step a request hands to a thread (Django's sync_to_async, the web's pools)
runs in a copy of its context and carries them too.
"""

import logging
from contextvars import ContextVar

from opentelemetry import trace

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
task: ContextVar[tuple[str, str] | None] = ContextVar("task", default=None)  # (id, name)

# The request's span attribute that holds its X-Request-ID (docs/alerts.md, "Traces").
REQUEST_ID_ATTRIBUTE = "gateway.request_id"


def request_started(value: str) -> None:
    """A request's id, in every log line it leads to and on its trace's server span (the
    current span: the request's own), so that one leads to the other.

    Left set: each request runs in a context of its own (its task on the event loop, or a copy
    on a pool's thread, gateway/asgi.py), and Django writes its line about an answer (a 503, a
    500) once the middleware has returned, which must carry it too."""
    trace.get_current_span().set_attribute(REQUEST_ID_ATTRIBUTE, value)
    request_id.set(value)


class Correlation(logging.Filter):
    """Adds to each record what correlates it: `request_id`, `task_id` and `task`, `trace_id`
    and `span_id` (W3C hex), each only when there is one."""

    def filter(self, record: logging.LogRecord) -> bool:
        found: dict[str, str] = {}
        if (current := request_id.get()) is not None:
            found["request_id"] = current
        if (running := task.get()) is not None:
            found["task_id"], found["task"] = running
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            found["trace_id"] = trace.format_trace_id(context.trace_id)
            found["span_id"] = trace.format_span_id(context.span_id)
        record.__dict__.update(found)  # as `extra=` would
        return True
