"""The catalog's category names: what the engine may answer, and what the semantic tier maps a
query onto when the engine named none."""

from collections.abc import Sequence
from typing import Literal

import orjson
from django.db import connection

from catalog import text
from kernel.cache import cached

CATEGORIES_CACHE_S = 300
Level = Literal["category_l1", "category_l2"]


def catalog_categories() -> list[str]:
    """Every category name (level 1 and 2) the catalog uses: what the engine may answer."""
    return sorted({*_names("category_l1"), *_names("category_l2")})


def _names(level: Level) -> list[str]:
    """The names one level of categories uses, kept for CATEGORIES_CACHE_S."""

    def compute() -> list[str]:
        # Each name found by one step down the column's index from the one before (a "loose
        # index scan"): as many steps as names, however many products (a DISTINCT reads the
        # whole table: seconds at a million products). `level` is one of two column names.
        with connection.cursor() as cursor:
            cursor.execute(
                "WITH RECURSIVE names(name) AS ("
                f"SELECT MIN({level}) FROM catalog_product WHERE {level} > '' "
                f"UNION ALL SELECT (SELECT MIN({level}) FROM catalog_product "
                f"WHERE {level} > names.name) FROM names WHERE names.name IS NOT NULL) "
                "SELECT name FROM names WHERE name IS NOT NULL"
            )
            return sorted(row[0] for row in cursor.fetchall())

    return list(cached(f"catalog:categories:{level}", CATEGORIES_CACHE_S, compute))


def named_by(phrases: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The catalog's second-level category names (lower case) that one of `phrases` (stems in
    order) of two words or more names whole: "sports shoes" ruled out names the "Sports Shoes"
    department. A word alone names none ("shoes": a "Shoes" department holds slippers too), nor
    does a first-level name (a department of departments: "Pet Supplies" of "Dog supplies")."""
    named = {tuple(phrase) for phrase in phrases if len(phrase) > 1}
    if not named:
        return ()
    return tuple(
        name.lower() for name in _names("category_l2") if tuple(text.query_terms(name)) in named
    )


def near(names: Sequence[str]) -> tuple[str, ...]:
    """The catalog's second-level category names (lower case), other than `names`, that share
    with one of `names` a word no third name holds: "health & personal care" beside a model's
    "personal care appliances", "watches" beside "kids' watches"; never by a word many names
    hold ("accessories", "home", "all"). Kept as the names are."""
    asked = tuple(sorted({name.lower() for name in names}))
    if not asked:
        return ()
    return tuple(
        cached(
            f"catalog:categories:near:{orjson.dumps(asked).decode()}",
            CATEGORIES_CACHE_S,
            lambda: _near(asked),
        )
    )


def _near(asked: Sequence[str]) -> list[str]:
    catalog = [name.lower() for name in _names("category_l2")]
    words = {name: set(text.query_terms(name)) for name in {*catalog, *asked}}
    held: dict[str, int] = {}
    for name in catalog:
        for word in words[name]:
            held[word] = held.get(word, 0) + 1
    rare = {word for name in asked for word in words[name] if held.get(word, 0) <= 2}
    return [name for name in catalog if name not in asked and words[name] & rare]
