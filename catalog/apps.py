from collections.abc import Iterator
from typing import Any

from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def warm_up(self) -> None:
        """As a web worker starts: the catalog's categories and the embedding model, so that no
        shopper's recommend waits for them (search itself is the database's: nothing to build)."""
        from catalog import categories, semantic

        categories.catalog_categories()
        semantic.warm()

    def readings(self) -> Iterator[Any]:
        """At each scrape of /metrics: the catalog's size and freshness (catalog/metrics.py)."""
        from catalog import metrics

        return metrics.readings()
