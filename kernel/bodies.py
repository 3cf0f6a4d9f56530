"""Request bodies read off ASGI before any framework sees them: refused as soon as they outgrow
the limit (Django's own reader would spool a body of any size to disk before anything looked at
its length; the A2A SDK's routes would read it whole), then replayed to the application."""

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Any]]


class Aborted(Exception):
    """The client went away before its request body arrived."""


class TooLarge(Exception):
    """The request body is larger than the limit."""


async def read_body(receive: Receive, limit: int | None) -> bytes:
    """The whole request body. Raises TooLarge past `limit` bytes, Aborted on a disconnect."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Aborted
        chunk = message.get("body", b"")
        size += len(chunk)
        if limit is not None and size > limit:
            raise TooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes, receive: Receive) -> Receive:
    """`receive` as the application reads it: the body already read, then the client's own
    messages (a disconnect)."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed


def with_length(scope: MutableMapping[str, Any], body: bytes) -> MutableMapping[str, Any]:
    """`scope` whose headers state the body's true length: a chunked body (no Content-Length)
    is read whole here, and Django reads as much of a body as its Content-Length says."""
    headers = [
        (name, value)
        for name, value in scope["headers"]
        if name not in (b"content-length", b"transfer-encoding")
    ]
    headers.append((b"content-length", str(len(body)).encode()))
    return {**scope, "headers": headers}
