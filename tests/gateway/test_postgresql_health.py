"""The health check of a kept PostgreSQL connection (gateway/postgresql): an idle connection
the server still holds is taken as usable, one the server ended is found out before a request
uses it, and the request's query then runs on a new connection."""

import time

import psycopg
import pytest
from django.db import connection, connections

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
