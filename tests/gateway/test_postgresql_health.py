"""PostgreSQL connections come from Django's own pool (gateway/environment.py): a connection
goes back to the pool after each request and is checked as it is handed out again, so one the
server ended is replaced before a request uses it, and one whose socket's file descriptor is
past 1024 (a web worker holding a thousand clients' sockets) is reused like any other."""

import os
import time

import psycopg
import pytest
from django.db import close_old_connections, connection, connections
from django.db.backends.postgresql.base import DatabaseWrapper

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's pool"),
    pytest.mark.django_db(transaction=True),
]


def _postgresql() -> DatabaseWrapper:
    """This thread's connection to the default database, typed as PostgreSQL's."""
    wrapper = connections["default"]
    assert isinstance(wrapper, DatabaseWrapper)
    return wrapper


def _backend() -> int:
    """The server process that serves this thread's connection, as a request's query sees it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    return int(pid)


def _request_ends() -> None:
    """What Django does with the connection after a request: it goes back to the pool."""
    close_old_connections()


def _opened() -> int:
    """How many connections this process's pool has opened so far."""
    _postgresql().pool.wait()  # its first ones are opened in the background
    return int(_postgresql().pool.get_stats().get("connections_num", 0))


def _requests(count: int) -> dict[int, int]:
    """The server processes that served `count` requests, one query each, and the file
    descriptor of each one's socket in this process."""
    served_by = {}
    for _ in range(count):
        pid = _backend()
        served_by[pid] = connection.connection.pgconn.socket
        _request_ends()
    return served_by


def test_the_connection_goes_back_to_the_pool_and_serves_the_next_requests():
    _requests(1)
    opened = _opened()

    served_by = _requests(4)

    assert connection.connection is None  # given back, not kept by the thread
    assert _opened() == opened  # every request served by a connection of the pool
    assert len(served_by) <= opened


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it():
    pooled = _requests(_opened() + 1)
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as admin:
        for pid in pooled:
            admin.execute("SELECT pg_terminate_backend(%s)", [pid])
        deadline = time.monotonic() + 5
        while admin.execute(
            "SELECT 1 FROM pg_stat_activity WHERE pid = ANY(%s)", [list(pooled)]
        ).fetchone():
            assert time.monotonic() < deadline, "the server never ended the connections"
            time.sleep(0.01)

    served_by = _requests(1)  # the request's query runs: no error

    assert not served_by.keys() & pooled.keys()
    assert _postgresql().pool.get_stats().get("connections_lost", 0) >= 1


@pytest.fixture
def descriptors_past_1024():
    """Every file descriptor below 1100 taken, so that the next socket opened lands past 1024,
    where `select.select` refuses to look (as the health check this pool replaced did). The
    pool is closed first: its connections' sockets free low descriptors as they close."""
    _request_ends()
    _postgresql().close_pool()
    taken = []
    try:
        while (fd := os.open(os.devnull, os.O_RDONLY)) < 1100:
            taken.append(fd)
        os.close(fd)
        yield
    finally:
        for fd in taken:
            os.close(fd)


def test_a_connection_whose_socket_is_past_descriptor_1024_is_reused(descriptors_past_1024):
    try:
        _requests(1)  # the pool opens its connections anew, past 1024
        opened = _opened()

        served_by = _requests(4)

        assert min(served_by.values()) >= 1024
        assert _opened() == opened  # reused, never taken for broken and replaced
        assert len(served_by) <= opened
    finally:
        _request_ends()
        _postgresql().close_pool()  # its sockets go before the descriptors under them
