"""Benchmark of search at 100k products (DESIGN.md section 11: the substring tier uses an index,
never a table scan).

Fills a scratch database `bench_100k` with 100,000 demo products (generated records inserted in
bulk, with their search documents, without videos; kept for later runs), shows the database's
plan of the raw_substring tier's query for sampled shoppers' words (its full-text index, never a
scan of the products) and times the tier in the bench's own process, p95. The reference is the
bench's reference view through Django's test client in the same process (bench/reference.py).

A tier that read every product would cost nothing at 10k and seconds at a million: the plan, not
the time, is what this figure checks; the time is shown for information.

Runs alone (`python bench/search_100k.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, reference
from bench.common import RUNS, Figure, against, percentile, shown, timed_ms

PRODUCTS = 100_000
BATCH = 5_000


def fill(products: int) -> None:
    """Give the scratch database exactly `products` demo products, in bulk."""
    from datetime import UTC, datetime

    from django.core.management import call_command
    from django.db import transaction

    from catalog.demo import generate_catalog
    from catalog.documents import of_fields
    from catalog.models import Product

    call_command("migrate", verbosity=0)
    if Product.objects.count() == products:
        return
    print(f"  (inserting {products:,} products)")
    call_command("flush", interactive=False, verbosity=0)
    fields = ["title", "brand", "price_usd", "category_l1", "category_l2", "url", "tags", "regions"]
    batch: list[Product] = []
    with transaction.atomic():
        for record in generate_catalog(products=products, seed=7, now=datetime.now(UTC)):
            values = {name: record.get(name) for name in fields}
            batch.append(Product(id=record["id"], search_document=of_fields(values), **values))
            if len(batch) == BATCH:
                Product.objects.bulk_create(batch)
                batch = []
        Product.objects.bulk_create(batch)


def plan_of(query: object) -> str:
    """The database's plan of the raw_substring tier's query, one line."""
    from django.db import connection

    from catalog import fulltext, search, text

    terms = [term for term in text.terms(query.text) if term not in text.STOP_WORDS]  # type: ignore[attr-defined]
    match = fulltext.Match([terms], fields=("title",), exact_phrase=True)
    sql, params = fulltext.candidates_query(
        match, fulltext.Filters(), search.CANDIDATES, scored=terms
    )
    explain = "EXPLAIN " if connection.vendor == "postgresql" else "EXPLAIN QUERY PLAN "
    with connection.cursor() as cursor:
        cursor.execute(explain + sql, params)
        return " | ".join(str(row[-1]) for row in cursor.fetchall())


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from catalog import search
    from catalog.models import Product

    vendor = common.vendor_of(database_url)
    fill(PRODUCTS)
    print(f"\n== search at {Product.objects.count():,} products on {common.VENDORS[vendor]}")
    titles = Product.objects.order_by("id").values_list("title", flat=True)[
        : PRODUCTS : PRODUCTS // 20
    ]
    queries = []
    for title in titles:
        words = common.title_words(title)
        queries.append(search.SearchQuery(" ".join(words), words, []))
    plans = [plan_of(query) for query in queries]
    scans = [plan for plan in plans if "Seq Scan on catalog_product" in plan or "SCAN p" in plan]
    samples = []
    for n in range(RUNS):
        query = queries[n % len(queries)]
        samples.append(timed_ms(lambda: search.tier_ids("raw_substring", query, 3)))  # noqa: B023
    ruler = reference.in_process()
    common.report(
        [
            Figure(
                "raw_substring at 100k: index, never a table scan",
                vendor,
                f"{len(plans) - len(scans)} of {len(plans)} plans read the full-text index",
                "index",
                not scans,
                note="EXPLAIN of the tier's query (catalog/fulltext.py)",
            ),
            against(
                shown("raw_substring at 100k, p95 (in-process)", vendor, percentile(samples, 0.95)),
                ruler.at("p95"),
                f"{ruler.what}, p95",
            ),
        ]
    )


if __name__ == "__main__":
    common.per_database(run, "bench_100k")
