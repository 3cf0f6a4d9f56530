"""Metrics of the catalog: retrieval's latency, the catalog's size and how long ago it last
changed (kernel/metrics.py; the table of docs/alerts.md#metrics)."""

from collections.abc import Iterator
from typing import Any

from catalog import versions
from catalog.models import Product
from kernel import metrics
from kernel.cache import cached

RETRIEVAL = metrics.histogram(
    "gateway_retrieval_duration_seconds",
    "Seconds one retrieval of products took (catalog/search.py), by the loosest tier that "
    "contributed a product (match_tier).",
    metrics.OWN_WORK_BUCKETS,
    ("match_tier",),
)
# The products are counted again when the catalog's version changes, and at least this often.
SIZE_RECOUNT_S = 300


def retrieved(started: float, match_tier: str) -> None:
    RETRIEVAL.labels(match_tier).observe(metrics.since(started))


def readings() -> Iterator[Any]:
    """At scrape time: the products (counted once per version of the catalog in each web
    process), and when they last changed."""
    size = metrics.gauge("gateway_catalog_products", "Products in the catalog.")
    count = cached(
        f"metrics:catalog-size:{versions.current()}", SIZE_RECOUNT_S, Product.objects.count
    )
    size.add_metric([], count)
    yield size
    changed_at = versions.changed_at()
    if changed_at is not None:
        changed = metrics.gauge(
            "gateway_catalog_last_change_timestamp_seconds",
            "When products were last written (imported or edited), as a Unix time.",
        )
        changed.add_metric([], changed_at)
        yield changed
