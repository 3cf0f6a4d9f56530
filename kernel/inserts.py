"""Rows written in bulk, one writer for the two hot writes: a recommend's new rows of several
models (`insert_together`) and the catalog import's upserts (`upsert`).

Django's `bulk_create` compiles every INSERT and prepares every value through the field API,
and sends each model's rows in a statement of its own: on a recommend that was most of the
request's CPU and seven round trips to PostgreSQL, on the import most of its time
(docs/benchmarks.md has the figures). Here PostgreSQL gets every row as one JSON document,
bound as a single parameter, to one statement whose data-modifying WITH clauses expand it into
each table (`jsonb_populate_recordset`): the server parses the rows, and the statement is atomic
on its own; it holds no value, so each connection prepares it once and then only executes it.
Django declares foreign keys deferred, checked at commit, so a parent and its children may
arrive together. On SQLite, where a statement costs no round trip, each model's rows go in
multi-row INSERTs of their own, in one transaction, their text built once per shape.

Like `bulk_create`, it sends no model signals and does not call `save()`; like it on
PostgreSQL and SQLite >= 3.35, it reads back the keys the database gave (RETURNING, whose rows
come in the order of the inserted rows, as `bulk_create` relies on too).
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any, cast

import orjson
import psycopg
from django.db import connection, models, transaction
from django.utils import timezone

from kernel.tracing import Attributes, traced

# The fields whose value is sent as it is held, after the field's own get_prep_value (which
# encrypts, turns choices into their values and checks datetimes for a time zone); JSON fields
# carry their document, foreign keys their key.
SIMPLE_FIELDS = (
    models.CharField,
    models.TextField,
    models.IntegerField,
    models.BooleanField,
    models.FloatField,
    models.DecimalField,
    models.DateTimeField,
    models.DateField,
    models.ForeignKey,
    models.JSONField,
)

MAX_VARIABLES = 999  # SQLite's bound on the parameters of one statement, before 3.32

Row = Mapping[str, Any]  # a row's values by column, as the database takes them


@dataclass(frozen=True)
class Part:
    """The rows of one model in a write: which columns, and what a conflict on `key` does
    (nothing: it fails; else `update` those columns from the row that conflicted)."""

    model: type[models.Model]
    columns: tuple[str, ...]
    key: str | None = None
    update: tuple[str, ...] = ()

    @property
    def returns_key(self) -> bool:
        return self.key is None and _is_auto(self.model._meta.pk)

    @property
    def key_column(self) -> str:
        column = self.model._meta.pk.column
        assert column is not None  # a concrete field has its column
        return column


def rows_by_model(*groups: Sequence[models.Model]) -> Attributes:
    """What the insert's span says: how many rows of each model (`app_label.model_name`)."""
    counts = {
        f"gateway.insert.rows.{group[0]._meta.label_lower}": len(group) for group in groups if group
    }
    return {"gateway.insert.rows": sum(len(group) for group in groups), **counts}


@traced("insert", start=rows_by_model)
def insert_together(*groups: Sequence[models.Model]) -> None:
    """Insert new instances, all or none. Each group holds instances of one model; list a
    parent's group before its children's. A date or time field with auto_now or auto_now_add
    is set to now where the instance holds none, and kept where it holds one (so a caller may
    stamp a row before it is written, e.g. to announce it). An auto-incremented key is set on
    each instance from the row the database wrote."""
    given = [group for group in groups if group]
    for group in given:
        model = type(group[0])
        _columns(model)  # a field it cannot write is refused on every database
        if any(type(instance) is not model for instance in group):
            raise TypeError(f"insert_together: a group of {model.__name__} holds other models")
    now = timezone.now()
    for group in given:
        for field in _stamped_fields(type(group[0])):
            for instance in group:
                if getattr(instance, field.attname) is None:
                    setattr(instance, field.attname, now)
    if not given:
        return
    parts = [_insert_part(type(group[0])) for group in given]
    keys = _write(parts, [[_row(instance) for instance in group] for group in given])
    for group, part, written in zip(given, parts, keys, strict=True):
        if part.returns_key:
            for instance, key in zip(group, written, strict=True):
                instance.pk = key
        for instance in group:
            instance._state.adding = False
            instance._state.db = connection.alias


def upsert(
    model: type[models.Model],
    rows: Sequence[Row],
    *,
    key: str,
    update: Sequence[str],
    insert_only: Sequence[str] = (),
) -> None:
    """Insert rows, or update the `update` columns of the row with the same `key` column, in
    one statement a batch; `insert_only` columns (e.g. `created_at`) are written on insert
    only. Rows hold values by column as the database takes them (a JSON field's document, a
    foreign key's key); other keys of a row are left out."""
    if not rows:
        return
    part = Part(model, (key, *update, *insert_only), key=key, update=tuple(update))
    _write([part], [[{column: row[column] for column in part.columns} for row in rows]])


def _write(parts: list[Part], rows: list[Sequence[Row]]) -> list[list[Any]]:
    """Write each part's rows; the keys the database gave the rows of each part that
    returns its key (an empty list for the others)."""
    if connection.vendor == "postgresql":
        return _write_in_one_statement(parts, rows)
    return _write_per_model(parts, rows)


# --- PostgreSQL: one statement -----------------------------------------------------------------


@cache
def _statement(parts: tuple[Part, ...]) -> str:
    quote = connection.ops.quote_name
    clauses, returned = [], []
    for n, part in enumerate(parts):
        columns = ", ".join(quote(column) for column in part.columns)
        table = quote(part.model._meta.db_table)
        # Names of the models' own tables and columns, quoted; the rows are the one parameter.
        clause = (
            f"i{n} AS (INSERT INTO {table} ({columns}) SELECT {columns} "  # noqa: S608
            f"FROM jsonb_populate_recordset(NULL::{table}, (SELECT doc -> {n} FROM sent))"
            f"{_on_conflict(part)}"
        )
        if part.returns_key:
            pk = quote(part.key_column)
            clause += f" RETURNING {pk}"
            returned.append(f"SELECT {n}, {pk} FROM i{n}")  # noqa: S608
        clauses.append(clause + ")")
    result = " UNION ALL ".join(returned) or "SELECT NULL, NULL WHERE false"
    return f"WITH sent AS (SELECT %s::jsonb AS doc), {', '.join(clauses)} {result}"


def _write_in_one_statement(parts: list[Part], rows: list[Sequence[Row]]) -> list[list[Any]]:
    document = orjson.dumps(rows, default=_json_default).decode()
    keys: list[list[Any]] = [[] for _ in parts]
    with _preparing_cursor() as cursor:
        cursor.execute(_statement(tuple(parts)), [document])
        for n, key in cursor.fetchall():
            keys[n].append(key)
    return keys


class _Prepared(psycopg.Cursor[Any]):
    """A cursor that binds its parameters on the server and has every statement prepared."""

    def execute(self, query: Any, params: Any = None, **options: Any) -> Any:
        return super().execute(query, params, **{**options, "prepare": True})


class _PreparedLogged(_Prepared):
    """The same, for a connection that logs its queries (DEBUG, tests): a prepared execution
    keeps no text of its query, and Django's log reads it there (`cursor._query`). Built on
    psycopg's private `_convert_query`; the canary is tests/gateway/test_storage.py, whose
    PostgreSQL tests read the write's text from Django's query log."""

    def execute(self, query: Any, params: Any = None, **options: Any) -> Any:
        super().execute(query, params, **options)
        self._query = self._convert_query(query, params)
        return self


def _preparing_cursor() -> Any:
    """A cursor of this thread's connection (Django's wrapper: its query log and execute
    wrappers see the statement) on which PostgreSQL parses and plans a statement once per
    connection. Django binds parameters in the client, so a statement's text holds its values
    and is never the same twice; a write's statement holds none (its rows are one parameter),
    and planning it was a large share of its time on the server. A prepared statement lives
    with its session, which a pooler in transaction mode must carry (PgBouncer >= 1.21 does)."""
    connection.ensure_connection()
    # Django's wrappers take any DB-API cursor (its stubs say its own wrapper's type).
    if connection.queries_logged:
        return connection.make_debug_cursor(cast(Any, _PreparedLogged(connection.connection)))
    return connection.make_cursor(cast(Any, _Prepared(connection.connection)))


def _json_default(value: Any) -> Any:
    """A decimal as text, which PostgreSQL parses with the column's type, exactly (orjson
    writes dates and times itself, in ISO 8601); bytes in bytea's hex form."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return "\\x" + value.hex()
    raise TypeError(f"{type(value).__name__} cannot be written in bulk")


def _on_conflict(part: Part) -> str:
    if part.key is None:
        return ""
    quote = connection.ops.quote_name
    updates = ", ".join(f"{quote(name)} = EXCLUDED.{quote(name)}" for name in part.update)
    return f" ON CONFLICT ({quote(part.key)}) DO UPDATE SET {updates}"


# --- SQLite: multi-row INSERTs in one transaction ----------------------------------------------


def _write_per_model(parts: list[Part], rows: list[Sequence[Row]]) -> list[list[Any]]:
    keys: list[list[Any]] = [[] for _ in parts]
    with transaction.atomic(), connection.cursor() as cursor:
        for n, (part, part_rows) in enumerate(zip(parts, rows, strict=True)):
            adapters = [(column, _sqlite_adapter(part.model, column)) for column in part.columns]
            size = max(1, MAX_VARIABLES // len(part.columns))
            for start in range(0, len(part_rows), size):
                batch = part_rows[start : start + size]
                values = [
                    value if value is None or adapt is None else adapt(value)
                    for row in batch
                    for column, adapt in adapters
                    for value in (row[column],)
                ]
                cursor.execute(_sqlite_statement(part, len(batch)), values)
                if part.returns_key:
                    keys[n].extend(key for (key,) in cursor.fetchall())
    return keys


@cache
def _sqlite_statement(part: Part, rows: int) -> str:
    quote = connection.ops.quote_name
    row = f"({', '.join(['%s'] * len(part.columns))})"
    names = ", ".join(quote(column) for column in part.columns)
    returning = f" RETURNING {quote(part.key_column)}" if part.returns_key else ""
    # The model's own table and column names, quoted; every value a parameter.
    return (
        f"INSERT INTO {quote(part.model._meta.db_table)} ({names}) "  # noqa: S608
        f"VALUES {', '.join([row] * rows)}{_on_conflict(part)}{returning}"
    )


@cache
def _sqlite_adapter(model: type[models.Model], column: str) -> Callable[[Any], Any] | None:
    """How a column's value, as PostgreSQL takes it in a JSON document, is bound on SQLite:
    a JSON field's document as text encoded by orjson, dates and times as Django writes them."""
    field = next(field for field in model._meta.concrete_fields if field.column == column)
    if isinstance(field, models.JSONField):
        return lambda value: orjson.dumps(value, default=_json_default).decode()
    if isinstance(field, models.DateTimeField):
        return connection.ops.adapt_datetimefield_value
    if isinstance(field, models.DateField):
        return connection.ops.adapt_datefield_value
    return None


# --- instances ---------------------------------------------------------------------------------


def _is_auto(field: Any) -> bool:
    return isinstance(field, models.AutoField | models.BigAutoField | models.SmallAutoField)


@cache
def _stamped_fields(model: type[models.Model]) -> list[Any]:
    return [
        field
        for field in model._meta.concrete_fields
        if isinstance(field, models.DateField)
        and (getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False))
    ]


@dataclass(frozen=True)
class Column:
    name: str
    attname: str
    # The field's own conversion (encryption, choices, time zones), for plain values; a JSON
    # field's document and a foreign key are written as they are held.
    prepare: Callable[[Any], Any] | None


@cache
def _columns(model: type[models.Model]) -> list[Column]:
    """The columns an insert writes: every concrete field's but an auto-incremented key's."""
    columns = []
    for field in model._meta.concrete_fields:
        if _is_auto(field):
            continue
        if not isinstance(field, SIMPLE_FIELDS):
            raise TypeError(f"insert_together cannot write {model.__name__}.{field.name}")
        plain = not isinstance(field, models.JSONField | models.ForeignKey)
        prepare = field.get_prep_value if plain else None
        columns.append(Column(field.column or field.attname, field.attname, prepare))
    return columns


@cache
def _insert_part(model: type[models.Model]) -> Part:
    return Part(model, tuple(column.name for column in _columns(model)))


def _row(instance: models.Model) -> dict[str, Any]:
    row = {}
    for column in _columns(type(instance)):
        value = getattr(instance, column.attname)
        if column.prepare is not None and value is not None:
            value = column.prepare(value)
        row[column.name] = value
    return row
