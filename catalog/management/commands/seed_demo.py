"""`manage.py seed_demo`: generate the deterministic demo catalog and import it."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext

from catalog.demo import generate_catalog
from catalog.management.commands.import_catalog import run_import
from catalog.models import Product
from kernel.jsonio import dumps


class Command(BaseCommand):
    help = "Generate a realistic demo catalog (JSON Lines under var/) and import it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--products", type=int, default=3000, help="how many (default 3000)")
        parser.add_argument("--seed", type=int, default=7, help="random seed (default 7)")
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing when the catalog has products"
        )
        parser.add_argument(
            "--output",
            default=None,
            help="where to write the JSON Lines (default var/demo_catalog.jsonl)",
        )

    def handle(
        self, *args: Any, products: int, seed: int, if_empty: bool, output: str | None, **_: Any
    ) -> None:
        if products < 1:
            raise CommandError("--products must be at least 1")
        if if_empty and Product.objects.exists():
            self.stdout.write("The catalog already has products; demo data not loaded.")
            return
        path = Path(output) if output else settings.VAR_DIR / "demo_catalog.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        # Midnight today: the same catalog all day, with videos dated relative to today.
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        with path.open("wb") as stream:
            for record in generate_catalog(products=products, seed=seed, now=today):
                stream.write(dumps(record) + b"\n")
        noun = ngettext("demo product", "demo products", products)
        self.stdout.write(f"Wrote {products} {noun} to {path}")
        with path.open("rb") as stream:
            run_import(self, stream, size=path.stat().st_size, strict=True)
