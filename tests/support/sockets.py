"""Raw connections to a web role on loopback, for the tests of what a client can hold of it
(tests/gateway/test_connections.py, test_full_worker.py, test_slow_readers.py): each from a
loopback address of its own choosing (all of 127.0.0.0/8 is loopback), so that the worker counts
each address as a client apart."""

import contextlib
import resource
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator

from tests.support.web import Answer, WebServer
from tests.support.worker import wait_until

WAIT_S = 10  # how long a test waits for the server to act: far past any lowered timeout


def connect(port: int, source: str = "127.0.0.1", timeout: float = WAIT_S) -> socket.socket:
    """A connection from the loopback address `source`."""
    sock = socket.create_connection(("127.0.0.1", port), timeout, (source, 0))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket timeout fails the
    test: the server kept the connection)."""
    received = b""
    while chunk := sock.recv(65_536):
        received += chunk
    return received


def read_response(sock: socket.socket) -> bytes:
    """One whole answer (its head, then Content-Length bytes of body), leaving the connection."""
    received = b""
    while b"\r\n\r\n" not in received:
        received += sock.recv(65_536)
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65_536)
    return head + b"\r\n\r\n" + body


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def outcome(sock: socket.socket) -> int | str:
    """The status a held connection was answered, or `reset`: refused before its request was
    read, the kernel may reset the connection rather than deliver the answer."""
    try:
        return status_of(read_until_closed(sock))
    except ConnectionResetError:
        return "reset"


def head(*lines: bytes, target: bytes = b"/healthz") -> bytes:
    """A GET request's head with `lines` among its fields."""
    return b"\r\n".join([b"GET " + target + b" HTTP/1.1", b"Host: localhost", *lines, b"", b""])


def post_head(length: int) -> bytes:
    """A POST request's head declaring a body of `length` bytes."""
    return (
        b"POST /v1/match HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % length
    )


@contextlib.contextmanager
def open_files(count: int) -> Iterator[None]:
    """Room for `count` sockets of the test's and as many of the server's (which inherits the
    limit), within the hard limit, until the block ends."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2 * count + 512:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 2 * count + 512), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def free_one_and_ask(web: WebServer, held: list[socket.socket]) -> Answer:
    """Closes one of the `held` connections, then asks until the freed place is taken again."""
    held.pop().close()
    deadline = time.monotonic() + WAIT_S
    while (answer := web.get("/healthz", timeout=WAIT_S)).status != 200:
        assert time.monotonic() < deadline, "a freed place was never taken again"
        time.sleep(0.1)
    return answer


class Flood:
    """`per_address` connections from each of `addresses`, each sending `sent` (nothing, or half
    a request's head) and no more, each opened again as soon as the server closes it, until the
    block ends."""

    def __init__(
        self, port: int, addresses: list[str], per_address: int, sent: bytes = b""
    ) -> None:
        self.port, self.addresses, self.per_address = port, addresses, per_address
        self.sent = sent
        self.selector = selectors.DefaultSelector()
        self.reopen: deque[str] = deque()
        self.opened = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open(self, address: str) -> None:
        try:
            sock = connect(self.port, source=address, timeout=5)
        except OSError:
            self.reopen.append(address)  # refused on the way in: again later
            return
        if self.sent:
            with contextlib.suppress(OSError):  # refused at once: read as closed below
                sock.sendall(self.sent)
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ, address)
        self.opened += 1

    def run(self) -> None:
        for address in self.addresses:
            for _ in range(self.per_address):
                self.open(address)
        while not self.stopping.is_set():
            for key, _events in self.selector.select(timeout=0.05):
                sock, address = key.fileobj, key.data
                assert isinstance(sock, socket.socket)
                with contextlib.suppress(OSError):
                    if sock.recv(65_536):
                        continue  # an answer's bytes: the close comes next
                self.selector.unregister(sock)
                sock.close()
                self.reopen.append(address)
            for _ in range(len(self.reopen)):
                self.open(self.reopen.popleft())

    def __enter__(self) -> "Flood":
        self.thread.start()
        wait_until(
            lambda: self.opened >= len(self.addresses) * self.per_address,
            timeout=60,
            what="the flood's connections",
        )
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.thread.join(timeout=WAIT_S)
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()
