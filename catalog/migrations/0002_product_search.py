"""Search indexes of the products (catalog/search.py), one kind per database vendor.

PostgreSQL: a GIN full-text index and GIN trigram indexes (pg_trgm) on expressions of the
product's columns, so they can never fall out of step with the rows. SQLite: an FTS5 table with
the trigram tokenizer, filled from the products and kept in step by triggers.
"""

from django.db import migrations

# The searchable text of a product: catalog/search.py queries these same expressions.
PG_DOCUMENT = (
    "(coalesce(title, '') || ' ' || coalesce(brand, '') || ' ' || coalesce(category_l1, '')"
    " || ' ' || coalesce(category_l2, '') || ' ' || tags::text)"
)
SQLITE_DOCUMENT = (
    "coalesce({p}.title, '') || ' ' || coalesce({p}.brand, '') || ' ' || "
    "coalesce({p}.category_l1, '') || ' ' || coalesce({p}.category_l2, '') || ' ' || "
    "coalesce({p}.tags, '')"
)

POSTGRES_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX catalog_product_fts ON catalog_product "
    f"USING gin (to_tsvector('english'::regconfig, {PG_DOCUMENT}))",
    f"CREATE INDEX catalog_product_document_trgm ON catalog_product "
    f"USING gin ({PG_DOCUMENT} gin_trgm_ops)",
    "CREATE INDEX catalog_product_title_trgm ON catalog_product "
    "USING gin (lower(title) gin_trgm_ops)",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS catalog_product_title_trgm",
    "DROP INDEX IF EXISTS catalog_product_document_trgm",
    "DROP INDEX IF EXISTS catalog_product_fts",
]

_ROW = "(rowid, title, document) VALUES (new.id, new.title, {doc})".format(
    doc=SQLITE_DOCUMENT.format(p="new")
)
SQLITE_FORWARD = [
    "CREATE VIRTUAL TABLE catalog_product_fts USING fts5(title, document, tokenize='trigram')",
    "INSERT INTO catalog_product_fts (rowid, title, document) "
    f"SELECT id, title, {SQLITE_DOCUMENT.format(p='catalog_product')} FROM catalog_product",
    "CREATE TRIGGER catalog_product_fts_insert AFTER INSERT ON catalog_product BEGIN "
    f"INSERT INTO catalog_product_fts {_ROW}; END",
    "CREATE TRIGGER catalog_product_fts_update AFTER UPDATE ON catalog_product BEGIN "
    "DELETE FROM catalog_product_fts WHERE rowid = old.id; "
    f"INSERT INTO catalog_product_fts {_ROW}; END",
    "CREATE TRIGGER catalog_product_fts_delete AFTER DELETE ON catalog_product BEGIN "
    "DELETE FROM catalog_product_fts WHERE rowid = old.id; END",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS catalog_product_fts_delete",
    "DROP TRIGGER IF EXISTS catalog_product_fts_update",
    "DROP TRIGGER IF EXISTS catalog_product_fts_insert",
    "DROP TABLE IF EXISTS catalog_product_fts",
]


def _run(statements: dict[str, list[str]]):  # type: ignore[no-untyped-def]
    def run(apps, schema_editor):  # type: ignore[no-untyped-def]
        for statement in statements.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("catalog", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        )
    ]
