"""`manage.py reindex_catalog`: read every product again as this release reads it: its search
document, its type and its brand (catalog/documents.py). Run once after an upgrade that changes
how products are read (docs/catalog.md, "Upgrading"); an import does the same for the products
it writes. Products are read in batches, in order of id, with a progress bar; only what changed
is written, and the search index follows each product's document."""

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from tqdm import tqdm

from catalog import versions
from catalog.documents import read
from catalog.models import Product

BATCH = 500


class Command(BaseCommand):
    help = "Read every product's search document, type and brand again (after an upgrade)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=BATCH, help="products a write")

    def handle(self, *args: Any, **options: Any) -> None:
        batch = max(1, int(options["batch"]))
        columns = ("id", *Product.TEXT_FIELDS, *Product.READ_FIELDS)
        written = 0
        after = -1
        with tqdm(
            total=Product.objects.count(),
            unit="product",
            desc="reindex",
            file=sys.stderr,
            disable=None,
        ) as bar:
            while rows := list(
                Product.objects.filter(id__gt=after).order_by("id").values(*columns)[:batch]
            ):
                after = rows[-1]["id"]
                written += self._write(rows)
                bar.update(len(rows))
        if written:
            versions.changed()
        self.stdout.write(f"reindexed {written} of the catalog's products")

    def _write(self, rows: list[dict[str, Any]]) -> int:
        """Write what changed of `rows`: the whole reading where the document changed (the
        index follows it), else the type and brand alone."""
        documents: list[Product] = []
        names: list[Product] = []
        for row in rows:
            fresh = read(row)
            if fresh["search_document"] != row["search_document"]:
                documents.append(Product(id=row["id"], **fresh))
            elif any(fresh[name] != row[name] for name in ("product_type", "brand_key")):
                names.append(Product(id=row["id"], **fresh))
        with transaction.atomic():
            if documents:
                Product.objects.bulk_update(documents, list(Product.READ_FIELDS))
            if names:
                Product.objects.bulk_update(names, ["product_type", "brand_key"])
        return len(documents) + len(names)
