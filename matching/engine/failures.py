"""What a failed call to the intent engine says: an outage of the engine or one input's trouble,
its cause in words for the log, and its message for the caller (matching/engine/client.py calls,
matching/engine/breaker.py counts)."""

from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings

from matching.engine.process import Raised, Trace, trace_of


@dataclass(frozen=True)
class Failure(Exception):
    """A call that brought no answer, or an answer that is no resolution."""

    outage: bool  # the engine cannot answer anyone (matching/engine/breaker.py), else: this input
    cause: str  # its kind: "connection refused", "timeout", "HTTP 503", ...
    message: str  # for the caller
    # For the log: the cause with where or how long ("connection refused to http://...",
    # "timed out after 8.0 s"); never the key, the shopper's words or what the provider said.
    detail: str


def endpoint() -> str:
    """Where the engine is called, fit for a log: the API base without credentials or query,
    else the provider litellm derives from the model."""
    base = settings.INTENT_ENGINE_API_BASE
    if not base:
        return f"the provider of {settings.INTENT_ENGINE_MODEL}"
    parts = urlsplit(base)
    netloc = parts.netloc.rpartition("@")[2]  # no user or password
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


TIMED_OUT = "The intent engine did not answer within {timeout:g} s."
FAILED = "The intent engine failed to answer; try again shortly."
# What an HTTP status says of the engine, when it says more than its number.
STATUS_NOTES = {
    401: " (key refused)",
    403: " (key refused)",
    404: " (model or endpoint not found)",
    429: " (rate limited)",
}


CONNECTION_CAUSES = {
    "refused": ("connection refused", "to"),
    "name lookup": ("name lookup failed", "for"),
    "failed": ("connection failed", "to"),
}


def failure_of(exc: BaseException) -> Failure:
    """What a litellm error says: an outage or a bad input, and its cause in words."""
    return failure_from(exc.trace if isinstance(exc, Raised) else trace_of(exc))


def failure_from(trace: Trace) -> Failure:
    """What a call's Trace (matching/engine/process.py) says of the engine."""
    timeout = settings.INTENT_ENGINE_TIMEOUT_S
    if trace.timeout:
        message = TIMED_OUT.format(timeout=timeout)
        return Failure(True, "timeout", message, f"timed out after {timeout:.1f} s")
    if trace.stopped:  # an outage of ours, not the provider's; the next call starts another
        return Failure(True, "engine process stopped", FAILED, "the engine's process stopped")
    if trace.connection is not None:
        cause, where = CONNECTION_CAUSES[trace.connection]
        return Failure(True, cause, FAILED, f"{cause} {where} {endpoint()}")
    if trace.status is not None:
        # 401, 403 and 404 are a key or model the provider refuses: nobody gets an answer.
        status = trace.status
        outage = status in (401, 403, 404, 429) or status >= 500
        message = FAILED if outage else "The intent engine refused to resolve this intent."
        detail = f"HTTP {status}{STATUS_NOTES.get(status, '')} from {endpoint()}"
        return Failure(outage, f"HTTP {status}", message, detail)
    return Failure(True, trace.kind, FAILED, f"{trace.kind} from {endpoint()}")
