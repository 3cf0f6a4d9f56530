"""Catalog import from JSON Lines: one product a line, validated (catalog/import_format.py),
upserted in batches through the bulk writer (kernel/inserts.py).

Idempotent: products are upserted by `id`, creators by `username`, videos by `task_id`, and a
product's line is the whole truth about its videos (videos it no longer lists are removed).
A line that fails validation is rejected with its number and reason; the rest are imported.
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from catalog import import_helper, semantic, upkeep, versions
from catalog.import_format import LineError, ProductRecord, Row, parse_line
from catalog.models import Creator, Product, Video
from kernel.inserts import upsert
from kernel.lookups import AnyOf

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
    "declared_type",
    *Product.READ_FIELDS,
    "embedding",
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
    helped: int = 0  # batches read in the helper process (catalog/import_helper.py)

    @property
    def cleaned(self) -> int:
        """Products whose text lost markup or invisible characters as it was stored."""
        return len(self.cleaned_ids)

    rejected: list[tuple[int, str]] = field(default_factory=list)


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
        upsert(
            Creator,
            list(changed.values()),
            key="username",
            update=["display_name", "avatar", "followers", "updated_at"],
            insert_only=["created_at"],
        )
        unknown = [name for name in changed if name not in self.creator_ids]
        if unknown:
            self.creator_ids.update(
                Creator.objects.filter(username__in=unknown).values_list("username", "id")
            )

    def write(self, records: dict[int, ProductRecord], readings: Sequence[Row]) -> None:
        """Upsert one batch; `records` holds at most one record per product id (the last one),
        `readings` what search reads of each, with its embedding, in the same order."""
        now = timezone.now()
        self._write_creators(records, now)

        existing = set(Product.objects.filter(AnyOf(F("id"), records)).values_list("id", flat=True))
        products = [
            {**record.product, **reading, "created_at": now, "updated_at": now}
            for record, reading in zip(records.values(), readings, strict=True)
        ]
        upsert(Product, products, key="id", update=PRODUCT_FIELDS, insert_only=["created_at"])

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
        stale = Video.objects.filter(AnyOf(F("product_id"), records))
        stale.exclude(AnyOf(F("task_id"), videos)).delete()
        upsert(
            Video,
            list(videos.values()),
            key="task_id",
            update=VIDEO_FIELDS,
            insert_only=["created_at"],
        )

        self.summary.created += len(records) - len(existing)
        self.summary.updated += len(existing)
        self.summary.videos += len(videos)
        self.summary.cleaned_ids.update(
            product_id for product_id, record in records.items() if record.cleaned
        )
        self.summary.creators = len(self.creators)


class _Reader:
    """Reads each batch (what search reads of its products, and their embeddings:
    catalog/import_helper.py), in the helper process where one is up, while the batch before it
    is written: the helper reads a batch while this process parses the next and writes the one
    before."""

    def __init__(self, helper: import_helper.Helper) -> None:
        self.helper = helper
        self.embed = semantic.enabled()
        self.waiting: tuple[dict[int, ProductRecord], Callable[[], list[Row]]] | None = None

    def write_after(self, batch: dict[int, ProductRecord], writer: _Writer) -> None:
        """Start reading `batch`, then write the batch before it."""
        texts = [
            {name: record.product.get(name) for name in Product.TEXT_FIELDS}
            for record in batch.values()
        ]
        answer = self.helper.submit(texts, self.embed, started=len(batch) >= BATCH_SIZE)
        before, self.waiting = self.waiting, (batch, answer)
        if before is not None:
            writer.write(before[0], before[1]())

    def flush(self, writer: _Writer) -> None:
        if self.waiting is not None:
            batch, answer = self.waiting
            self.waiting = None
            writer.write(batch, answer())


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
    semantic.warm()  # the model loaded before the transaction, never while it holds locks
    with import_helper.Helper() as helper, transaction.atomic():
        reader = _Reader(helper)
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
                reader.write_after(batch, writer)
                batch = {}
        if batch and not (strict and summary.rejected):
            reader.write_after(batch, writer)
        reader.flush(writer)
        summary.helped = helper.helped
        if summary.created or summary.updated:
            versions.changed(reweigh=upkeep.large_share(summary.created + summary.updated))
        if strict and summary.rejected:
            transaction.set_rollback(True)
            summary.created = summary.updated = summary.videos = summary.creators = 0
            summary.cleaned_ids.clear()
    if summary.created or summary.updated:
        upkeep.after_import(summary.created + summary.updated)
    return summary
