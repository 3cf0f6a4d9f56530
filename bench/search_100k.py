"""Benchmark of the search index at 100k products (DESIGN.md section 11: the substring tier uses
an index, never a table scan).

Fills a scratch database `bench_100k` with 100,000 demo products (generated records inserted in
bulk, without videos; kept for later runs), builds the in-process index of catalog/index.py
(time and memory), shows how much of the catalog the raw_substring tier reads for sampled
shoppers' words (the postings of the rarest word) and times the tier, p95.

Runs alone (`python bench/search_100k.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import sys
from pathlib import Path

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


def run(database_url: str) -> None:
    import tracemalloc

    common.django_setup(database_url)
    from catalog import index, search, text
    from catalog.models import Product

    vendor = common.vendor_of(database_url)
    fill(PRODUCTS)
    print(f"\n== search index at {Product.objects.count():,} products on {common.VENDORS[vendor]}")
    built = timed_ms(index.current)
    catalog = index.current()
    # The memory it holds, counted by tracemalloc over a second build (which slows it tenfold).
    tracemalloc.start()
    again = index.build()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del again
    titles = Product.objects.order_by("id").values_list("title", flat=True)[
        : PRODUCTS : PRODUCTS // 20
    ]
    queries = []
    for title in titles:
        words = common.title_words(title)
        queries.append(search.SearchQuery(" ".join(words), words, []))
    # What the substring tier reads: the postings of the shopper's rarest word, never every
    # product. The share of the catalog it verifies shows it.
    read = []
    for query in queries:
        terms = [term for term in text.terms(query.text) if term not in text.STOP_WORDS]
        read.append(min(catalog.df(term) for term in terms))
    samples = []
    for n in range(RUNS):
        query = queries[n % len(queries)]
        samples.append(timed_ms(lambda: search.tier_ids("raw_substring", query, 3)))  # noqa: B023
    share = max(read) / PRODUCTS
    common.report(
        [
            Figure(
                "raw_substring at 100k: index, never a table scan",
                vendor,
                f"postings, at most {max(read):,} of {PRODUCTS:,} read",
                "index",
                share < 0.5,
                note="the postings of the shopper's rarest word (catalog/index.py)",
            ),
            Figure("raw_substring at 100k, p95", vendor, f"{percentile(samples, 0.95):,.2f} ms"),
            Figure("search index at 100k: build", vendor, f"{built / 1000:,.1f} s"),
            Figure("search index at 100k: memory", vendor, f"{held / 2**20:,.0f} MB"),
        ]
    )


if __name__ == "__main__":
    common.per_database(run, "bench_100k")
