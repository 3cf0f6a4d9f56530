"""The database's upkeep after an import (catalog/upkeep.py), on PostgreSQL: the planner's
statistics and the full-text index's pending entries."""

import pytest
from django.db import connection

from catalog.models import Product
from tests.catalog.test_import import product_line, run, write_lines

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="on PostgreSQL only (DATABASE_URL=postgres://...): its planner statistics and GIN index",
)
def test_an_import_leaves_postgresql_planning_and_searching_on_what_it_wrote(tmp_path):
    run(write_lines(tmp_path, [product_line(n) for n in range(1, 41)]))

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s)",
            [["catalog_product", "catalog_video"]],
        )
        estimates = dict(cursor.fetchall())
        assert estimates == {"catalog_product": 40, "catalog_video": 40}  # analyzed, not guessed
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pgstattuple'")
        if cursor.fetchone():
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
            cursor.execute("SELECT pending_tuples FROM pgstatginindex('catalog_product_search')")
            assert cursor.fetchone() == (0,)  # every new entry is in the index itself


def _estimated_products() -> float:
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = 'catalog_product'")
        return cursor.fetchone()[0]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="on PostgreSQL only (DATABASE_URL=postgres://...): its planner statistics",
)
def test_an_edit_of_a_few_products_leaves_the_statistics_a_larger_import_gathers(tmp_path):
    run(write_lines(tmp_path, [product_line(n) for n in range(1, 41)]))
    assert _estimated_products() == 40

    # One product in 41, edited and added: the statistics of 40 still hold; none gathered.
    run(write_lines(tmp_path, [product_line(1, title="Edited"), product_line(41)]))
    assert _estimated_products() == 40
    assert Product.objects.get(id=1).title == "Edited"

    # A tenth of the catalog or more, written at once: gathered again.
    run(write_lines(tmp_path, [product_line(n) for n in range(42, 47)]))
    assert _estimated_products() == 46
