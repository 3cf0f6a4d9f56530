"""The fuzzy tier corrects misspelt words against the catalog's vocabulary and then searches the
full-text index (catalog/search.py), so the trigram index over the whole searchable text of a
product is no longer read on PostgreSQL; dropping it spares every product write its upkeep."""

from django.db import migrations

PG_DOCUMENT = (
    "(coalesce(title, '') || ' ' || coalesce(brand, '') || ' ' || coalesce(category_l1, '')"
    " || ' ' || coalesce(category_l2, '') || ' ' || tags::text)"
)


def _postgres(statement: str):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalog", "0002_product_search")]

    operations = [
        migrations.RunPython(
            _postgres("DROP INDEX IF EXISTS catalog_product_document_trgm"),
            _postgres(
                "CREATE INDEX IF NOT EXISTS catalog_product_document_trgm ON catalog_product "
                f"USING gin ({PG_DOCUMENT} gin_trgm_ops)"
            ),
        )
    ]
