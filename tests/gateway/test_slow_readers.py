"""Clients that do not take their answers (gateway/web_protocol.py): one that pipelines requests
for large answers and never reads is dropped once it has taken nothing for WEB_SEND_TIMEOUT_S,
and what the worker kept for it is freed; one that reads slowly but steadily is never dropped;
one that pipelines more than MAX_PIPELINED requests at once is dropped; one that hangs up in the
middle of its pipelined answers leaves no error in the log. Through the Procfile's `web` role
on loopback and raw sockets; the send timeout is lowered through the server's environment."""

import asyncio
import gc
import socket
import struct
import time
import weakref
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import uvloop
from uvicorn.config import Config
from uvicorn.server import ServerState

from gateway.web_protocol import MAX_PIPELINED, GatewayHttpProtocol
from tests.support.sockets import WAIT_S, connect, head, read_until_closed
from tests.support.web import WebServer
from tests.support.worker import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

SEND_TIMEOUT_S = 2  # a loaded machine may hold the reading test back for a second
LARGE = b"/openapi.json"  # some 450 KB: far more than the kernel takes for a client not reading
TCP_ESTABLISHED, TCP_CLOSE_WAIT = "01", "08"  # the states of /proc/net/tcp


@pytest.fixture(scope="module")
def web(tmp_path_factory, django_db_setup, django_db_blocker) -> Iterator[WebServer]:
    env = {
        "WEB_SEND_TIMEOUT_S": str(SEND_TIMEOUT_S),
    }
    with django_db_blocker.unblock(), WebServer(tmp_path_factory.mktemp("web"), env=env) as server:
        yield server


def small_window(web: WebServer, source: str) -> socket.socket:
    """A connection from `source` whose receive buffer, set before it connects, offers the
    server a small window: what the client has not read soon fills the kernel's buffers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", web.port))
    return sock


def never_reading(web: WebServer, source: str, requests: int = MAX_PIPELINED) -> socket.socket:
    """A connection that asks for `requests` large answers at once, and takes none of them: far
    more than the kernel's buffers of a connection hold (4 MB at most)."""
    sock = small_window(web, source)
    sock.sendall(head(b"Accept: application/json", target=LARGE) * requests)
    return sock


def server_queued(web: WebServer, sock: socket.socket) -> int | None:
    """The bytes of the server's end of `sock` still in the kernel's queue for the client (its
    tx_queue in /proc/net/tcp), or None when the server holds it no more."""
    client_ip, client_port = sock.getsockname()
    server = f"{socket.inet_aton('127.0.0.1')[::-1].hex()}:{web.port:04x}".upper()
    client = f"{socket.inet_aton(client_ip)[::-1].hex()}:{client_port:04x}".upper()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote, _state, queues = line.split()[1:5]
        if (local, remote) == (server, client):
            return int(queues.split(":")[0], 16)
    return None


def held(web: WebServer, sock: socket.socket) -> bool:
    """Whether the server still holds its end of `sock` open, read from the kernel's table of
    TCP sockets: an end the server closed is gone, or closing with what the client never read
    (the kernel's, no longer the worker's)."""
    client_ip, client_port = sock.getsockname()
    server = f"{socket.inet_aton('127.0.0.1')[::-1].hex()}:{web.port:04x}".upper()
    client = f"{socket.inet_aton(client_ip)[::-1].hex()}:{client_port:04x}".upper()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, remote, state = line.split()[1:4]
        if (local, remote) == (server, client):
            return state in (TCP_ESTABLISHED, TCP_CLOSE_WAIT)
    return False


def test_clients_that_never_read_are_dropped_once_they_take_nothing_for_the_send_timeout(web):
    sockets = [never_reading(web, f"127.0.3.{n + 1}") for n in range(20)]
    try:
        wait_until(
            lambda: not any(held(web, sock) for sock in sockets),
            timeout=60,  # each answer built first, 20 of 450 KB on one worker
            what="the server to drop every client that never reads",
        )
    finally:
        for sock in sockets:
            sock.close()  # only now: the server ended each of them itself
    log = web.log()

    assert f"dropped a client that took nothing of its answer in {SEND_TIMEOUT_S} s" in log
    assert "ERROR" not in log


class Held:
    """An answer the application holds while it is written, as Django holds a response."""

    def __init__(self, size: int) -> None:
        self.body = b"x" * size


def test_a_dropped_client_leaves_nothing_held_and_never_more_than_a_write_buffered(monkeypatch):
    # The protocol in this process, on a real socket, so that what it holds can be seen: an
    # application writing a 16 MB answer in 64 KB writes, as Django writes one.
    limits = replace(GatewayHttpProtocol.limits, send_timeout_s=0.5)
    monkeypatch.setattr(GatewayHttpProtocol, "limits", limits)
    write = 64 * 1024
    answers: weakref.WeakSet[Held] = weakref.WeakSet()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        answer = Held(16 * 1024 * 1024)
        answers.add(answer)
        length = str(len(answer.body)).encode()
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", length)]}
        )
        for start in range(0, len(answer.body), write):
            chunk = answer.body[start : start + write]
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    async def scenario() -> tuple[int, int, int]:
        config = Config(app=app, http=GatewayHttpProtocol, lifespan="off", log_config=None)
        state = ServerState()
        server = await asyncio.get_running_loop().create_server(
            lambda: GatewayHttpProtocol(config=config, server_state=state, app_state={}),
            "127.0.0.1",
            0,
        )
        port = server.sockets[0].getsockname()[1]
        client = connect(port, "127.0.5.1")
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        client.sendall(head())
        most_buffered, while_writing = 0, 0
        deadline = time.monotonic() + WAIT_S
        while state.connections or not while_writing:
            assert time.monotonic() < deadline, "the client that never reads was kept"
            for connection in state.connections:
                buffered = connection.transport.get_write_buffer_size()
                most_buffered = max(most_buffered, buffered)
            while_writing = max(while_writing, len(answers))
            await asyncio.sleep(0.01)
        while state.tasks:  # the application, told the client is gone, ends
            await asyncio.sleep(0.01)
        client.close()
        server.close()
        await server.wait_closed()
        gc.collect()
        return most_buffered, while_writing, len(answers)

    most_buffered, while_writing, left = uvloop.run(scenario())  # the loop the role runs

    assert while_writing == 1
    assert 0 < most_buffered <= write  # what the kernel could not take: one write at most
    assert left == 0  # the answer freed once the client was dropped


def read_slowly(web: WebServer, source: str, whole: int) -> tuple[bool, bool, float]:
    """Ask for more answers than the kernel's queue of the connection holds (tcp_wmem's largest
    send buffer), so that the worker must keep the rest and wait on the client, and take them at
    some 20 KB a second for three send timeouts: each 64 KB write takes the client longer than
    the send timeout to take, a little at a time. Whether the worker held some back, whether it
    still holds the connection, and the longest the client itself went between two reads."""
    kernel_most = int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    answers = kernel_most // whole + 2
    with small_window(web, source) as sock:
        sock.sendall(head(target=LARGE) * answers)
        received = 0
        held_back = False
        started = time.monotonic()
        longest_without = 0.0
        while time.monotonic() - started < 3 * SEND_TIMEOUT_S:
            received += len(sock.recv(2048))
            # The client's own time between two reads (not its wait in recv, the server's).
            took = time.monotonic()
            queued = server_queued(web, sock)
            if queued is not None and received + queued + 16_384 < answers * whole:
                held_back = True
            time.sleep(0.1)
            longest_without = max(longest_without, time.monotonic() - took)
        return held_back, held(web, sock), longest_without


def test_a_client_that_reads_slowly_but_steadily_is_never_dropped(web):
    whole = len(web.get(LARGE.decode()).body)
    # A machine too loaded to run the client at its pace (a tenth of a second between reads)
    # makes it a client that took too little, rightly dropped: a try in which the client itself
    # stalled for a quarter of the send timeout says nothing, and is made again.
    tries = []
    for attempt in range(3):
        held_back, still_held, longest_without = read_slowly(web, f"127.0.4.{100 + attempt}", whole)
        tries.append((held_back, still_held, round(longest_without, 2)))
        if still_held or longest_without < SEND_TIMEOUT_S / 4:
            break  # held, or dropped though the client kept its pace
    log = web.log()

    assert all(held for held, _still, _longest in tries), tries  # the worker kept the rest
    assert still_held, (tries, log[-2000:])  # read slowly, but read: never dropped


def test_a_client_pipelining_its_answers_is_served_each_in_turn(web):
    with connect(web.port, "127.0.4.2") as sock:
        sock.sendall(head() * 9 + head(b"Connection: close"))
        answers = read_until_closed(sock)

    assert answers.count(b"HTTP/1.1 200 OK\r\n") == 10


def test_a_client_pipelining_more_than_it_may_at_once_is_dropped(web):
    with connect(web.port, "127.0.4.3") as sock:
        sock.sendall(head(target=LARGE) * (MAX_PIPELINED + 10))
        try:
            answers = read_until_closed(sock)
        except ConnectionResetError:
            answers = b""
    log = web.log()

    assert answers.count(b"HTTP/1.1 200 OK\r\n") < MAX_PIPELINED + 10
    assert f"dropped a client that sent more than {MAX_PIPELINED} requests at once" in log


def test_a_client_hanging_up_in_the_middle_of_its_answers_leaves_no_error(web):
    for n in range(5):
        sock = never_reading(web, f"127.0.4.{10 + n}", 20)
        time.sleep(0.3)  # the first answer being written
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # a reset: the connection is gone under the answer
    time.sleep(1)  # the answers the resets cut off: written to a connection gone
    log = web.log()

    assert "ERROR" not in log
    assert "Traceback" not in log
