from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def warm_up(self) -> None:
        """As a web worker starts: the fuzzy tier's vocabulary and the catalog's categories,
        so that no shopper's recommend waits for them."""
        from catalog import search

        search.vocabulary()
        search.catalog_categories()
