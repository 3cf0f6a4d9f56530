"""Benchmark of the substring tier at 100k products (DESIGN.md section 11: it uses an index,
never a table scan).

Fills a scratch database `bench_100k` with 100,000 demo products (generated records inserted in
bulk, without videos: only titles matter to this tier; kept for later runs), then shows the plan
of the raw_substring query (catalog.search) — EXPLAIN on PostgreSQL, where the trigram index of
titles must be read (Bitmap Index Scan), EXPLAIN QUERY PLAN on SQLite, where the FTS5 trigram
table must answer the LIKE — for every sampled query, and times the tier, p95.

Runs alone (`python bench/search_100k.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from bench.common import RUNS, Figure, percentile, timed_ms

PRODUCTS = 100_000
BATCH = 5_000


def fill(products: int) -> None:
    """Give the scratch database exactly `products` demo products, in bulk."""
    from datetime import UTC, datetime

    from django.core.management import call_command
    from django.db import transaction

    from catalog.demo import generate_catalog
    from catalog.models import Product
    from catalog.search import search_indexes_refresh

    call_command("migrate", verbosity=0)
    if Product.objects.count() == products:
        return
    print(f"  (inserting {products:,} products)")
    call_command("flush", interactive=False, verbosity=0)
    fields = ["title", "brand", "price_usd", "category_l1", "category_l2", "url", "tags", "regions"]
    batch: list[Product] = []
    with transaction.atomic():
        for record in generate_catalog(products=products, seed=7, now=datetime.now(UTC)):
            batch.append(Product(id=record["id"], **{name: record.get(name) for name in fields}))
            if len(batch) == BATCH:
                Product.objects.bulk_create(batch)
                batch = []
        Product.objects.bulk_create(batch)
    search_indexes_refresh()


def captured_sql(action: Any) -> tuple[str, list[Any]]:
    """The last SQL statement `action` runs, with its parameters."""
    from django.db import connection

    seen: list[tuple[str, list[Any]]] = []

    def capture(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append((sql, list(params or [])))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        action()
    return seen[-1]


def plan(sql: str, params: list[Any]) -> list[str]:
    from django.db import connection

    explain = "EXPLAIN " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN "
    with connection.cursor() as cursor:
        cursor.execute(explain + sql, params)
        return [str(row[-1]) for row in cursor.fetchall()]


def index_line(lines: list[str]) -> str | None:
    """The plan's line that reads the substring index, or None when the table is scanned."""
    if any("Seq Scan on catalog_product" in line or line.startswith("SCAN p") for line in lines):
        return None
    for line in lines:
        if "Index Scan on catalog_product_title_trgm" in line:
            return line.strip(" ->")
        # FTS5's plan names the constraints it answers after the colon: L for LIKE.
        if "catalog_product_fts VIRTUAL TABLE INDEX" in line and "L" in line.split(":")[-1]:
            return line.strip()
    return None


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from catalog import search
    from catalog.models import Product

    vendor = common.vendor_of(database_url)
    fill(PRODUCTS)
    print(f"\n== raw_substring at {Product.objects.count():,} products on {common.VENDORS[vendor]}")
    titles = Product.objects.order_by("id").values_list("title", flat=True)[
        : PRODUCTS : PRODUCTS // 20
    ]
    queries = []
    for title in titles:
        words = common.title_words(title)
        queries.append(search.SearchQuery(" ".join(words), words, []))
    plans = []
    for query in queries:
        sql, params = captured_sql(lambda q=query: search.tier_ids("raw_substring", q, 3))
        plans.append(plan(sql, params))
    used = [line for line in map(index_line, plans) if line]
    print("  plan of the first query:")
    for line in plans[0]:
        print(f"    {line}")
    samples = []
    for n in range(RUNS):
        query = queries[n % len(queries)]
        samples.append(timed_ms(lambda: search.tier_ids("raw_substring", query, 3)))  # noqa: B023
    common.report(
        [
            Figure(
                "raw_substring at 100k: index, never a table scan",
                vendor,
                f"index {len(used)}/{len(plans)}",
                "index",
                len(used) == len(plans),
                note=f"plan: {used[0] if used else ' | '.join(plans[0])}",
            ),
            Figure("raw_substring at 100k, p95", vendor, f"{percentile(samples, 0.95):,.2f} ms"),
        ]
    )


if __name__ == "__main__":
    common.per_database(run, "bench_100k")
