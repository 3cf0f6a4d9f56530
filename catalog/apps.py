from collections.abc import Iterator
from typing import Any

from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def warm_up(self) -> None:
        """As a web worker starts: the catalog's categories, so that no shopper's recommend
        waits for them (search itself is the database's: nothing to build)."""
        from catalog import search

        search.catalog_categories()

    def readings(self) -> Iterator[Any]:
        """At each scrape of /metrics: the catalog's size and freshness (catalog/metrics.py)."""
        from catalog import metrics

        return metrics.readings()
