"""New rows of several models written together: one statement and one round trip on PostgreSQL.

A recommend records an intent, its tags, its cards, one proposal per card, a match session and
sometimes an Intent.Surge event. Through the ORM that is a transaction of seven round trips to
PostgreSQL, and Django's compiling of each INSERT and psycopg's binding of each of its hundreds
of values cost more CPU than anything else the request does. `insert_together` sends every row
as one JSON document, bound as a single parameter, to one statement whose data-modifying WITH
clauses expand it into each table (`jsonb_populate_recordset`): PostgreSQL parses the rows, the
statement is atomic on its own. Django declares foreign keys deferred, checked at commit, so a
parent and its children may arrive together. On SQLite, where a statement costs no round trip,
each model's rows go in one multi-row INSERT of its own, in one transaction.

Like `bulk_create`, it sends no model signals and does not call `save()`.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import Any

import orjson
from django.db import connection, models, transaction
from django.utils import timezone

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


def insert_together(*groups: Sequence[models.Model]) -> None:
    """Insert new instances, all or none. Each group holds instances of one model; list a
    parent's group before its children's. A date or time field with auto_now or auto_now_add
    is set to now where the instance holds none, and kept where it holds one (so a caller may
    stamp a row before it is written, e.g. to announce it)."""
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
    if connection.vendor == "postgresql":
        _insert_in_one_statement(given)
    else:
        _insert_per_model(given)
    for group in given:
        for instance in group:
            instance._state.adding = False
            instance._state.db = connection.alias


def _insert_per_model(groups: list[Sequence[models.Model]]) -> None:
    """One multi-row INSERT per model, in one transaction, each statement's text built once per
    model and number of rows. The values are what the ORM would write (each field's own
    `get_db_prep_save`), but a JSON field's document, encoded by orjson, and a foreign key's
    key, as held: the ORM's compiling of each INSERT and the standard library's encoding of
    each JSON value had cost half a recommend's CPU on SQLite."""
    with transaction.atomic(), connection.cursor() as cursor:
        for group in groups:
            model = type(group[0])
            columns = _columns(model)
            size = max(1, MAX_VARIABLES // len(columns))
            for start in range(0, len(group), size):
                batch = group[start : start + size]
                values = [value for instance in batch for value in _sqlite_row(instance)]
                cursor.execute(_sqlite_statement(model, len(batch)), values)


MAX_VARIABLES = 999  # SQLite's bound on the parameters of one statement, before 3.32


@cache
def _sqlite_statement(model: type[models.Model], rows: int) -> str:
    quote = connection.ops.quote_name
    columns = _columns(model)
    row = f"({', '.join(['%s'] * len(columns))})"
    names = ", ".join(quote(column.name) for column in columns)
    # The model's own table and column names, quoted; every value a parameter.
    return f"INSERT INTO {quote(model._meta.db_table)} ({names}) VALUES {', '.join([row] * rows)}"  # noqa: S608


def _sqlite_row(instance: models.Model) -> list[Any]:
    row = []
    for column, field in zip(_columns(type(instance)), _fields(type(instance)), strict=True):
        value = getattr(instance, column.attname)
        if value is None or isinstance(field, models.ForeignKey):
            row.append(value)
        elif isinstance(field, models.JSONField):
            row.append(orjson.dumps(value, default=_json_default).decode())
        else:
            row.append(field.get_db_prep_save(value, connection))
    return row


@cache
def _fields(model: type[models.Model]) -> list[Any]:
    """The fields of `_columns(model)`, in its order."""
    return [field for field in model._meta.concrete_fields if not _is_auto(field)]


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
def _statement(models_in_order: tuple[type[models.Model], ...]) -> str:
    quote = connection.ops.quote_name
    clauses = []
    for n, model in enumerate(models_in_order):
        columns = ", ".join(quote(column.name) for column in _columns(model))
        table = quote(model._meta.db_table)
        # Names of the models' own tables and columns, quoted; the rows are the one parameter.
        clauses.append(
            f"i{n} AS (INSERT INTO {table} ({columns}) SELECT {columns} "  # noqa: S608
            f"FROM jsonb_populate_recordset(NULL::{table}, (SELECT doc -> {n} FROM sent)))"
        )
    return f"WITH sent AS (SELECT %s::jsonb AS doc), {', '.join(clauses)} SELECT 1"


def _insert_in_one_statement(groups: list[Sequence[models.Model]]) -> None:
    document = [[_row(instance) for instance in group] for group in groups]
    statement = _statement(tuple(type(group[0]) for group in groups))
    with connection.cursor() as cursor:
        cursor.execute(statement, [orjson.dumps(document, default=_json_default).decode()])


def _row(instance: models.Model) -> dict[str, Any]:
    row = {}
    for column in _columns(type(instance)):
        value = getattr(instance, column.attname)
        if column.prepare is not None and value is not None:
            value = column.prepare(value)
        row[column.name] = value
    return row


def _json_default(value: Any) -> Any:
    """A decimal as text, which PostgreSQL parses with the column's type, exactly (orjson
    writes dates and times itself, in ISO 8601)."""
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} cannot be written by insert_together")
