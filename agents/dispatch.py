"""Operations called through the REST API in process: an ASGI request made here, answered by
the gateway's own handler, never touching the network.

The request carries the agent's own address, host and forwarding headers (the `Caller` of the
A2A or MCP request that asked for it), so throttles count the agent as the REST API would count
it, and links in the answer (buy links, the contract's URLs) are the ones the REST API serves.
"""

import asyncio
import contextvars
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from starlette.types import Message, Scope

# The REST API's ASGI handler (gateway.asgi.GatewayHandler): any ASGI callable.
ASGIApp = Callable[..., Awaitable[None]]

# Headers of the agent's request that the REST request keeps: who it is and how it got here.
KEPT_HEADERS = frozenset({b"host", b"x-forwarded-for", b"x-forwarded-proto", b"user-agent"})


@dataclass(frozen=True)
class Caller:
    """Where an agent's request came from: the parts of its ASGI scope a REST request keeps."""

    scheme: str
    client: tuple[str, int] | None
    server: tuple[str, int | None] | None
    headers: tuple[tuple[bytes, bytes], ...]

    @classmethod
    def of(cls, scope: Scope) -> "Caller":
        headers = tuple((name, value) for name, value in scope["headers"] if name in KEPT_HEADERS)
        return cls(scope.get("scheme", "http"), scope.get("client"), scope.get("server"), headers)


# The caller of the agent request being served (set by agents/asgi.py around each request).
current_caller: contextvars.ContextVar[Caller] = contextvars.ContextVar("agents_caller")


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any  # the JSON the REST API answered
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class Dispatcher:
    """Calls the REST API through `rest`, the gateway's ASGI handler for Django."""

    def __init__(self, rest: ASGIApp) -> None:
        self.rest = rest

    async def call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
    ) -> Reply:
        caller = current_caller.get()
        content = b"" if body is None else orjson.dumps(body)
        headers = [
            *caller.headers,
            (b"accept", b"application/json"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(content)).encode()),
        ]
        scope: Scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": caller.scheme,
            "path": path,
            "raw_path": path.encode(),
            "query_string": urlencode(_query_values(query or {}), doseq=True).encode(),
            "root_path": "",
            "headers": headers,
            "client": caller.client,
            "server": caller.server,
        }
        sent: list[Message] = []
        pending: list[Message] = [{"type": "http.request", "body": content, "more_body": False}]

        finished = asyncio.Event()

        async def receive() -> Message:
            # The body, then nothing until the answer is sent: this client never goes away
            # mid-request (Django listens for a disconnect while a coroutine view runs).
            if pending:
                return pending.pop()
            await finished.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            sent.append(message)

        try:
            await self.rest(scope, receive, send)
        finally:
            finished.set()
        start = sent[0]
        assert start["type"] == "http.response.start", start
        raw = b"".join(message.get("body", b"") for message in sent[1:])
        response_headers = {
            name.decode("latin-1").lower(): value.decode("latin-1")
            for name, value in start.get("headers", [])
        }
        return Reply(start["status"], orjson.loads(raw) if raw else None, response_headers)


def _query_values(query: Mapping[str, Any]) -> dict[str, Any]:
    """Query arguments as the REST API reads them: JSON booleans as `true`/`false`."""
    return {
        name: ("true" if value else "false") if isinstance(value, bool) else value
        for name, value in query.items()
        if value is not None
    }


def filled(template: str, values: Mapping[str, str]) -> str:
    """The path `template` (`/v1/cards/{recId}`) with each parameter's value, escaped whole."""
    path = template
    for name, value in values.items():
        path = path.replace("{" + name + "}", quote(value, safe=""))
    return path
