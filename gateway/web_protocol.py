"""The web role's HTTP protocol while WEB_CLIENT_BOUNDS is on (gateway/web_worker.py): uvicorn's
httptools protocol, bounding what a client can hold of a worker, with a deadline on every wait.

uvicorn reads a request's head with httptools and bounds none of it: a client could keep any
number of connections open without ever finishing a request, trickle a header for ever, send a
100 KB header field and 500 fields, or pipeline requests for large answers and never read them,
and each was held or served. This protocol keeps gunicorn's own settings for it
(gateway/web_config.py sets them from the environment; on the command line they are gunicorn's
flags), and adds what uvicorn lacks:

- `worker_connections` (WEB_MAX_CONNECTIONS): a worker that holds that many makes room for a
  newcomer by closing an idle connection of the client holding the most (gateway/web_clients.py);
  when none is idle, the newcomer is answered 503 at once, naming why, and closed;
- a client (an address; an IPv6 /64, kernel/clients.py) holds at most its share
  (WEB_MAX_CONNECTIONS_PER_CLIENT): one more is answered 429 at once and closed, before anything
  of it is read;
- a connection must bring a whole request head within WEB_HEADER_TIMEOUT_S of opening, or of
  its request's first byte: else it is closed (with a 408 once a request began);
- a request must bring its whole body within WEB_BODY_TIMEOUT_S of its head ending: else it is
  answered 408 and closed (Django reads a body whole before it dispatches, so a body declared
  and never sent held the connection, and its place, for ever);
- an answer's bytes must be taken by the client: what the kernel cannot take yet waits in the
  worker, and once any does, the answer's writer waits (the transport's high-water mark is 0,
  so at most one write of it is buffered, 64 KB of Django's); if the client takes none of what
  was written (the worker's and the kernel's) within WEB_SEND_TIMEOUT_S, and again within each
  such period after, the connection is dropped and what was buffered for it freed;
- at most MAX_PIPELINED requests wait behind the one being answered: a client that sends more
  at once, without reading, is dropped (uvicorn parses everything that arrived, however much);
- a request pipelined behind one still being answered has its deadlines from its turn on;
- between requests, `keepalive` (WEB_KEEPALIVE_S) bounds an idle connection (uvicorn's own);
- a request target over `limit_request_line` bytes is answered 414, a header field (name and
  value) over `limit_request_field_size` bytes or more than `limit_request_fields` fields 431,
  and the connection is closed. A line still arriving is refused once it passes the larger
  bound, so a trickled head never holds more than the bounds.

Refusals are written to the log at most once a second (gateway/web_refusals.py).

It overrides parts of uvicorn's HttpToolsProtocol that are no documented interface (the parser
callbacks, `send_400_response`, through which uvicorn answers a parser error, a refusal here
included, `on_response_complete`, where a pipelined request's turn comes, and the transport's
flow control callbacks) and reads some of its state (`client`, `connections`, `pipeline`,
`cycle`, and the cycle's `response_started`, `response_complete`, `more_body`, `disconnected`
and `message_event`): tests/gateway/test_connections.py, test_full_worker.py and
test_slow_readers.py drive each bound through a real server: they are the canary that fails on
the upgrade of uvicorn (or uvicorn_worker) that changes them.
"""

import asyncio
import contextlib
import fcntl
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from uvicorn.protocols.http.httptools_impl import (
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)

from gateway import web_config
from gateway.web_clients import Shares, client_of
from gateway.web_refusals import RefusalLog

# Requests one connection may have waiting behind the one being answered.
MAX_PIPELINED = 32


@dataclass(frozen=True)
class Limits:
    connections: int
    per_client: int
    header_timeout_s: float
    body_timeout_s: float
    send_timeout_s: float
    request_line: int
    field_size: int
    fields: int


class Refused(Exception):
    """A request head past a bound (what the parser callback raises to stop the parser)."""


class GatewayHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the bounds of this module's docstring."""

    # The environment's bounds (gateway/web_config.py); the worker sets gunicorn's, which its
    # command-line flags may have changed.
    limits = Limits(
        connections=web_config.worker_connections,
        per_client=web_config.MAX_CONNECTIONS_PER_CLIENT,
        header_timeout_s=web_config.HEADER_TIMEOUT_S,
        body_timeout_s=web_config.BODY_TIMEOUT_S,
        send_timeout_s=web_config.SEND_TIMEOUT_S,
        request_line=web_config.limit_request_line,
        field_size=web_config.limit_request_field_size,
        fields=web_config.limit_request_fields,
    )
    # The connections of this worker's process (it serves one worker), and what it refused.
    shares = Shares()
    refusals = RefusalLog()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timer: asyncio.TimerHandle | None = None  # the head's or the body's deadline
        self.send_timer: asyncio.TimerHandle | None = None  # the deadline of bytes not taken
        self.holder: str | None = None  # the client this connection is counted against
        self.running: RequestResponseCycle | None = None  # the request being answered
        self.head_open = False  # a request's head has begun and is not complete
        self.head_fields = 0
        self.head_line = 0  # bytes of the head's line still arriving
        self.refusal: tuple[int, str] | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        transport.set_write_buffer_limits(high=0)  # an answer waits once the kernel is full
        holder = client_of(self.client)
        if holder is not None and self.shares.holds(holder) >= self.limits.per_client:
            self.answer(429, "Too many connections from your address.")
            return
        if len(self.connections) > self.limits.connections:
            idle = self.shares.room_for(holder)
            if idle is None:
                self.answer(
                    503,
                    f"The server holds all the connections it may ({self.limits.connections}) "
                    "and is answering a request on each: retry in a moment.",
                    retry_after_s=1,
                )
                return
            idle.make_room()
        if holder is not None:
            self.shares.add(holder, self)
            self.holder = holder
        self.arm(self.limits.header_timeout_s, self.head_timed_out)

    def connection_lost(self, exc: Exception | None) -> None:
        self.disarm()
        self.stop_send_timer()
        if self.holder is not None:
            self.shares.remove(self.holder, self)
            self.holder = None
        self.hang_up()
        super().connection_lost(exc)
        self.running = None
        self.pipeline.clear()  # requests never started: nothing of theirs is kept

    def idleness(self) -> int:
        """How idle the connection is, for a newcomer that needs its place: 2 when nothing is
        asked (none yet, or kept alive between requests), 1 when a request's head is still
        arriving, 0 when a request is being served (or the connection is closing)."""
        if self.transport.is_closing() or self.pipeline:
            return 0
        if self.cycle is not None and not self.cycle.response_complete:
            return 0
        return 1 if self.head_open else 2

    def make_room(self) -> None:
        """Close this idle connection for a newcomer (gateway/web_clients.py)."""
        reason = "Closed to make room for other clients: this server holds all it may."
        if self.head_open:
            self.answer(503, reason, retry_after_s=1)
        else:
            self.refusals.refused("closed an idle connection to make room for another client")
            self.disarm()
            self.transport.close()  # nothing was asked

    # --- Reading requests ----------------------------------------------------------------------

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
            self.refuse_head(431, "Request header fields too large.")

    def on_message_begin(self) -> None:
        if len(self.pipeline) >= MAX_PIPELINED:
            self.drop(f"dropped a client that sent more than {MAX_PIPELINED} requests at once")
            raise Refused("too many requests pipelined")
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
        earlier = self.cycle
        super().on_headers_complete()
        if self.cycle is not earlier and not (self.pipeline and self.pipeline[0][0] is self.cycle):
            self.running = self.cycle  # served at once, not queued behind another
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
        following = self.pipeline[-1][0] if self.pipeline else None  # uvicorn serves it next
        closing = self.transport.is_closing()
        super().on_response_complete()  # the next pipelined request, if any, is served now
        if following is not None and not closing:
            self.running = following
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

    # --- Writing answers -----------------------------------------------------------------------

    def pause_writing(self) -> None:
        """The kernel took less than was written: the client must take some of what waits
        within the send timeout, and again within each send timeout after."""
        super().pause_writing()
        if self.send_timer is None:
            self.await_progress()

    def resume_writing(self) -> None:
        super().resume_writing()
        self.stop_send_timer()

    def await_progress(self) -> None:
        seconds = self.limits.send_timeout_s
        self.send_timer = self.loop.call_later(seconds, self.send_timed_out, self.unsent())

    def unsent(self) -> int:
        """Bytes written that the client has not taken: the worker's, and the kernel's not yet
        acknowledged (the kernel lets the worker write again only once a third of its buffer
        is free: a client taking a little at a time shows there first)."""
        waiting = self.transport.get_write_buffer_size()
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            queued = bytearray(4)
            with contextlib.suppress(OSError):
                fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, queued)
                waiting += int.from_bytes(queued, sys.byteorder)
        return waiting

    def stop_send_timer(self) -> None:
        if self.send_timer is not None:
            self.send_timer.cancel()
            self.send_timer = None

    def send_timed_out(self, waiting: int) -> None:
        self.send_timer = None
        if self.unsent() < waiting:
            self.await_progress()  # a slow reader, but a reader
            return
        # Closing too: a transport closed with bytes still to write waits for them for ever.
        seconds = self.limits.send_timeout_s
        self.drop(
            f"dropped a client that took nothing of its answer in {seconds:g} s", closing=True
        )

    # --- Refusing ------------------------------------------------------------------------------

    def refuse(self, status: int, reason: str) -> NoReturn:
        """Stop the parser: uvicorn then answers through `send_400_response`, with this."""
        self.refusal = (status, reason)
        raise Refused(reason)

    def send_400_response(self, msg: str) -> None:
        status, reason = self.refusal or (400, msg)
        self.refuse_head(status, reason)

    def refuse_head(self, status: int, reason: str) -> None:
        """Refuse the request whose head is being read: answered, unless an earlier request of
        the connection is still being answered (the head was pipelined behind it), whose
        answer a refusal would break into or stand for: then dropped."""
        running = self.running
        if running is not None and not running.response_complete:
            self.drop(f"dropped a client whose pipelined request was refused ({status} {reason})")
        else:
            self.answer(status, reason)

    def answer(self, status: int, reason: str, retry_after_s: int | None = None) -> None:
        """Answer `status` in plain text and close the connection."""
        if self.transport.is_closing():
            return
        self.refusals.refused(f"answered {status} ({reason})")
        body = reason.encode("ascii")
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        if retry_after_s is not None:
            head.append(b"retry-after: %d\r\n" % retry_after_s)
        head += [
            b"content-type: text/plain; charset=utf-8\r\n",
            b"content-length: %d\r\nconnection: close\r\n\r\n" % len(body),
        ]
        self.disarm()
        self.transport.write(b"".join([*head, body]))
        self.hang_up()
        self.transport.close()

    def drop(self, reason: str, *, closing: bool = False) -> None:
        """Close the connection at once, without an answer, dropping what was buffered for it;
        one being closed already only if `closing`."""
        if self.transport.is_closing() and not closing:
            return
        self.refusals.refused(reason)
        self.disarm()
        self.hang_up()
        self.transport.abort()

    def hang_up(self) -> None:
        """Tell every request of the connection the client is gone: the one being answered and
        those waiting behind it. uvicorn tells only the last one parsed, and the one being
        answered would write on to a closed transport (an error with a traceback)."""
        cycles = [self.running, self.cycle, *(cycle for cycle, _app in self.pipeline)]
        for cycle in cycles:
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True
                cycle.message_event.set()

    # --- Deadlines -----------------------------------------------------------------------------

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
