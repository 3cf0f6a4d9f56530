from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def warm_up(self) -> None:
        """As a web worker starts: the search index and the catalog's categories, so that no
        shopper's recommend waits for them."""
        from catalog import index, search

        index.current()
        search.catalog_categories()
