"""Each index of the gateway's tables is kept once (kernel/pattern_indexes.py): none that an index
it leads already serves (a foreign key's own index beside a composite index that starts with
it), and on PostgreSQL none of Django's pattern copies of text keys, which no query reads. Every
row written keeps each index up to date, and a recommend writes ten rows."""

from dataclasses import dataclass

import pytest
from django.apps import apps
from django.db import connection

from kernel.pattern_indexes import pattern_indexes

pytestmark = pytest.mark.django_db

APPS = ("catalog", "matching", "merchants", "reporting")


@dataclass(frozen=True)
class Index:
    name: str
    columns: tuple[str | None, ...]  # None: an expression
    unique: bool
    partial: bool


def _tables() -> list[str]:
    return [model._meta.db_table for app in APPS for model in apps.get_app_config(app).get_models()]


def _indexes(table: str) -> list[Index]:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A column as its name, access method and operator class: a trigram index of a
            # column serves other queries than its b-tree.
            cursor.execute(
                "SELECT i.relname, ix.indisunique, ix.indpred IS NOT NULL, "
                "ARRAY(SELECT a.attname || ' ' || am.amname || ' ' || oc.opcname "
                "FROM unnest(ix.indkey, ix.indclass) WITH ORDINALITY AS k(num, class, n) "
                "LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.num "
                "JOIN pg_opclass oc ON oc.oid = k.class ORDER BY k.n) "
                "FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid "
                "JOIN pg_am am ON am.oid = i.relam WHERE ix.indrelid = %s::regclass",
                [table],
            )
            return [
                Index(name, tuple(columns), unique, partial)
                for name, unique, partial, columns in cursor.fetchall()
            ]
        found = []
        for _seq, name, unique, _origin, partial in cursor.execute(
            f"PRAGMA index_list({connection.ops.quote_name(table)})"
        ).fetchall():
            info = cursor.execute(f"PRAGMA index_info({connection.ops.quote_name(name)})")
            columns = tuple(column for _rank, _cid, column in info.fetchall())
            found.append(Index(name, columns, bool(unique), bool(partial)))
        return found


def served_by_another(tables: list[str]) -> list[str]:
    """Each non-unique, whole index whose columns lead another whole index (or equal a unique
    one's, or another's): what that other index already serves."""
    redundant = []
    for table in tables:
        found = [index for index in _indexes(table) if not index.partial]
        for index in found:
            if index.unique or None in index.columns:
                continue
            for other in found:
                if other is index or None in other.columns:
                    continue
                if other.columns[: len(index.columns)] == index.columns:
                    redundant.append(f"{table}.{index.name} (served by {other.name})")
                    break
    return redundant


def test_no_index_of_the_gateways_tables_is_served_by_another():
    assert served_by_another(_tables()) == []


def test_an_index_served_by_another_is_named():
    with connection.cursor() as cursor:
        cursor.execute("CREATE INDEX planted_proposal_intent ON matching_proposal (intent_id)")

    assert served_by_another(["matching_proposal"]) == [
        "matching_proposal.planted_proposal_intent (served by proposal_intent_status)"
    ]


def test_no_text_key_is_indexed_again_for_prefix_queries_on_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip("the pattern copies of text keys are PostgreSQL's")
    with connection.cursor() as cursor:
        assert pattern_indexes(cursor, _tables()) == []
        cursor.execute(
            "CREATE INDEX planted_like ON matching_intent (intent_id varchar_pattern_ops)"
        )
        assert pattern_indexes(cursor, _tables()) == [("matching_intent", "planted_like")]
