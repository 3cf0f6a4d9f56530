"""What one client can hold of a web worker (gateway/web_worker.py, gateway/web_config.py),
through the Procfile's `web` role on loopback and raw sockets: a head must arrive whole within
the header timeout, an idle connection is closed, oversized or overlong heads are refused, and
connections past the limit are turned away; and the role names the address it listens at as it
starts. The timeouts are lowered through the server's
environment; every wait below is a bound, never a measurement."""

import contextlib
import socket
import time
from collections.abc import Iterator

import pytest

from tests.support.web import WebServer

pytestmark = pytest.mark.django_db(transaction=True)

HEADER_TIMEOUT_S = 1
KEEPALIVE_S = 1
WAIT_S = 10  # far past either timeout: how long a test waits for the server to act


@pytest.fixture(scope="module")
def web(tmp_path_factory, django_db_setup, django_db_blocker) -> Iterator[WebServer]:
    env = {"WEB_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT_S), "WEB_KEEPALIVE_S": str(KEEPALIVE_S)}
    with django_db_blocker.unblock(), WebServer(tmp_path_factory.mktemp("web"), env=env) as server:
        yield server


def connect(web: WebServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", web.port), timeout=WAIT_S)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket timeout, past
    WAIT_S, fails the test: the server kept the connection)."""
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


def head(*lines: bytes) -> bytes:
    return b"\r\n".join([b"GET /healthz HTTP/1.1", b"Host: localhost", *lines, b"", b""])


def test_a_client_that_trickles_its_headers_is_disconnected_within_the_header_timeout(web):
    sock = connect(web)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
    deadline = time.monotonic() + WAIT_S
    answer = b""
    with sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the server closed it
            while time.monotonic() < deadline:  # a byte every 0.2 s, never the end of the head
                sock.sendall(b"a")
                time.sleep(0.2)
        assert time.monotonic() < deadline, "the trickling client was never disconnected"
        with contextlib.suppress(ConnectionResetError):
            answer = read_until_closed(sock)

    assert answer == b"" or status_of(answer) == 408


def test_a_connection_that_sends_nothing_is_closed_within_the_header_timeout(web):
    with connect(web) as sock:
        assert read_until_closed(sock) == b""


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(web):
    with connect(web) as sock:
        sock.sendall(head())
        answer = read_until_closed(sock)  # the answer, then the close once it idled

    assert status_of(answer) == 200
    assert b"connection: close" not in answer.lower()  # it was kept alive, then closed


def test_a_connection_kept_alive_serves_another_request_within_the_idle_timeout(web):
    with connect(web) as sock:
        sock.sendall(head())
        first = read_response(sock)
        sock.sendall(head(b"Connection: close"))
        second = read_until_closed(sock)

    assert (status_of(first), status_of(second)) == (200, 200)


@pytest.mark.parametrize(
    ("lines", "status"),
    [
        ([b"X-Big: " + b"a" * 100_000], 431),  # a 100 KB header field
        ([b"X-%d: a" % n for n in range(500)], 431),  # 500 header fields
        ([b"X-Big: " + b"a" * 8000], 200),  # within 8,190 bytes a field
        ([b"X-%d: a" % n for n in range(98)], 200),  # with Host and Connection, 100 fields
    ],
)
def test_heads_past_the_bounds_are_refused_and_the_connection_closed(web, lines, status):
    with connect(web) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # refused on the way
            sock.sendall(head(*lines, b"Connection: close") if status == 200 else head(*lines))
        answer = read_until_closed(sock)

    assert status_of(answer) == status


def test_a_header_trickled_past_its_bound_is_refused_before_it_ends(web):
    sent = 0
    with connect(web) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ")
        try:
            for _ in range(200):  # 3.2 MB, unless refused on the way
                sock.sendall(b"a" * 16_384)
                sent += 16_384
                time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            answer = read_until_closed(sock)
        except ConnectionResetError:
            answer = b"reset"

    assert sent < 200 * 16_384  # refused as it arrived
    assert answer == b"reset" or status_of(answer) == 431


def test_a_request_target_past_its_bound_is_refused(web):
    with connect(web) as sock:
        sock.sendall(
            b"GET /v1/cards/rec_" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        answer = read_until_closed(sock)

    assert status_of(answer) == 414


def test_connections_past_the_limit_are_refused_at_once(tmp_path, django_db_blocker):
    limit = 4
    env = {"WEB_MAX_CONNECTIONS": str(limit), "WEB_HEADER_TIMEOUT_S": "60"}
    with django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        held = [connect(web) for _ in range(limit)]
        try:
            # The worker accepts them as they come: a connection past them is answered 503
            # before it asks anything, and closed.
            with connect(web) as extra:
                refused = read_until_closed(extra)
            held.pop().close()
            deadline = time.monotonic() + WAIT_S
            while (answer := web.get("/healthz", timeout=WAIT_S)).status != 200:
                assert time.monotonic() < deadline, "a freed place was never taken again"
                time.sleep(0.1)
        finally:
            for sock in held:
                sock.close()

    assert status_of(refused) == 503
    assert b"Too many connections." in refused
    assert answer.status == 200


def test_the_web_role_names_the_address_it_listens_at_and_starts_quietly(web):
    log = web.log()

    assert f"Listening at: http://127.0.0.1:{web.port} (" in log
    assert "Listening at:  (" not in log  # gunicorn's own line names no address (--reuse-port)
    assert "StreamableHTTP session manager started" not in log
    assert "ERROR" not in log
