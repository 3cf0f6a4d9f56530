from django.apps import AppConfig


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = "Catalog"

    def warm_up(self) -> None:
        """As a web worker starts: the catalog's categories, so that no shopper's recommend
        waits for them (search itself is the database's: nothing to build)."""
        from catalog import search

        search.catalog_categories()
