"""Retrieval reads the in-process index of catalog/index.py (one analyzer and one score on
every database), so the database search indexes of migrations 0002 and 0003 are no longer read:
dropping them spares every product write their upkeep. Stored product text is cleaned as import
now cleans it (HTML entities decoded, invisible characters removed)."""

import html
import re
import unicodedata

from django.db import migrations

_0002 = __import__("catalog.migrations.0002_product_search", fromlist=["_run"])

# Back to the indexes 0003 left: the trigram index of the whole text stays dropped.
POSTGRES_AFTER_0003 = [sql for sql in _0002.POSTGRES_FORWARD if "document_trgm" not in sql]
TEXT = ("title", "brand", "category_l1", "category_l2", "description")

# catalog/text.py's clean() as it was when frozen here (dff7e29), which is what this migration
# had always run (it called the live function), so that a
# later change to how import cleans text never changes what this migration stores.
_SPACES = re.compile(r"\s+")
_INVISIBLE = {"Cc", "Cf", "Cs", "Co"}
_ASCII_INVISIBLE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def _clean(text: str) -> str:
    decoded = text
    for _ in range(2):  # "&amp;#39;" was encoded twice: decode until it stops changing
        once = html.unescape(decoded)
        if once == decoded:
            break
        decoded = once
    kept = _ASCII_INVISIBLE.sub("", decoded) if decoded.isascii() else _visible(decoded)
    return _SPACES.sub(" ", kept).strip()


def _visible(text: str) -> str:
    return "".join(
        " " if char in "\t\n\r\x0b\x0c" else char
        for char in text
        if char in "\t\n\r\x0b\x0c"
        or (char != "\ufffd" and unicodedata.category(char) not in _INVISIBLE)
    )


def clean_products(apps, schema_editor):  # type: ignore[no-untyped-def]
    Product = apps.get_model("catalog", "Product")
    changed = []
    for product in Product.objects.only(*TEXT, "tags").iterator(chunk_size=2000):
        before = [getattr(product, name) for name in TEXT] + [product.tags]
        for name in TEXT:
            value = getattr(product, name)
            if value:
                setattr(product, name, _clean(value) or value)
        product.tags = [tag for tag in map(_clean, product.tags) if tag]
        if [getattr(product, name) for name in TEXT] + [product.tags] != before:
            changed.append(product)
    Product.objects.bulk_update(changed, [*TEXT, "tags"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("catalog", "0003_drop_document_trigram_index")]

    operations = [
        migrations.RunPython(
            _0002._run({"postgresql": _0002.POSTGRES_BACKWARD, "sqlite": _0002.SQLITE_BACKWARD}),
            _0002._run({"postgresql": POSTGRES_AFTER_0003, "sqlite": _0002.SQLITE_FORWARD}),
        ),
        migrations.RunPython(clean_products, migrations.RunPython.noop),
    ]
