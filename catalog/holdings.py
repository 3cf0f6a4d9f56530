"""What the catalog holds of a brand or a kind of thing: the counts and samples search reads to
decide what a request names (catalog/wanted.py: is this word a brand?) and whether the resolved
categories hold what it wants (catalog/search.py). Each is kept as a statistic of the catalog
(catalog/versions.py); each reads a bounded number of rows through an index of its own (brand_key,
product_type), however large the catalog."""

from collections.abc import Sequence

import orjson
from django.db import connection

from catalog import text, types, versions


def led_by(key: str, cap: int) -> int:
    """How many products have the brand key `key` (catalog/brands.py), counted up to `cap`."""
    return _counted("brand_key", key, cap)


def typed(stem: str, cap: int = 1000) -> int:
    """How many products are of the type `stem` (catalog/types.py), counted up to `cap`: many
    for a word that names products ("kettle", "watch"), few or none for one that says where or
    when ("office", "winter")."""
    return int(
        versions.statistic("typed", f"{stem}:{cap}", lambda: _counted("product_type", stem, cap))
    )


def _counted(column: str, value: str, cap: int) -> int:
    """Products whose indexed `column` (a constant name) is `value`, counted up to `cap`."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM catalog_product WHERE {column} = %s "  # noqa: S608
            "LIMIT %s) held",
            [value, cap],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def of_kinds(kinds: Sequence[types.Kind], limit: int = 200) -> list[tuple[str, str, str]]:
    """Up to `limit` products of the kinds' types that are of one of the kinds: each one's
    categories (lower case) and title; kept by this process as a statistic of the catalog."""
    if not kinds:
        return []
    key = orjson.dumps([list(kind) for kind in kinds] + [limit]).decode()
    found: list[tuple[str, str, str]] = versions.statistic(
        "of-kinds", key, lambda: _of_kinds(kinds, limit)
    )
    return found


def _of_kinds(kinds: Sequence[types.Kind], limit: int) -> list[tuple[str, str, str]]:
    wanted = list(dict.fromkeys(kind[-1] for kind in kinds))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.title, p.product_type, p.category_l1, p.category_l2 "  # noqa: S608
            f"FROM catalog_product p WHERE p.product_type IN ({', '.join(['%s'] * len(wanted))}) "
            "LIMIT %s",
            [*wanted, limit],
        )
        rows = cursor.fetchall()
    return [
        ((row[2] or "").lower(), (row[3] or "").lower(), row[0] or "")
        for row in rows
        if types.is_kind(kinds, row[1] or "", text.terms(row[0] or ""))
    ]
