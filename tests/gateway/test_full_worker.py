"""A web worker that holds all the connections it may (WEB_MAX_CONNECTIONS) makes room for a
newcomer by closing an idle connection of the client holding the most (gateway/web_clients.py),
and refuses it with a 503 that says why only when every connection is serving a request; many
clients filling the worker with connections that ask nothing leave a client of its own served;
refusals are written to the log at most once a second. Through the Procfile's `web` role on
loopback and raw sockets, each client a loopback address of its own."""

import re
import socket
import time

import pytest

from tests.support.sockets import (
    WAIT_S,
    Flood,
    connect,
    free_one_and_ask,
    head,
    open_files,
    outcome,
    post_head,
    read_until_closed,
    status_of,
)
from tests.support.web import WebServer
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

LIMIT = 4


def small_worker(**env: str) -> dict[str, str]:
    """A worker of LIMIT connections, any of which one client may hold."""
    return {"WEB_MAX_CONNECTIONS": str(LIMIT), "WEB_MAX_CONNECTIONS_PER_CLIENT": str(LIMIT), **env}


def closed(sock: socket.socket) -> bool:
    """Whether the server closed `sock` (it sent nothing on any of these connections)."""
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_a_full_worker_makes_room_by_closing_an_idle_connection_of_the_largest_holder(
    tmp_path, django_db_blocker
):
    env = small_worker(WEB_HEADER_TIMEOUT_S="60")
    with django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        idle = [connect(web.port) for _ in range(LIMIT)]  # they ask nothing
        try:
            with connect(web.port, source="127.0.0.2") as newcomer:
                newcomer.sendall(head(b"Connection: close"))
                served = read_until_closed(newcomer)
            wait_until(lambda: any(closed(sock) for sock in idle), what="an idle one closed")
            still_open = [sock for sock in idle if not closed(sock)]
        finally:
            for sock in idle:
                sock.close()

    assert status_of(served) == 200
    assert len(still_open) == LIMIT - 1  # one made room, silently: it had asked nothing


def test_a_full_worker_whose_every_connection_is_serving_refuses_503_saying_why(
    tmp_path, django_db_blocker
):
    env = small_worker(WEB_BODY_TIMEOUT_S="60")
    expect = post_head(2000).replace(b"\r\n\r\n", b"\r\nExpect: 100-continue\r\n\r\n")
    with django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        busy = []
        try:
            for _ in range(LIMIT):  # each a request being served: its body still to come
                sock = connect(web.port)
                sock.sendall(expect)
                busy.append(sock)
            for sock in busy:  # asked for its body: the request is being served
                assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue")
            with connect(web.port, source="127.0.0.2") as newcomer:
                refused = read_until_closed(newcomer)
            answer = free_one_and_ask(web, busy)
        finally:
            for sock in busy:
                sock.close()

    assert status_of(refused) == 503
    assert b"retry-after: 1\r\n" in refused
    assert refused.endswith(
        b"The server holds all the connections it may (4) and is answering a request on "
        b"each: retry in a moment."
    )
    assert answer.status == 200


def test_twenty_addresses_of_120_idle_connections_leave_a_client_of_its_own_served(
    tmp_path, django_db_blocker
):
    # The worker's own bounds: 1,000 connections, 100 a client, 10 s to bring a head.
    flooders = [f"127.0.1.{n}" for n in range(1, 21)]
    with (
        open_files(len(flooders) * 120 + 100),
        django_db_blocker.unblock(),
        WebServer(tmp_path) as web,
        Flood(web.port, flooders, per_address=120),
    ):
        answers = []
        for _ in range(20):  # over 12 s: the flood's connections time out and come back
            started = time.monotonic()
            with connect(web.port, source="127.0.2.1") as sock:
                sock.sendall(head(b"Connection: close"))
                answers.append((outcome(sock), time.monotonic() - started))
            time.sleep(0.6)

    assert [status for status, _took in answers] == [200] * 20
    assert max(took for _status, took in answers) < WAIT_S  # never held


def test_refusals_are_written_at_most_once_a_second(tmp_path, django_db_blocker):
    env = {"WEB_MAX_CONNECTIONS_PER_CLIENT": "2", "WEB_HEADER_TIMEOUT_S": "60"}
    with django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        held = [connect(web.port) for _ in range(2)]
        try:
            started = time.monotonic()
            refused = []
            for _ in range(300):
                with connect(web.port) as extra:
                    refused.append(outcome(extra))
            took = time.monotonic() - started
            time.sleep(1.5)  # the last second's line
            log = web.log()
        finally:
            for sock in held:
                sock.close()

    assert set(refused) <= {429, "reset"}
    first = log.count("Refused or closed a connection: answered 429")
    more = re.findall(r"Refused or closed ([\d,]+) more in the last second: ([^\n]*)", log)
    assert first + len(more) <= took + 2  # a line a second at most
    assert first + sum(int(count.replace(",", "")) for count, _reasons in more) == 300
    assert all(reasons.startswith(count + " x answered 429") for count, reasons in more)
