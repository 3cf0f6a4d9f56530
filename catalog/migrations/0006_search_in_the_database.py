"""The catalog is searched where it is kept: the database's own full-text search over each
product's search document (catalog/documents.py), one copy for every web process and host.

PostgreSQL: a generated, weighted `tsvector` column (title A; tags and brand B; categories C;
description D) with a GIN index, and the vocabulary of spelling corrections with a trigram
(pg_trgm) GiST index. SQLite: an FTS5 table, one column a field, with a vocabulary table of its
terms (fts5vocab) for document frequencies, and a trigram FTS5 table over the spelling
vocabulary. The database keeps all of it in step with the products: generated columns and
triggers, so every write of a product (import, admin, any ORM save) is searchable when it
commits, and no process ever builds an index.
"""

import functools
import re
from typing import Any

import snowballstemmer
from django.db import migrations, models
from django.db.models.functions import Lower

TEXT = ("title", "tags", "brand", "category_l1", "category_l2", "description")


def _field(row: str, name: str, vendor: str) -> str:
    if vendor == "postgresql":
        return f"coalesce({row}search_document ->> '{name}', '')"
    return f"coalesce(json_extract({row}search_document, '$.{name}'), '')"


def _vector() -> str:
    def part(names: tuple[str, ...], weight: str) -> str:
        joined = " || ' ' || ".join(_field("", name, "postgresql") for name in names)
        return f"setweight(to_tsvector('simple'::regconfig, {joined}), '{weight}')"

    return " || ".join(
        [
            part(("title",), "A"),
            part(("tags", "brand"), "B"),
            part(("category",), "C"),
            part(("description",), "D"),
        ]
    )


POSTGRES_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "ALTER TABLE catalog_product ADD COLUMN search_vector tsvector "
    f"GENERATED ALWAYS AS ({_vector()}) STORED",
    # A small pending list: a GIN index's fast updates wait in a list that every search scans
    # until it is merged (4 MB by default: after an import, every search read it whole); at
    # 256 kB writers merge it often and searches stay fast.
    "CREATE INDEX catalog_product_search ON catalog_product USING gin (search_vector) "
    "WITH (gin_pending_list_limit = 256)",
    "CREATE INDEX catalog_searchword_trigrams ON catalog_searchword "
    "USING gist (word gist_trgm_ops)",
    # One statement a batch: the words of every row the statement wrote, in one order, so two
    # writers that add the same new words take their locks in the same order.
    """
    CREATE FUNCTION catalog_searchword_learn() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO catalog_searchword (word)
        SELECT DISTINCT learned.word
        FROM written, jsonb_array_elements_text(
            CASE WHEN jsonb_typeof(written.search_document -> 'words') = 'array'
            THEN written.search_document -> 'words' ELSE '[]'::jsonb END
        ) AS learned(word)
        WHERE length(learned.word) <= 64
        ORDER BY learned.word
        ON CONFLICT DO NOTHING;
        RETURN NULL;
    END
    $$
    """,
    "CREATE TRIGGER catalog_product_words_insert AFTER INSERT ON catalog_product "
    "REFERENCING NEW TABLE AS written FOR EACH STATEMENT "
    "EXECUTE FUNCTION catalog_searchword_learn()",
    "CREATE TRIGGER catalog_product_words_update AFTER UPDATE ON catalog_product "
    "REFERENCING NEW TABLE AS written FOR EACH STATEMENT "
    "EXECUTE FUNCTION catalog_searchword_learn()",
    "INSERT INTO catalog_searchword (word) SELECT DISTINCT learned.word FROM catalog_product, "
    "jsonb_array_elements_text(search_document -> 'words') AS learned(word) "
    "WHERE length(learned.word) <= 64 ON CONFLICT DO NOTHING",
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS catalog_product_words_update ON catalog_product",
    "DROP TRIGGER IF EXISTS catalog_product_words_insert ON catalog_product",
    "DROP FUNCTION IF EXISTS catalog_searchword_learn()",
    "DROP INDEX IF EXISTS catalog_searchword_trigrams",
    "DROP INDEX IF EXISTS catalog_product_search",
    "ALTER TABLE catalog_product DROP COLUMN IF EXISTS search_vector",
]

_COLUMNS = "title, tags, brand, category, description"
_FIELDS = ("title", "tags", "brand", "category", "description")


def _fts_values(row: str) -> str:
    return ", ".join(_field(f"{row}.", name, "sqlite") for name in _FIELDS)


# Not INSERT OR IGNORE: the statement that fires a trigger imposes its own conflict policy on
# the trigger's statements (the import's upsert would make a known word an error).
_LEARN = (
    "INSERT INTO catalog_searchword (word) SELECT DISTINCT value FROM json_each("
    "new.search_document, '$.words') WHERE json_each.type = 'text' AND length(value) <= 64 "
    "AND NOT EXISTS (SELECT 1 FROM catalog_searchword known WHERE known.word = value); "
)
_INDEX_NEW = (
    f"INSERT INTO catalog_product_fts (rowid, {_COLUMNS}) "  # noqa: S608 (constants only)
    f"VALUES (new.id, {_fts_values('new')}); "
)
_FORGET_OLD = (
    f"INSERT INTO catalog_product_fts (catalog_product_fts, rowid, {_COLUMNS}) "  # noqa: S608
    f"VALUES ('delete', old.id, {_fts_values('old')}); "
)

SQLITE_FORWARD = [
    # Contentless: the documents stay in catalog_product; FTS5 keeps only its index. The
    # tokenizer only splits the document's stems at spaces: the gateway's analyzer made them.
    f"CREATE VIRTUAL TABLE catalog_product_fts USING fts5({_COLUMNS}, content='', "
    "tokenize='unicode61 remove_diacritics 0')",
    "CREATE VIRTUAL TABLE catalog_product_fts_terms USING fts5vocab(catalog_product_fts, 'row')",
    f"INSERT INTO catalog_product_fts (rowid, {_COLUMNS}) "  # noqa: S608
    f"SELECT id, {_fts_values('catalog_product')} FROM catalog_product",
    "CREATE TRIGGER catalog_product_search_insert AFTER INSERT ON catalog_product BEGIN "
    f"{_INDEX_NEW}{_LEARN}END",
    "CREATE TRIGGER catalog_product_search_update AFTER UPDATE OF search_document "
    f"ON catalog_product BEGIN {_FORGET_OLD}{_INDEX_NEW}{_LEARN}END",
    f"CREATE TRIGGER catalog_product_search_delete AFTER DELETE ON catalog_product BEGIN "
    f"{_FORGET_OLD}END",
    # The spelling vocabulary's trigrams, each word padded as catalog/spelling.py pads it.
    # (Words are deleted only when a test empties the tables: a scan is fine there.)
    "CREATE VIRTUAL TABLE catalog_searchword_grams USING fts5(word, tokenize='trigram')",
    "CREATE TRIGGER catalog_searchword_grams_insert AFTER INSERT ON catalog_searchword BEGIN "
    "INSERT INTO catalog_searchword_grams (word) VALUES ('  ' || new.word || ' '); END",
    "CREATE TRIGGER catalog_searchword_grams_delete AFTER DELETE ON catalog_searchword BEGIN "
    "DELETE FROM catalog_searchword_grams WHERE word = '  ' || old.word || ' '; END",
    "INSERT OR IGNORE INTO catalog_searchword (word) SELECT value FROM catalog_product, "
    "json_each(catalog_product.search_document, '$.words') WHERE length(value) <= 64",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS catalog_searchword_grams_delete",
    "DROP TRIGGER IF EXISTS catalog_searchword_grams_insert",
    "DROP TABLE IF EXISTS catalog_searchword_grams",
    "DROP TRIGGER IF EXISTS catalog_product_search_delete",
    "DROP TRIGGER IF EXISTS catalog_product_search_update",
    "DROP TRIGGER IF EXISTS catalog_product_search_insert",
    "DROP TABLE IF EXISTS catalog_product_fts_terms",
    "DROP TABLE IF EXISTS catalog_product_fts",
]


# Each vendor's statements, as migration 0002 runs them.
_run = __import__("catalog.migrations.0002_product_search", fromlist=["_run"])._run


# The search document of catalog/documents.py and the analyzer of catalog/text.py it reads, as
# they were when frozen here (dff7e29), as this migration had run them, so that a later change to either
# never changes the documents this migration writes (import writes every later one).
_STOP_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it"}
    | {"of", "on", "or", "s", "the", "to", "with"}
)
_DESCRIPTION_TERMS = 300
_MAX_WORD = 32
_WORD = re.compile(r"[^\W\d_]+|\d+")
_APOSTROPHES = re.compile(r"(?<=\w)['\u2019](?=\w)")
_TRUNCATED = re.compile(r"(\.\.\.|\u2026)\s*$")
_stemmer = snowballstemmer.stemmer("english")


def _words(text: str) -> list[str]:
    return _WORD.findall(_APOSTROPHES.sub("", text.lower()))


@functools.lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def _terms(text: str) -> list[str]:
    """The stemmed words of a text, stop words left out."""
    return [term for term in map(_stem, _words(text)) if term not in _STOP_WORDS]


def _clean_words(title: str) -> list[str]:
    found = _words(title)
    if _TRUNCATED.search(title) and found:
        found.pop()
    return found


def _document(fields: dict[str, Any]) -> dict[str, Any]:
    title = str(fields.get("title") or "")
    tags = [tag for tag in fields.get("tags") or [] if isinstance(tag, str)]
    brand = fields.get("brand") or ""
    words: set[str] = set()
    for source in (title, " ".join(tags), brand):
        words.update(
            word for word in _clean_words(source) if word.isalpha() and 2 < len(word) <= _MAX_WORD
        )
    categories = f"{fields.get('category_l1') or ''} . {fields.get('category_l2') or ''}"
    return {
        "title": " ".join(_terms(title)),
        "tags": " ".join(_terms(" . ".join(tags))),
        "brand": " ".join(_terms(brand)),
        "category": " ".join(_terms(categories)),
        "description": " ".join(_terms(fields.get("description") or "")[:_DESCRIPTION_TERMS]),
        "words": sorted(words),
    }


def write_documents(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Every product's search document, with a line of progress every 50,000 products (a
    catalog of a million takes minutes)."""
    Product = apps.get_model("catalog", "Product")
    total = Product.objects.count()
    batch, done = [], 0
    for product in Product.objects.only(*TEXT).iterator(chunk_size=2000):
        product.search_document = _document({name: getattr(product, name) for name in TEXT})
        batch.append(product)
        if len(batch) == 2000:
            Product.objects.bulk_update(batch, ["search_document"])
            done, batch = done + len(batch), []
            if done % 50_000 == 0:
                print(f"\n  search documents: {done:,} of {total:,} products", flush=True)
    Product.objects.bulk_update(batch, ["search_document"])


class Migration(migrations.Migration):
    dependencies = [("catalog", "0005_admin_messages_and_price_validators")]

    operations = [
        migrations.AddField(
            model_name="product",
            name="search_document",
            field=models.JSONField(blank=True, default=dict, editable=False),
        ),
        migrations.AddIndex(
            model_name="product",
            index=models.Index(fields=["category_l1"], name="product_category_l1"),
        ),
        migrations.AddIndex(
            model_name="product",
            index=models.Index(Lower("category_l1"), name="product_category_l1_folded"),
        ),
        migrations.AddIndex(
            model_name="product",
            index=models.Index(Lower("category_l2"), name="product_category_l2_folded"),
        ),
        migrations.CreateModel(
            name="SearchWord",
            fields=[("word", models.CharField(max_length=64, primary_key=True, serialize=False))],
            options={"ordering": ["word"]},
        ),
        migrations.RunPython(write_documents, migrations.RunPython.noop),
        migrations.RunPython(
            _run({"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD}),
            _run({"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD}),
        ),
    ]
