"""Benchmark of the catalog import (DESIGN.md section 11: >= 2,000 products/s).

Times `manage.py import_catalog` of the 10k-product demo file (products, creators and videos)
into an empty scratch database, then again over the same rows (every product updated). The
scratch database `bench_import` is emptied at the start of every run. The reference is the
bench's reference view through Django's test client in the same process, as requests a second
(bench/reference.py).

Catalogs arrive as files of tens of thousands of products, re-imported whole when a supplier
updates them; the budget keeps a catalog of the budgets' size in within seconds, with its search
documents written.

Runs alone (`python bench/catalog_import.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing.
"""

import sys
import time
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, reference
from bench.common import PRODUCTS, against, at_least


def import_rate(path: Path) -> float:
    """Products per second of one import_catalog of `path`."""
    from django.core.management import call_command

    started = time.perf_counter()
    call_command("import_catalog", str(path), stdout=StringIO())
    return PRODUCTS / (time.perf_counter() - started)


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    path = common.demo_catalog_file()
    vendor = common.vendor_of(database_url)
    print(f"\n== import_catalog of {PRODUCTS:,} demo products on {common.VENDORS[vendor]}")
    fresh = import_rate(path)
    again = import_rate(path)
    ruler = reference.in_process()
    what = f"{ruler.what}, requests/s"
    common.report(
        [
            against(at_least("catalog import, into an empty database", vendor, fresh, 2000,
                             "products/s"), ruler.rate(), what),
            against(at_least("catalog import, re-import (all updated)", vendor, again, 2000,
                             "products/s"), ruler.rate(), what),
        ]
    )  # fmt: skip


if __name__ == "__main__":
    common.per_database(run, "bench_import", fresh=True)
