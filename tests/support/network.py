"""Loopback ports for servers the tests start, and the HTTP server of those that answer in the
test's own process (a merchant's endpoint, a trace collector)."""

import contextlib
import os
import random
import socket
import subprocess
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Generic, TypeVar

Owner = TypeVar("Owner")


# Ports for the servers tests start lie below the range the kernel hands out to outgoing
# connections: a port taken from that range (a bind to port 0) may be taken again, as the own
# port of some connection, before the server started on it binds it ("Address already in use").
# Each parallel test worker (pytest-xdist's gwN) has a band of its own, walked in turn.
_LOWEST, _BAND = 10_000, 2_500
_last: list[int] = []


def _outgoing_from() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768  # Linux's default


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking): in this test
    worker's band below the outgoing connections' range, else (a machine whose range leaves
    no room) one the kernel picks."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    start = _LOWEST + (int(worker) % 8 if worker.isdigit() else 0) * _BAND
    if start + _BAND <= _outgoing_from():
        port = _last[-1] if _last else start + random.randrange(_BAND)
        for _ in range(_BAND):
            port = start + (port + 1 - start) % _BAND
            with socket.socket() as sock, contextlib.suppress(OSError):
                sock.bind(("127.0.0.1", port))
                _last[:] = [port]
                return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a server the test started: asked to (SIGTERM), then killed if it still runs 20 s on."""
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


class LoopbackServer(ThreadingHTTPServer, Generic[Owner]):
    """An HTTP server on 127.0.0.1, on a port the system hands out, each request on a daemon
    thread; its handler finds what it serves as `server.owner`."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler], owner: Owner) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.owner = owner

    @property
    def url_root(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


def reply(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str) -> None:
    """Answer the handler's request: `status`, then `body` of `content_type`."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
