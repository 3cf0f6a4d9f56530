"""The web role's worker (`--worker-class gateway.web_worker.GatewayWorker`): uvicorn_worker's
uvicorn worker, whose HTTP protocol also bounds what a client can hold of a worker.

uvicorn reads a request's head with httptools and bounds none of it: a client could keep any
number of connections open without ever finishing a request, trickle a header for ever, or send
a 100 KB header field and 500 fields, and each was held or served. This protocol keeps
gunicorn's own settings for it (gateway/web_config.py sets them from the environment; on the
command line they are gunicorn's flags), and adds what uvicorn lacks: read timeouts for a head
and a body, and a share of the connections per client:

- `worker_connections` (WEB_MAX_CONNECTIONS): a connection opened while that many are open in
  the worker is answered 503 at once and closed, before anything of it is read;
- a client (an address; an IPv6 /64, what one host is usually given) holds at most
  PER_CLIENT (WEB_MAX_CONNECTIONS_PER_CLIENT) of them: one more is answered 429 at once and
  closed, before anything of it is read, so that one client cannot take the worker's places;
- a connection must bring a whole request head within HEADER_TIMEOUT_S (WEB_HEADER_TIMEOUT_S)
  of opening, or of its request's first byte: else it is closed (with a 408 once a request
  began);
- a request must bring its whole body within BODY_TIMEOUT_S (WEB_BODY_TIMEOUT_S) of its head
  ending: else it is answered 408 and closed (Django reads a body whole before it dispatches,
  so a body declared and never sent held the connection, and its place, for ever);
- a request pipelined behind one still being answered has its deadlines from its turn on:
  uvicorn reads nothing more of the connection until then;
- between requests, `keepalive` (WEB_KEEPALIVE_S) bounds an idle connection (uvicorn's own
  keep-alive timeout);
- a request target over `limit_request_line` bytes is answered 414, a header field (name and
  value) over `limit_request_field_size` bytes or more than `limit_request_fields` fields 431,
  and the connection is closed. A line still arriving is refused once it passes the larger
  bound, so a trickled head never holds more than the bounds.

These bounds are for a role that clients reach themselves: `make run`, or any deployment without
a proxy in front (WEB_CLIENT_BOUNDS=true, the default). Behind nginx (ops/nginx/gateway.conf),
which bounds each client itself, WEB_CLIENT_BOUNDS=false leaves uvicorn's own protocol in place:
every connection then comes from the proxy, which this protocol would count as one client and
refuse past a client's share (docs/serving.md#which-deployment-bounds-clients-where).

It overrides parts of uvicorn's HttpToolsProtocol that are no documented interface (the parser
callbacks, `send_400_response`, through which uvicorn answers a parser error, a refusal here
included, and `on_response_complete`, where a pipelined request's turn comes) and reads some of
its state (`client`, `connections`, `pipeline`, and the cycle's `response_started`,
`response_complete` and `more_body`):
tests/gateway/test_connections.py drives each bound through a real server: it is the canary
that fails on the upgrade of uvicorn (or uvicorn_worker) that changes them.
"""

import asyncio
import logging
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn_worker import UvicornWorker

from gateway import web_config
from kernel.clients import client_network

logger = logging.getLogger("uvicorn.error")


@dataclass(frozen=True)
class Limits:
    connections: int
    per_client: int
    header_timeout_s: float
    body_timeout_s: float
    request_line: int
    field_size: int
    fields: int


class Refused(Exception):
    """A request head past a bound (what the parser callback raises to stop the parser)."""


class GatewayHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the bounds of this module's docstring."""

    limits = Limits(1000, 100, 10.0, 30.0, 65_536, 8190, 100)  # the worker sets its own
    # Connections open a client, in this worker's process (it serves one worker).
    held: Counter[str] = Counter()
    warned: set[str] = set()  # clients refused since they last held none

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timer: asyncio.TimerHandle | None = None  # the head's or the body's deadline
        self.holder: str | None = None  # the client this connection is counted against
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
        holder = client_of(self.client)
        if holder is not None and self.held[holder] >= self.limits.per_client:
            if holder not in self.warned:  # once while it holds them: a flood writes one line
                self.warned.add(holder)
                logger.warning("Refused connections: %d open from one client.", self.held[holder])
            self.answer(429, "Too many connections from your address.")
            return
        if holder is not None:
            self.held[holder] += 1
            self.holder = holder
        self.arm(self.limits.header_timeout_s, self.head_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        if self.holder is not None:
            self.held[self.holder] -= 1
            if not self.held[self.holder]:
                del self.held[self.holder]
                self.warned.discard(self.holder)
            self.holder = None
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
        self.watch()

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
        super().on_headers_complete()
        # A request without a body completes at once (on_message_complete disarms it again); a
        # connection upgraded to another protocol has left the server's connections.
        if self in self.connections and not self.transport.is_closing():
            self.watch()
        else:
            self.disarm()

    def on_message_complete(self) -> None:
        self.disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # the next pipelined request, if any, is served now
        if self.timer is None and not self.transport.is_closing():
            self.watch()

    def watch(self) -> None:
        """Arm the deadline of what the connection is reading: a request's head, or its body
        once its head is in; none while it waits behind an earlier request still being
        answered (pipelined: uvicorn stops reading, and the deadline starts when its turn
        comes, `on_response_complete`), as the earlier one's time is not the client's."""
        cycle = self.cycle
        if self.pipeline or (self.head_open and cycle is not None and not cycle.response_complete):
            self.disarm()
        elif self.head_open:
            self.arm(self.limits.header_timeout_s, self.head_timed_out)
        elif cycle is not None and cycle.more_body and not cycle.response_complete:
            self.arm(self.limits.body_timeout_s, self.body_timed_out)

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
        self.disarm()
        self.transport.write(b"".join([*head, body]))
        self.transport.close()

    def arm(self, seconds: float, timed_out: Callable[[], None]) -> None:
        self.disarm()
        self.timer = self.loop.call_later(seconds, timed_out)

    def disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def body_timed_out(self) -> None:
        self.timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and self.cycle.response_started:
            self.transport.close()  # answered without the body: too late for a 408
        else:
            # The application, waiting for the body, is told the client left as it closes.
            self.answer(408, "Request body not received in time.")

    def head_timed_out(self) -> None:
        self.timer = None
        if self.transport.is_closing():
            return
        if self.head_open:
            self.answer(408, "Request headers not received in time.")
        else:
            self.transport.close()  # nothing was asked


class GatewayWorker(UvicornWorker):
    """uvicorn_worker's worker, serving with GatewayHttpProtocol under gunicorn's settings while
    WEB_CLIENT_BOUNDS is on; with it off, uvicorn_worker's worker as it is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not web_config.CLIENT_BOUNDS:
            return
        cfg = self.cfg
        # One worker a process: the protocol's class holds the limits. gunicorn reads 0 as no
        # limit on a request line or a field.
        GatewayHttpProtocol.limits = Limits(
            connections=cfg.worker_connections,
            per_client=web_config.MAX_CONNECTIONS_PER_CLIENT,
            header_timeout_s=web_config.HEADER_TIMEOUT_S,
            body_timeout_s=web_config.BODY_TIMEOUT_S,
            request_line=cfg.limit_request_line or sys.maxsize,
            field_size=cfg.limit_request_field_size or sys.maxsize,
            fields=cfg.limit_request_fields,
        )
        self.config.http = GatewayHttpProtocol


def client_of(address: tuple[str, int] | None) -> str | None:
    """The client a connection from `address` counts against (kernel/clients.py: an IP address,
    or an IPv6 address's /64); None for a Unix socket's peer."""
    return client_network(address[0]) if address else None
