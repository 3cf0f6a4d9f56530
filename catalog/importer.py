"""Catalog import from JSON Lines: one product a line, validated (catalog/import_format.py),
upserted in batches.

Idempotent: products are upserted by `id`, creators by `username`, videos by `task_id`, and a
product's line is the whole truth about its videos (videos it no longer lists are removed).
A line that fails validation is rejected with its number and reason; the rest are imported.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from django.db import connection, models, transaction
from django.utils import timezone

from catalog import versions
from catalog.documents import of_fields
from catalog.import_format import LineError, ProductRecord, Row, parse_line
from catalog.models import Creator, Product, Video
from gateway.jsonio import dumps

BATCH_SIZE = 500


PRODUCT_FIELDS = [
    "title",
    "brand",
    "price_usd",
    "original_price_usd",
    "main_image",
    "gallery",
    "category_l1",
    "category_l2",
    "url",
    "description",
    "tags",
    "regions",
    "risk_level",
    "target_persona",
    "target_age",
    "search_document",
    "updated_at",
]


VIDEO_FIELDS = [
    "product_id",
    "creator_id",
    "thumbnail",
    "video_url",
    "platform_video_url",
    "duration_s",
    "gmv_usd",
    "orders",
    "views",
    "published_at",
    "updated_at",
]


@dataclass
class ImportSummary:
    created: int = 0
    updated: int = 0
    videos: int = 0
    creators: int = 0
    cleaned_ids: set[int] = field(default_factory=set)  # text cleaned (catalog.text.clean)

    @property
    def cleaned(self) -> int:
        """Products whose text lost markup or invisible characters as it was stored."""
        return len(self.cleaned_ids)

    rejected: list[tuple[int, str]] = field(default_factory=list)


def _upsert(model: type[models.Model], rows: list[Row], *, key: str, fields: list[str]) -> None:
    """Insert rows, or update `fields` of the row with the same `key`, in one statement a batch.

    Rows are dicts keyed by column. `bulk_create(update_conflicts=True)` writes the same upsert
    but prepares every value through the field API, which was two thirds of the import's time.
    SQLite and PostgreSQL both speak `ON CONFLICT ... DO UPDATE SET ... = EXCLUDED...`.
    `created_at` is written on insert and never updated.
    """
    if not rows:
        return
    by_column = {field.column: field for field in model._meta.concrete_fields}
    columns = [key, *fields, "created_at"]
    quote = connection.ops.quote_name
    names = [quote(column) for column in columns]
    insert = f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(names)}) "
    conflict = f" ON CONFLICT ({names[0]}) DO UPDATE SET " + ", ".join(
        f"{name} = EXCLUDED.{name}" for name in names[1:-1]
    )
    # Table and column names come from the model's metadata, quoted; values are always bound.
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # The batch travels as one JSON document that PostgreSQL unpacks into typed rows:
            # orjson serializes it in C, where per-value parameters cost more in the client than
            # the upsert costs in the database.
            row_type = ", ".join(
                f"{quote(column)} {by_column[column].db_type(connection)}" for column in columns
            )
            cursor.execute(
                f"{insert}SELECT {', '.join(names)} FROM jsonb_to_recordset(%s::jsonb) "  # noqa: S608
                f"AS incoming({row_type}){conflict}",
                [dumps([{column: row[column] for column in columns} for row in rows]).decode()],
            )
            return
        adapters = [_sqlite_adapter(by_column[column]) for column in columns]
        values = [
            tuple(
                adapt(row[column]) if adapt else row[column]
                for column, adapt in zip(columns, adapters, strict=True)
            )
            for row in rows
        ]
        placeholders = ", ".join(["%s"] * len(columns))
        cursor.executemany(f"{insert}VALUES ({placeholders}){conflict}", values)


def _sqlite_adapter(field: models.Field) -> Callable[[Any], Any] | None:
    if isinstance(field, models.JSONField):
        return lambda value: orjson.dumps(value).decode()
    if isinstance(field, models.DateTimeField):
        return connection.ops.adapt_datetimefield_value
    return None


class _Writer:
    """Upserts batches and remembers the creators it wrote, so each is written once per import.

    A creator usually appears on many lines; writing it again with every batch was most of the
    import's cost. It is written again only when a later line changes it (the last line wins).
    """

    def __init__(self, summary: ImportSummary) -> None:
        self.summary = summary
        self.creators: dict[str, Row] = {}
        self.creator_ids: dict[str, int] = {}

    def _write_creators(self, records: dict[int, ProductRecord], now: datetime) -> None:
        changed: dict[str, Row] = {}
        for record in records.values():
            for _, creator in record.videos:
                if self.creators.get(creator["username"]) != creator:
                    self.creators[creator["username"]] = creator
                    changed[creator["username"]] = {**creator, "created_at": now, "updated_at": now}
        _upsert(
            Creator,
            list(changed.values()),
            key="username",
            fields=["display_name", "avatar", "followers", "updated_at"],
        )
        unknown = [name for name in changed if name not in self.creator_ids]
        if unknown:
            self.creator_ids.update(
                Creator.objects.filter(username__in=unknown).values_list("username", "id")
            )

    def write(self, records: dict[int, ProductRecord]) -> None:
        """Upsert one batch; `records` holds at most one record per product id (the last one)."""
        now = timezone.now()
        self._write_creators(records, now)

        existing = set(Product.objects.filter(id__in=records).values_list("id", flat=True))
        products = [
            {
                **record.product,
                "search_document": of_fields(record.product),
                "created_at": now,
                "updated_at": now,
            }
            for record in records.values()
        ]
        _upsert(Product, products, key="id", fields=PRODUCT_FIELDS)

        # A video task_id is unique in the whole catalog; the last line that names it wins.
        videos: dict[str, Row] = {}
        for record in records.values():
            for video, creator in record.videos:
                videos[video["task_id"]] = {
                    **video,
                    "creator_id": self.creator_ids[creator["username"]],
                    "created_at": now,
                    "updated_at": now,
                }
        Video.objects.filter(product_id__in=records).exclude(task_id__in=videos).delete()
        _upsert(Video, list(videos.values()), key="task_id", fields=VIDEO_FIELDS)

        self.summary.created += len(records) - len(existing)
        self.summary.updated += len(existing)
        self.summary.videos += len(videos)
        self.summary.cleaned_ids.update(
            product_id for product_id, record in records.items() if record.cleaned
        )
        self.summary.creators = len(self.creators)


def catalog_import(
    *,
    lines: Iterable[bytes],
    strict: bool = False,
    on_line: Callable[[int], object] | None = None,
) -> ImportSummary:
    """Import JSON Lines in one transaction and report what was created, updated and rejected.

    With `strict`, any rejected line rolls everything back: nothing is written. `on_line` is
    called with each line's size in bytes (for a progress bar).
    """
    summary = ImportSummary()
    writer = _Writer(summary)
    batch: dict[int, ProductRecord] = {}
    with transaction.atomic():
        for number, raw in enumerate(lines, start=1):
            if on_line:
                on_line(len(raw))
            if not raw.strip():
                continue
            try:
                record = parse_line(raw)
            except LineError as exc:
                summary.rejected.append((number, str(exc)))
                continue
            if strict and summary.rejected:
                continue  # keep validating to report every bad line, but write nothing more
            batch.pop(record.product["id"], None)
            batch[record.product["id"]] = record
            if len(batch) >= BATCH_SIZE:
                writer.write(batch)
                batch = {}
        if batch and not (strict and summary.rejected):
            writer.write(batch)
        if summary.created or summary.updated:
            versions.changed()
        if strict and summary.rejected:
            transaction.set_rollback(True)
            summary.created = summary.updated = summary.videos = summary.creators = 0
            summary.cleaned_ids.clear()
    return summary
