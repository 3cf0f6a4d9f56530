"""The web role's worker (`--worker-class gateway.web_worker.GatewayWorker`): uvicorn_worker's
uvicorn worker, whose HTTP protocol also bounds what a client can hold of a worker.

uvicorn reads a request's head with httptools and bounds none of it: a client could keep any
number of connections open without ever finishing a request, trickle a header for ever, or send
a 100 KB header field and 500 fields, and each was held or served. This protocol keeps
gunicorn's own settings for it (gateway/web_config.py sets them from the environment; on the
command line they are gunicorn's flags), and adds the header read timeout that uvicorn lacks:

- `worker_connections` (WEB_MAX_CONNECTIONS): a connection opened while that many are open in
  the worker is answered 503 at once and closed, before anything of it is read;
- a connection must bring a whole request head within HEADER_TIMEOUT_S (WEB_HEADER_TIMEOUT_S)
  of opening, or of its request's first byte: else it is closed (with a 408 once a request
  began);
- between requests, `keepalive` (WEB_KEEPALIVE_S) bounds an idle connection (uvicorn's own
  keep-alive timeout);
- a request target over `limit_request_line` bytes is answered 414, a header field (name and
  value) over `limit_request_field_size` bytes or more than `limit_request_fields` fields 431,
  and the connection is closed. A line still arriving is refused once it passes the larger
  bound, so a trickled head never holds more than the bounds.

It overrides parts of uvicorn's HttpToolsProtocol that are no documented interface (the parser
callbacks, and `send_400_response`, through which uvicorn answers a parser error, a refusal
here included): tests/gateway/test_connections.py drives each bound through a real server, so
an upgrade of uvicorn that changes them fails there.
"""

import asyncio
import logging
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn_worker import UvicornWorker

from gateway import web_config

logger = logging.getLogger("uvicorn.error")


@dataclass(frozen=True)
class Limits:
    connections: int
    header_timeout_s: float
    request_line: int
    field_size: int
    fields: int


class Refused(Exception):
    """A request head past a bound (what the parser callback raises to stop the parser)."""


class GatewayHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the bounds of this module's docstring."""

    limits = Limits(1000, 10.0, 65_536, 8190, 100)  # the worker sets the configured ones

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.head_timer: asyncio.TimerHandle | None = None
        self.head_open = False  # a request's head has begun and is not complete
        self.head_fields = 0
        self.head_line = 0  # bytes of the head's line still arriving
        self.refusal: tuple[int, str] | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.limits.connections:
            logger.warning("Refused a connection: %d open.", self.limits.connections)
            self.answer(503, "Too many connections.")
            return
        self.arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        carried = self.head_open  # this data continues a head begun before it
        super().data_received(data)
        if not self.head_open or self.transport.is_closing():
            return
        newline = data.rfind(b"\n")
        if newline >= 0:
            self.head_line = len(data) - newline - 1
        elif carried:
            self.head_line += len(data)
        if self.head_line > max(self.limits.request_line, self.limits.field_size):
            self.answer(431, "Request header fields too large.")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.head_open, self.head_fields, self.head_line = True, 0, 0
        self.arm_head_timer()

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > self.limits.request_line:
            self.refuse(414, "Request target too long.")

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_fields += 1
        if self.head_fields > self.limits.fields:
            self.refuse(431, "Too many request header fields.")
        if len(name) + 2 + len(value) > self.limits.field_size:
            self.refuse(431, "Request header field too large.")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self.head_open = False
        self.disarm_head_timer()
        super().on_headers_complete()

    def refuse(self, status: int, reason: str) -> NoReturn:
        """Stop the parser: uvicorn then answers through `send_400_response`, with this."""
        self.refusal = (status, reason)
        raise Refused(reason)

    def send_400_response(self, msg: str) -> None:
        status, reason = self.refusal or (400, msg)
        self.answer(status, reason)

    def answer(self, status: int, reason: str) -> None:
        """Answer `status` in plain text and close the connection."""
        body = reason.encode("ascii")
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body),
        ]
        self.disarm_head_timer()
        self.transport.write(b"".join([*head, body]))
        self.transport.close()

    def arm_head_timer(self) -> None:
        self.disarm_head_timer()
        self.head_timer = self.loop.call_later(self.limits.header_timeout_s, self.head_timed_out)

    def disarm_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def head_timed_out(self) -> None:
        self.head_timer = None
        if self.transport.is_closing():
            return
        if self.head_open:
            self.answer(408, "Request headers not received in time.")
        else:
            self.transport.close()  # nothing was asked


class GatewayWorker(UvicornWorker):
    """uvicorn_worker's worker, serving with GatewayHttpProtocol under gunicorn's settings."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cfg = self.cfg
        # One worker a process: the protocol's class holds the limits. gunicorn reads 0 as no
        # limit on a request line or a field.
        GatewayHttpProtocol.limits = Limits(
            connections=cfg.worker_connections,
            header_timeout_s=web_config.HEADER_TIMEOUT_S,
            request_line=cfg.limit_request_line or sys.maxsize,
            field_size=cfg.limit_request_field_size or sys.maxsize,
            fields=cfg.limit_request_fields,
        )
        self.config.http = GatewayHttpProtocol
