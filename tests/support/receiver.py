"""A merchant agent on loopback: a real HTTP server that records what it receives and answers
from a script (2xx, 500, a redirect, 410, a hang, a huge body...), and proves it owns its
endpoint by echoing the challenge of endpoint.verification events (kept apart, in
`verifications`).

    with Receiver() as merchant:
        merchant.script("500", "200")
        ...
        merchant.wait_for(2)
"""

import contextlib
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any

import orjson

from tests.support.network import LoopbackServer, reply

HUGE_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)  # when it arrived

    def json(self) -> Any:
        return orjson.loads(self.body)


class _Handler(BaseHTTPRequestHandler):
    server: "LoopbackServer[Receiver]"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        receiver = self.server.owner
        if receiver.verification(body, {k.lower(): v for k, v in self.headers.items()}, self):
            return
        step = receiver.next_step()
        receiver.record(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        kind, _, arg = step.partition(":")
        if kind == "hang":  # accept, then answer nothing until released or `arg` seconds pass
            with receiver.holding():
                receiver.release.wait(float(arg or 30))
            return
        if kind == "redirect":
            self.send_response(302)
            self.send_header("Location", f"{receiver.url_root}/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "huge":  # a 200 announcing 50 MB, of which only the first 64 KB ever come
            self.send_response(200)
            self.send_header("Content-Length", str(HUGE_BYTES))
            self.end_headers()
            self.wfile.write(b"x" * 65536)
            self.wfile.flush()
            receiver.release.wait(30)  # a client that reads the whole body waits here
            return
        if kind == "short":  # a 200 whose body breaks off before its announced length
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"ok": tr')
            self.wfile.flush()
            self.close_connection = True
            return
        if kind == "slow":  # a 200, after `arg` seconds
            time.sleep(float(arg or 1))
            kind = "200"
        if kind == "drip":  # the status line, then a header a byte at a time, each in time
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            for _ in range(40):
                if receiver.release.wait(0.25):
                    break
                self.wfile.write(b"z")
                self.wfile.flush()
            self.wfile.write(b"\r\nContent-Length: 0\r\n\r\n")
            return
        payload = receiver.answer_body
        reply(self, int(kind), payload, "application/json")


class Receiver:
    """A scripted merchant endpoint at `url` (http://127.0.0.1:<port>/hook)."""

    def __init__(self) -> None:
        self._server = LoopbackServer(_Handler, self)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._steps: deque[str] = deque()
        self._lock = threading.Condition()
        self.received: list[Received] = []
        self.release = threading.Event()
        self.answer_body = b'{"ok": true}'
        self.default = "200"  # the answer once the script is used up
        # endpoint.verification events are kept apart from the other requests, and answered as
        # an endpoint's owner answers them (the challenge echoed) unless `echo_challenges` is off.
        self.verifications: list[Received] = []
        self.echo_challenges = True
        self.held = 0  # hanging requests held open right now
        self.most_held = 0  # and the most at any moment
        self.url_root = self._server.url_root
        self.url = f"{self.url_root}/hook"

    def __enter__(self) -> "Receiver":
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    def verification(self, body: bytes, headers: dict[str, str], handler: Any) -> bool:
        """Answer an endpoint.verification event; False for any other request."""
        try:
            event = orjson.loads(body)
        except orjson.JSONDecodeError:
            return False
        if not isinstance(event, dict) or event.get("type") != "endpoint.verification":
            return False
        self.record(Received(handler.path, headers, body), verification=True)
        challenge = event.get("data", {}).get("challenge") if self.echo_challenges else None
        payload = orjson.dumps({"challenge": challenge} if challenge else {"ok": True})
        reply(handler, 200, payload, "application/json")
        return True

    def script(self, *steps: str) -> None:
        """Answers for the next requests, in order: a status code ("200", "500", "410"),
        "redirect", "hang" or "hang:<seconds>", "slow:<seconds>", "huge", "short", "drip".
        After the script: `default` (200 unless set)."""
        self._steps.extend(steps)

    def next_step(self) -> str:
        with self._lock:
            return self._steps.popleft() if self._steps else self.default

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        with self._lock:
            self.held += 1
            self.most_held = max(self.most_held, self.held)
        try:
            yield
        finally:
            with self._lock:
                self.held -= 1

    def record(self, received: Received, *, verification: bool = False) -> None:
        with self._lock:
            (self.verifications if verification else self.received).append(received)
            self._lock.notify_all()

    def wait_for_verifications(self, count: int, timeout: float = 20) -> list[Received]:
        """The endpoint.verification events received once there are at least `count`."""
        return self._wait(self.verifications, count, timeout, "verifications")

    def wait_for(self, count: int, timeout: float = 20) -> list[Received]:
        """The received requests once there are at least `count`; fails after `timeout`."""
        return self._wait(self.received, count, timeout, "requests")

    def _wait(self, kept: list[Received], count: int, timeout: float, what: str) -> list[Received]:
        deadline = time.monotonic() + timeout
        with self._lock:
            while len(kept) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"received {len(kept)} of {count} {what} in time"
                self._lock.wait(left)
            return list(kept)
