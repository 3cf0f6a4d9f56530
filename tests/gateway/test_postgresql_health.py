"""The health check of a kept PostgreSQL connection (gateway/postgresql): an idle connection
the server still holds is taken as usable, whatever its socket's file descriptor, one the server
ended is found out before a request uses it, and the request's query then runs on a new
connection. And its canary: the Django internals the check relies on, as they were."""

import hashlib
import inspect
import os
import time

import psycopg
import pytest
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.postgresql.base import DatabaseWrapper
from psycopg import pq

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="on PostgreSQL only (DATABASE_URL=postgres://...): its backend's own check",
    ),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def kept():
    """A second connection to the test database, kept between requests as the web's are."""
    wrapper = connections.create_connection("default")
    wrapper.ensure_connection()
    yield wrapper
    wrapper.close()


def _terminate(wrapper) -> None:
    with wrapper.connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    params = {**wrapper.get_connection_params(), "autocommit": True}
    with psycopg.connect(**params) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])


def _request_starts(wrapper) -> None:
    """What Django does with a kept connection before a request's first query."""
    wrapper.health_check_done = False
    wrapper.close_if_health_check_failed()


def test_an_idle_connection_the_server_holds_is_usable(kept):
    assert kept.is_usable()
    _request_starts(kept)
    assert kept.connection is not None

    with kept.cursor() as cursor:
        cursor.execute("SELECT 41 + 1")
        assert cursor.fetchone() == (42,)


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it(kept):
    ended = kept.connection
    _terminate(kept)
    deadline = time.monotonic() + 5
    while kept.is_usable() and time.monotonic() < deadline:
        time.sleep(0.01)  # the server's farewell is on its way

    assert not kept.is_usable()
    _request_starts(kept)
    with kept.cursor() as cursor:  # a new connection, as Django opens one
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    assert kept.connection is not ended


def test_a_connection_inside_a_transaction_is_asked_with_a_query(kept):
    kept.set_autocommit(False)
    with kept.cursor() as cursor:
        cursor.execute("SELECT 1")  # the transaction has begun

    assert kept.is_usable()
    kept.rollback()
    kept.set_autocommit(True)


@pytest.fixture
def descriptors_past_1024():
    """Every file descriptor below 1100 taken, so that the next socket opened lands past 1024,
    where `select.select` refuses to look (and the check once took such a connection for
    broken: every request would have reconnected)."""
    taken = []
    try:
        while (fd := os.open(os.devnull, os.O_RDONLY)) < 1100:
            taken.append(fd)
        os.close(fd)
        yield
    finally:
        for fd in taken:
            os.close(fd)


def test_a_kept_connection_past_descriptor_1024_stays_usable(descriptors_past_1024, kept):
    assert kept.connection.fileno() >= 1024
    held = kept.connection

    assert kept.is_usable()
    _request_starts(kept)
    with kept.cursor() as cursor:
        cursor.execute("SELECT 41 + 1")
        assert cursor.fetchone() == (42,)
    assert kept.connection is held  # kept, not replaced by a new one


# The sources of the Django internals the check relies on, as written against Django 5.2: Django
# calls `is_usable` from `close_if_health_check_failed` before a request's first query, and the
# override falls back to PostgreSQL's own `is_usable` (its `SELECT 1`).
RELIED_ON = {
    (BaseDatabaseWrapper, "close_if_health_check_failed"): (
        "f72eb45356f4a9108c8299b1a616f582cb1b4de12848e0a2401363ec9c9eb2cd"
    ),
    (DatabaseWrapper, "is_usable"): (
        "c6d0cbdb5ef55c8654b98f9d3c0741b7d6bcd0c7b1241577737a23a534c2ae42"
    ),
}


@pytest.mark.parametrize(
    ("owner", "name"), list(RELIED_ON), ids=lambda x: getattr(x, "__name__", x)
)
def test_canary_the_django_internals_the_check_relies_on_are_unchanged(owner, name):
    source = inspect.getsource(getattr(owner, name))

    assert hashlib.sha256(source.encode()).hexdigest() == RELIED_ON[owner, name], (
        f"Django changed {owner.__module__}.{owner.__name__}.{name}: re-check that "
        "gateway/postgresql/base.py's is_usable is still what Django calls before a request's "
        "first query, and what it falls back to; then record the new hash here."
    )


def test_canary_psycopg_still_says_what_the_check_reads(kept):
    raw = kept.connection

    assert (raw.closed, raw.broken) == (False, False)
    assert raw.info.transaction_status == pq.TransactionStatus.IDLE
    assert isinstance(raw.fileno(), int)
