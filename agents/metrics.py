"""Metrics of the agents' protocols: operations called through A2A and MCP, by operation and
outcome (kernel/metrics.py; the table of docs/alerts.md#metrics)."""

import time
from collections.abc import Awaitable

from agents.dispatch import Reply
from agents.operations import OPERATIONS
from agents.ucp.tools import TOOLS as UCP_TOOLS
from kernel import metrics

CALLS = metrics.counter(
    "gateway_agent_calls",
    "Operations called by agents, by protocol (a2a, mcp), operation (unknown for a name the "
    "gateway has not) and outcome: ok, invalid, not_found, throttled, unavailable, refused, "
    "error.",
    ("protocol", "operation", "outcome"),
)
CALL_DURATION = metrics.histogram(
    "gateway_agent_call_duration_seconds",
    "Seconds one operation called by an agent took.",
    metrics.GEN_AI_DURATION_BUCKETS,
    ("protocol", "operation"),
)
OUTCOMES = {400: "invalid", 413: "invalid", 422: "invalid", 404: "not_found", 429: "throttled"}


def outcome_of(reply: Reply) -> str:
    if reply.ok:
        return "ok"
    if reply.status in OUTCOMES:
        return OUTCOMES[reply.status]
    if reply.status == 503:
        return "unavailable"
    return "refused" if reply.status < 500 else "error"


def known(name: str) -> str:
    """What metrics and traces call the operation `name` an agent asked for: its name, or
    `unknown` for one the gateway has not (an agent chooses the name: no label or span may
    take any name it sends)."""
    return name if name in OPERATIONS or name in UCP_TOOLS else UNKNOWN


UNKNOWN = "unknown"


async def measured(protocol: str, name: str, call: Awaitable[Reply]) -> Reply:
    """The reply of `call`, the operation `name` an agent called through `protocol`, counted."""
    started = time.perf_counter()
    reply = await call
    operation = known(name)
    CALLS.labels(protocol, operation, outcome_of(reply)).inc()
    CALL_DURATION.labels(protocol, operation).observe(metrics.since(started))
    return reply
