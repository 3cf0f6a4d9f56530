"""`manage.py embed_catalog`: write the embedding of every product that has none (products
written while SEMANTIC_SEARCH was off; catalog/semantic.py)."""

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from catalog import semantic
from catalog.models import Product


class Command(BaseCommand):
    help = "Embed the products that have no embedding yet (after SEMANTIC_SEARCH was off)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not semantic.enabled():
            raise CommandError("SEMANTIC_SEARCH is off: turn it on to embed the catalog.")
        missing = Product.objects.filter(embedding__isnull=True).count()
        with tqdm(
            total=missing, unit="product", desc="embed", file=sys.stderr, disable=None
        ) as bar:
            written = semantic.embed_missing(Product, progress=bar.update)
        self.stdout.write(f"embedded {written} products")
