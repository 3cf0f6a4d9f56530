"""What one client can hold of a web worker (gateway/web_protocol.py, gateway/web_config.py),
through the Procfile's `web` role on loopback and raw sockets: a head must arrive whole within
the header timeout and a body within the body timeout, an idle connection is closed, oversized or
overlong heads are refused, and connections past a client's share are turned away; and the role
names the address it listens at as it starts. A full worker: tests/gateway/test_full_worker.py;
clients that do not read their answers: tests/gateway/test_slow_readers.py. The timeouts are
lowered through the server's environment; every wait below is a bound, never a measurement.

These tests are the canary of the worker's overrides of uvicorn's HttpToolsProtocol, which is no
documented interface: the upgrade of uvicorn or uvicorn_worker that changes what they override
fails here. The bounds are on by default (WEB_CLIENT_BOUNDS); behind nginx they are off, and the
proxy's own are shown in tests/gateway/test_nginx.py."""

import contextlib
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.engine import ScriptedEngine
from tests.support.sockets import (
    WAIT_S,
    connect,
    free_one_and_ask,
    head,
    open_files,
    outcome,
    post_head,
    read_response,
    read_until_closed,
    status_of,
)
from tests.support.web import WebServer
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

HEADER_TIMEOUT_S = 1
BODY_TIMEOUT_S = 1
KEEPALIVE_S = 1


@pytest.fixture(scope="module")
def engine() -> Iterator[ScriptedEngine]:
    with ScriptedEngine() as scripted:
        yield scripted


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """The web role's home directory, where gunicorn would make its control socket."""
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def web(tmp_path_factory, django_db_setup, django_db_blocker, engine, home) -> Iterator[WebServer]:
    env = {
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(home),
        "WEB_HEADER_TIMEOUT_S": str(HEADER_TIMEOUT_S),
        "WEB_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S),
        "WEB_KEEPALIVE_S": str(KEEPALIVE_S),
        "INTENT_ENGINE_MODEL": "openai/scripted",
        "INTENT_ENGINE_API_BASE": engine.api_base,
        "INTENT_ENGINE_TIMEOUT_S": "60",
    }
    with django_db_blocker.unblock(), WebServer(tmp_path_factory.mktemp("web"), env=env) as server:
        yield server


def test_a_client_that_trickles_its_headers_is_disconnected_within_the_header_timeout(web):
    sock = connect(web.port)
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
    with connect(web.port) as sock:
        assert read_until_closed(sock) == b""


def test_an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(web):
    with connect(web.port) as sock:
        sock.sendall(head())
        answer = read_until_closed(sock)  # the answer, then the close once it idled

    assert status_of(answer) == 200
    assert b"connection: close" not in answer.lower()  # it was kept alive, then closed


def test_a_connection_kept_alive_serves_another_request_within_the_idle_timeout(web):
    with connect(web.port) as sock:
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
    with connect(web.port) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # refused on the way
            sock.sendall(head(*lines, b"Connection: close") if status == 200 else head(*lines))
        answer = read_until_closed(sock)

    assert status_of(answer) == status


def test_a_header_trickled_past_its_bound_is_refused_before_it_ends(web):
    sent = 0
    with connect(web.port) as sock:
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
    with connect(web.port) as sock:
        sock.sendall(
            b"GET /v1/cards/rec_" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n"
        )
        answer = read_until_closed(sock)

    assert status_of(answer) == 414


def test_a_body_that_stops_arriving_is_answered_408_and_closed_within_the_body_timeout(web):
    with connect(web.port) as sock:
        sock.sendall(post_head(2000) + b'{"intent": ')
        answer = read_until_closed(sock)  # a socket timeout, past WAIT_S, fails the test

    assert status_of(answer) == 408
    assert b"Request body not received in time." in answer


def test_a_body_trickled_past_the_body_timeout_is_answered_408(web):
    sock = connect(web.port)
    sock.sendall(post_head(2000))
    deadline = time.monotonic() + WAIT_S
    with sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the server closed it
            while time.monotonic() < deadline:  # a byte every 0.2 s, never the whole body
                sock.sendall(b" ")
                time.sleep(0.2)
        assert time.monotonic() < deadline, "the trickling client was never disconnected"
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            answer = read_until_closed(sock)

    assert answer == b"" or status_of(answer) == 408


def test_a_body_sent_in_parts_within_the_body_timeout_is_read_whole(web):
    body = b'{"intent": "trail running shoes"}'
    with connect(web.port) as sock:
        sock.sendall(post_head(len(body)) + body[:10])
        time.sleep(BODY_TIMEOUT_S / 4)
        sock.sendall(body[10:])
        answer = read_response(sock)

    # The gateway's own answer to the whole body: valid JSON, without the field a match needs.
    assert status_of(answer) == 400
    assert b"Required fields are missing: intent_id." in answer


def test_a_request_pipelined_behind_a_slow_one_has_its_body_deadline_once_its_turn_comes(
    web, engine
):
    body = b'{"intent": "trail running shoes"}'
    engine.hold()  # the first request waits on the engine, past the body timeout
    try:
        with connect(web.port) as sock:
            sock.sendall(b"GET /v1/recommend?intent=rain+boots HTTP/1.1\r\nHost: localhost\r\n\r\n")
            wait_until(lambda: engine.calls_count == 1, what="the first request to be served")
            # The second, pipelined: its body's end comes once the server has paused reading.
            sock.sendall(
                post_head(len(body)).replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
                + body[:10]
            )
            time.sleep(0.2)
            sock.sendall(body[10:])
            time.sleep(2 * BODY_TIMEOUT_S)  # the first still answering, well past the deadline
            engine.release()
            answers = read_until_closed(sock)  # the first's is chunked: both, then the close
    finally:
        engine.release()

    # The second was read whole: valid JSON, without the field a match needs.
    assert [int(status) for status in re.findall(rb"(?m)^HTTP/1\.1 (\d{3}) ", answers)] == [
        200,
        400,
    ]
    assert b"Required fields are missing: intent_id." in answers


def test_a_client_past_its_share_is_refused_at_once_while_others_are_served(
    tmp_path, django_db_blocker
):
    share = 4
    env = {"WEB_MAX_CONNECTIONS_PER_CLIENT": str(share), "WEB_HEADER_TIMEOUT_S": "60"}
    with django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        held = [connect(web.port) for _ in range(share)]
        try:
            refused = []
            for _ in range(2):
                with connect(web.port) as extra:
                    refused.append(read_until_closed(extra))
            with connect(web.port, source="127.0.0.2") as other:
                other.sendall(head(b"Connection: close"))
                served = read_until_closed(other)
            answer = free_one_and_ask(web, held)
        finally:
            for sock in held:
                sock.close()
        log = web.log()

    assert [status_of(answer) for answer in refused] == [429, 429]
    assert b"Too many connections from your address." in refused[0]
    assert status_of(served) == 200
    assert answer.status == 200
    assert "Refused or closed a connection: answered 429 (Too many connections" in log


def test_2000_idle_bodies_from_one_address_leave_another_client_served(tmp_path, django_db_blocker):
    count, share, body_timeout_s = 2000, 100, 10
    env = {"WEB_BODY_TIMEOUT_S": str(body_timeout_s)}  # 1000 connections, 100 a client
    with open_files(count), django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        idle = []
        try:
            for _ in range(count):
                sock = connect(web.port)
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    sock.sendall(post_head(2000))  # and never the body
                idle.append(sock)
            with connect(web.port, source="127.0.0.2") as other:
                other.sendall(head(b"Connection: close"))
                served = read_until_closed(other)
            for sock in idle:
                sock.settimeout(body_timeout_s + WAIT_S)
            outcomes = Counter(outcome(sock) for sock in idle)
        finally:
            for sock in idle:
                sock.close()

    assert status_of(served) == 200
    assert outcomes[408] == share  # held to the body timeout, then answered and closed
    assert outcomes[429] + outcomes["reset"] == count - share  # refused at once


def test_requests_asking_for_a_websocket_are_served_as_http_and_hold_nothing(web):
    upgrade = head(
        b"Connection: Upgrade",
        b"Upgrade: websocket",
        b"Sec-WebSocket-Version: 13",
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    )
    statuses = []
    for _ in range(120):  # past a client's share: none of them may stay counted
        with connect(web.port, source="127.0.0.9") as sock:
            sock.sendall(upgrade)
            statuses.append(status_of(read_response(sock)))
    with connect(web.port, source="127.0.0.9") as sock:
        sock.sendall(head(b"Connection: close"))
        after = read_until_closed(sock)

    assert set(statuses) == {200}  # no websocket: the request itself, as plain HTTP
    assert status_of(after) == 200
    assert "upgrade" not in web.log().lower()


def test_the_web_role_makes_no_control_socket_another_gateway_could_take(web, home):
    # gunicorn's is one path a user (~/.gunicorn/gunicorn.ctl, or under XDG_RUNTIME_DIR): the
    # last master started would take it from the others.
    assert web.get("/healthz").status == 200
    assert [path.name for path in home.rglob("*")] == []


def test_the_web_role_names_the_address_it_listens_at_and_starts_quietly(web):
    log = web.log()

    assert f"Listening at: http://127.0.0.1:{web.port} (" in log
    assert "Listening at:  (" not in log  # gunicorn's own line names no address (--reuse-port)
    assert "StreamableHTTP session manager started" not in log
    assert "ERROR" not in log
