"""`manage.py import_catalog PATH`: load products from JSON Lines (PATH `-` reads stdin)."""

import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import ngettext
from tqdm import tqdm

from catalog.importer import ImportSummary, catalog_import


def _counted(count: int, singular: str, plural: str) -> str:
    """A count with its noun in the right number: 1 line, 2 lines."""
    return f"{count} {ngettext(singular, plural, count)}"


def run_import(
    command: BaseCommand, stream: BinaryIO, *, size: int | None, strict: bool
) -> ImportSummary:
    """Import with a progress bar on a terminal, then print the summary and every rejection."""
    started = time.perf_counter()
    with tqdm(
        total=size, unit="B", unit_scale=True, desc="import", file=sys.stderr, disable=None
    ) as bar:
        summary = catalog_import(lines=stream, strict=strict, on_line=bar.update)
    elapsed = time.perf_counter() - started
    for number, reason in summary.rejected:
        command.stderr.write(f"line {number}: {reason}")
    if strict and summary.rejected:
        raise CommandError(
            f"{_counted(len(summary.rejected), 'line', 'lines')} rejected with --strict: "
            "nothing was imported."
        )
    imported = summary.created + summary.updated
    rate = imported / elapsed if elapsed > 0 else 0.0
    command.stdout.write(
        f"created {summary.created}, updated {summary.updated}, rejected {len(summary.rejected)} "
        f"({_counted(summary.videos, 'video', 'videos')}, "
        f"{_counted(summary.creators, 'creator', 'creators')}) in {elapsed:.2f} s, "
        f"{rate:,.0f} products/s"
    )
    if summary.cleaned:
        command.stdout.write(
            f"cleaned the text of {_counted(summary.cleaned, 'product', 'products')}: HTML "
            "entities decoded, control and zero-width characters removed, whitespace collapsed"
        )
    return summary


class Command(BaseCommand):
    help = "Import products (with their creators and videos) from a JSON Lines file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="JSON Lines file, one product per line; - for stdin")
        parser.add_argument(
            "--strict", action="store_true", help="any rejected line fails the whole import"
        )

    def handle(self, *args: Any, path: str, strict: bool, **options: Any) -> None:
        if path == "-":
            run_import(self, sys.stdin.buffer, size=None, strict=strict)
            return
        source = Path(path)
        if not source.is_file():
            raise CommandError(f"No such file: {path}")
        with source.open("rb") as stream:
            run_import(self, stream, size=source.stat().st_size, strict=strict)
