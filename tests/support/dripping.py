"""A peer on loopback that drips its answer a byte every DRIP_S, for as long as it is let: the
TLS handshake (bytes that never make one), the response head, or the body after a whole head.
Each byte comes well within any socket timeout, so only a deadline on the whole connection ends
it. How many connections it holds at a time tells whether the gateway gave up on them."""

import socket
import socketserver
import threading
from typing import Literal

Part = Literal["handshake", "head", "body"]
DRIP_S = 0.2


class _Handler(socketserver.BaseRequestHandler):
    server: "_Server"

    def handle(self) -> None:
        dripping = self.server.owner
        sock: socket.socket = self.request
        with dripping.lock:
            dripping.open += 1
            dripping.served += 1
        try:
            if dripping.part != "handshake":
                sock.recv(65_536)  # the request's head (one write of a small GET or POST)
            if dripping.part == "body":
                sock.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000\r\n\r\n"
                )
            elif dripping.part == "head":
                sock.sendall(b"HTTP/1.1 200 OK\r\nX-Dripping: ")
            else:  # a TLS record of the handshake, 16 KB long, whose bytes never all come
                sock.sendall(b"\x16\x03\x03\x40\x00")
            while not dripping.over.wait(DRIP_S):
                sock.sendall(b"\x00" if dripping.part == "handshake" else b"a")
        except OSError:
            pass  # the gateway gave up: what this is for
        finally:
            with dripping.lock:
                dripping.open -= 1


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: "Dripping") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner = owner


class Dripping:
    """A dripping peer until the block ends: `url(scheme)` reaches it."""

    def __init__(self, part: Part) -> None:
        self.part = part
        self.over = threading.Event()
        self.lock = threading.Lock()
        self.open = 0  # connections it is dripping to now
        self.served = 0  # connections it was asked for, in all
        self.server = _Server(self)

    def url(self, scheme: str = "http", path: str = "/") -> str:
        return f"{scheme}://127.0.0.1:{self.server.server_address[1]}{path}"

    def __enter__(self) -> "Dripping":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.over.set()
        self.server.shutdown()
        self.server.server_close()
