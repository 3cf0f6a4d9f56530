"""Storage details the hot paths rely on: the shared Redis client, JSON bound row by row, and
a recommend's rows written in one statement on PostgreSQL."""

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import Recommendation
from matching.models import Proposal


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: the Redis cache")
def test_the_redis_cache_builds_one_client_and_reuses_it():
    cache.set("storage-test", 1, 5)
    backend = cache._cache  # type: ignore[attr-defined]

    assert backend.get_client("a") is backend.get_client("b", write=True)
    assert cache.get("storage-test") == 1


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
