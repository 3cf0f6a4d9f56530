"""A product's search document: its text as the database's full-text search indexes it.

The gateway's analyzer (catalog/text.py) reads the text once, as the product is written, and
the document holds the result: each field's stems in order, stop words left out, and the clean
whole words of titles, tags and brands (the vocabulary spelling corrections choose from). The
database indexes the document with no analyzer of its own (PostgreSQL's `simple` configuration,
SQLite FTS5's `unicode61` tokenizer), so a word means the same thing to search on both databases
as it does to ranking and to the shopper guide: "64GB" is 64 and gb, "Women's" is women, "shoes"
and "shoe" meet, "men" never finds "women".

The document is a column of the product (Product.search_document), so every write of a product
carries its search text in the same statement; the migrations' triggers and generated columns
turn it into the search index and the vocabulary (catalog/fulltext.py).
"""

import re
from collections.abc import Iterable, Sequence
from typing import Any

from catalog import brands, semantic, text, types

# The fields search tells apart, in the order of their weight.
FIELDS = ("title", "tags", "brand", "category", "description")
# Description text past this many words adds nothing to search.
DESCRIPTION_TERMS = 300
# Longer "words" are no words a shopper misspells (catalog/spelling.py corrects up to 30 letters).
MAX_WORD = 32
_TRUNCATED = re.compile(r"(\.\.\.|\u2026)\s*$")


def _stems(source: str) -> str:
    return " ".join(term for term in text.terms(source) if term not in text.STOP_WORDS)


def clean_words(title: str) -> list[str]:
    """A title's whole words: the last word of a title cut short ("... Wif...") is a fragment."""
    found = text.words(title)
    if _TRUNCATED.search(title) and found:
        found.pop()
    return found


def search_document(
    *,
    title: str,
    tags: Iterable[str],
    brand: str | None,
    category_l1: str | None,
    category_l2: str | None,
    description: str | None,
) -> dict[str, Any]:
    """The search document of a product's text."""
    # What the title states it is by its specifications alone (a phone), as a tag would say it.
    tag_list = [tag for tag in tags if isinstance(tag, str)] + list(types.stated_names(title))
    description_terms = [
        term for term in text.terms(description or "") if term not in text.STOP_WORDS
    ][:DESCRIPTION_TERMS]
    words: set[str] = set()
    for source in (title, " ".join(tag_list), brand or ""):
        words.update(
            word for word in clean_words(source) if word.isalpha() and 2 < len(word) <= MAX_WORD
        )
    return {
        "title": _stems(title),
        # " . " keeps two tags' words from reading as one phrase in the shopper guide; search
        # never sees punctuation.
        "tags": _stems(" . ".join(tag_list)),
        "brand": _stems(brand or ""),
        "category": _stems(f"{category_l1 or ''} . {category_l2 or ''}"),
        "description": " ".join(description_terms),
        "words": sorted(words),
    }


def of_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """The search document of a product given as its column values (an import row)."""
    return search_document(
        title=str(fields.get("title") or ""),
        tags=fields.get("tags") or [],
        brand=fields.get("brand"),
        category_l1=fields.get("category_l1"),
        category_l2=fields.get("category_l2"),
        description=fields.get("description"),
    )


def read(fields: dict[str, Any]) -> dict[str, Any]:
    """What search reads of a product given as its column values, column by column: its search
    document, its type (catalog/types.py) and its brand's key (catalog/brands.py)."""
    title = str(fields.get("title") or "")
    return {
        "search_document": of_fields(fields),
        "product_type": types.type_of(
            title, fields.get("category_l2"), fields.get("declared_type")
        ),
        "brand_key": brands.brand_key(fields.get("brand"), title),
    }


def readings(rows: Sequence[dict[str, Any]], embed: bool) -> list[dict[str, Any]]:
    """What is written with each product given as its column values (`Product.TEXT_FIELDS`):
    what search reads of it (read()) and its embedding (catalog/semantic.py; None unless
    `embed`), the rows embedded together."""
    meanings: list[bytes | None] = [None] * len(rows)
    if embed and rows:
        meanings = semantic.embeddings([semantic.product_text(row) for row in rows])
    return [
        {**read(row), "embedding": meaning} for row, meaning in zip(rows, meanings, strict=True)
    ]
