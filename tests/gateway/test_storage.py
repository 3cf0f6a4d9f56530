"""Storage details the hot paths rely on: one Redis connection pool per process, JSON bound row
by row, and a recommend's rows written in one statement on PostgreSQL."""

import threading

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_redis import get_redis_connection

from catalog.models import Recommendation
from matching.models import Proposal


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: the Redis cache")
def test_every_redis_cache_object_of_a_process_shares_one_connection_pool():
    """Django makes a cache object per thread and per async context; each must reuse the
    process's connections, not open its own."""
    pools = []

    def from_own_thread() -> None:
        for alias in ("default", "engine", "tasks"):
            caches[alias].set("storage-test", alias, 5)
            pools.append(get_redis_connection(alias).connection_pool)

    for _ in range(3):
        worker = threading.Thread(target=from_own_thread)
        worker.start()
        worker.join()

    assert len(pools) == 9
    assert len({id(pool) for pool in pools}) == 1
    # `default` and `engine` are one keyspace on Redis; A2A tasks keep a prefix of their own.
    assert caches["default"].get("storage-test") == "engine"
    assert caches["tasks"].get("storage-test") == "tasks"


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: the Redis cache")
def test_a_new_cache_object_reuses_the_process_client_of_its_server():
    """A coroutine request's cache objects are new (Django makes one per async context):
    each must take the process's client of its server (gateway/redis_clients.py), not build
    one. Fails if django-redis stops asking its connection factory for the client."""
    first = caches.create_connection("default")
    second = caches.create_connection("engine")
    first.set("storage-client", "shared", 5)

    assert second.get("storage-client") == "shared"
    clients = [cache.client.get_client() for cache in (first, second)]  # type: ignore[attr-defined]
    assert clients[0] is clients[1] is get_redis_connection("default")


def test_recommend_writes_its_json_rows_without_unnest(client, shelf, engine):
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/v1/recommend", {"intent": "running", "limit": "3"})

    assert response.status_code == 200
    inserts = [q["sql"] for q in queries.captured_queries if "INSERT INTO" in q["sql"]]
    assert any("catalog_recommendation" in sql for sql in inserts)
    assert not [sql for sql in inserts if "UNNEST" in sql.upper()]
    assert Recommendation.objects.count() == 3
    assert Proposal.objects.count() == 3


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="on PostgreSQL only (DATABASE_URL=postgres://...): its one statement for every row",
)
def test_on_postgresql_recommend_writes_every_row_in_one_statement(client, shelf, engine):
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/v1/recommend", {"intent": "running", "limit": "3"})

    assert response.status_code == 200
    writes = [q["sql"] for q in queries.captured_queries if "INSERT INTO" in q["sql"]]
    assert len(writes) == 1
    for table in ("intent", "intenttag", "recommendation", "proposal", "matchsession"):
        assert f'_{table}" (' in writes[0]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="on PostgreSQL only: its prepared statements and its columns' compression",
)
def test_on_postgresql_the_write_is_prepared_once_and_cards_are_compressed_with_lz4(
    client, shelf, engine
):
    """The one statement is parsed and planned once per connection, then only executed; the
    cards it writes are compressed with lz4 (kernel/toast_compression.py)."""
    for intent in ("running", "running shoes", "shoes for running"):
        assert client.get("/v1/recommend", {"intent": intent, "limit": "3"}).status_code == 200

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), sum(generic_plans + custom_plans) FROM pg_prepared_statements "
            "WHERE statement LIKE 'WITH sent AS%%'"
        )
        statements, executions = cursor.fetchone()
        cursor.execute(
            "SELECT DISTINCT pg_column_compression(card) FROM catalog_recommendation "
            "WHERE pg_column_compression(card) IS NOT NULL"
        )
        methods = {method for (method,) in cursor.fetchall()}
    assert statements == 1
    assert executions == 3
    assert Recommendation.objects.count() == 9
    assert methods == {"lz4"}
