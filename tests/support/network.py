"""Loopback ports for servers the tests start, and the HTTP server of those that answer in the
test's own process (a merchant's endpoint, a trace collector)."""

import socket
import subprocess
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Generic, TypeVar

Owner = TypeVar("Owner")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
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
