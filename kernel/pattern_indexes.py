"""The second index Django gives every text key on PostgreSQL, which no query of the gateway reads.

On PostgreSQL, Django indexes each indexed text column twice: once plainly, and once more with
`varchar_pattern_ops` (the `..._like` indexes) for `LIKE 'prefix%'` queries, which a plain index
cannot serve. Every text key of the gateway (intent, proposal, session, card, event, merchant
ids) is looked up whole and never by prefix, so each such index only costs every row written:
a recommend writes ten rows and kept fourteen of them (DESIGN.md section 11 bounds the write's
bytes and its time). A migration of each app drops its tables' pattern indexes, and
tests/kernel/test_indexes.py fails when a new model or an altered field brings one back (Django
makes one for every new text primary key or foreign key to one): the fix is one more
`drop_pattern_indexes(app)` operation in that app's next migration.
"""

from typing import Any

from django.db import migrations

# Pattern indexes of the gateway's apps, each for what a query does read by prefix: none.
READ_BY_PREFIX: frozenset[str] = frozenset()


def pattern_indexes(cursor: Any, tables: list[str]) -> list[tuple[str, str]]:
    """(table, index) of every `varchar_pattern_ops` or `text_pattern_ops` index of `tables`."""
    cursor.execute(
        "SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema() "
        "AND tablename = ANY(%s) AND indexdef ~ '(varchar|text)_pattern_ops' "
        "ORDER BY tablename, indexname",
        [tables],
    )
    return [(table, index) for table, index in cursor.fetchall() if index not in READ_BY_PREFIX]


def drop_pattern_indexes(app_label: str) -> migrations.RunPython:
    """A migration operation: drop the pattern indexes of `app_label`'s tables, on PostgreSQL
    (other databases have none). Reversed, it leaves them dropped: no query reads them."""

    def forward(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            return
        tables = [model._meta.db_table for model in apps.get_app_config(app_label).get_models()]
        with schema_editor.connection.cursor() as cursor:
            found = pattern_indexes(cursor, tables)
        for _table, index in found:
            schema_editor.execute(f"DROP INDEX IF EXISTS {schema_editor.quote_name(index)}")

    return migrations.RunPython(forward, migrations.RunPython.noop)
