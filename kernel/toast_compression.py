"""LZ4 for the large JSON documents a recommend writes, on PostgreSQL servers that have it.

PostgreSQL compresses a value that leaves its row over about 2 kB (a card; a session's ranked
proposals) with pglz unless told otherwise, and a recommend writes three or four such values;
lz4 compresses them in a fraction of pglz's time, a little less tightly. A column's method
applies to the values written after the change; earlier rows stay as they are, readable either
way. A server built without lz4 (it is optional since PostgreSQL 14, though every packaged build
has it) keeps pglz, and SQLite compresses nothing.
"""

from typing import Any

from django.db import migrations


def _has_lz4(cursor: Any) -> bool:
    cursor.execute(
        "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
    )
    row = cursor.fetchone()
    return bool(row and row[0])


def compress_with_lz4(app_label: str, columns: dict[str, list[str]]) -> migrations.RunPython:
    """A migration operation: the `columns` of each of `app_label`'s models (by model name)
    compressed with lz4 from now on, on PostgreSQL with lz4; reversed, with pglz again."""

    def alter(apps: Any, schema_editor: Any, method: str) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        with connection.cursor() as cursor:
            if not _has_lz4(cursor):
                return
        quote = connection.ops.quote_name
        for model_name, fields in columns.items():
            model = apps.get_model(app_label, model_name)
            names = [model._meta.get_field(field).column for field in fields]
            changes = ", ".join(
                f"ALTER COLUMN {quote(name)} SET COMPRESSION {method}" for name in names
            )
            schema_editor.execute(f"ALTER TABLE {quote(model._meta.db_table)} {changes}")

    def forward(apps: Any, schema_editor: Any) -> None:
        alter(apps, schema_editor, "lz4")

    def backward(apps: Any, schema_editor: Any) -> None:
        alter(apps, schema_editor, "pglz")

    return migrations.RunPython(forward, backward, elidable=False)
