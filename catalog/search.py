"""Tiered product retrieval for a resolved intent (DESIGN.md section 5, "Recommend").

The tiers run from tightest to loosest; each one only adds products the earlier ones missed:

    raw_substring  the shopper's own words, normalized, occur in a product title
    strict         every keyword, inside the resolved categories
    narrow         every keyword, any category
    fuzzy          any keyword, spelling mistakes forgiven (trigram similarity)
    broadened      the resolved categories only

Every tier, and the trending fill after them, keeps to the region (products sold there or
everywhere) and to the budget: a stated maximum is never exceeded, a stated minimum never
undercut, and a product without a price is left out when a budget was stated.

One backend per database vendor answers the tiers, on the indexes of migration
catalog/0002_product_search: PostgreSQL full-text search and pg_trgm, SQLite FTS5 with the
trigram tokenizer. Both read the same searchable text of a product: its title, brand,
categories and tags.
"""

import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Q
from django.utils import timezone
from redis.exceptions import RedisError

from catalog.models import Product

TIERS = ("raw_substring", "strict", "narrow", "fuzzy", "broadened")
TRENDING = "trending"
TRENDING_WINDOW = timedelta(days=30)
# Trending products are ranked once per region and reused this long.
TRENDING_CACHE_S = 300
TRENDING_POOL = 100
CATEGORIES_CACHE_S = 300
# How alike a misspelt word and a word of the product must be for the fuzzy tier (0-1).
FUZZY_SIMILARITY = 0.5
FUZZY_CANDIDATES = 200


@dataclass(frozen=True)
class SearchQuery:
    text: str  # the shopper's words, normalized (engine.normalize)
    keywords: Sequence[str]
    categories: Sequence[str]
    region: str | None = None
    budget_min: float | None = None
    budget_max: float | None = None

    @property
    def has_budget(self) -> bool:
        return self.budget_min is not None or self.budget_max is not None


@dataclass(frozen=True)
class Hit:
    product_id: int
    tier: str  # one of TIERS, or TRENDING


@dataclass(frozen=True)
class Retrieval:
    hits: list[Hit]

    @property
    def intent_hits(self) -> int:
        return sum(hit.tier != TRENDING for hit in self.hits)

    @property
    def trending_fill(self) -> int:
        return sum(hit.tier == TRENDING for hit in self.hits)

    @property
    def match_tier(self) -> str:
        """The loosest tier that contributed a product; `none` when no tier did."""
        used = {hit.tier for hit in self.hits}
        return next((tier for tier in reversed(TIERS) if tier in used), "none")

    @property
    def note(self) -> str | None:
        if self.trending_fill and self.intent_hits:
            return "intent_plus_trending"
        if self.trending_fill:
            return "trending_suggested"
        return None


def retrieve(query: SearchQuery, limit: int) -> Retrieval:
    """Up to `limit` products: the tiers in order, then trending products to fill."""
    found: dict[int, str] = {}
    for tier in TIERS:
        if len(found) >= limit:
            break
        for product_id in tier_ids(tier, query, limit - len(found), exclude=found):
            found.setdefault(product_id, tier)
    if len(found) < limit:
        for product_id in trending_ids(query, limit - len(found), exclude=found):
            found.setdefault(product_id, TRENDING)
    return Retrieval([Hit(product_id, tier) for product_id, tier in found.items()])


def tier_ids(
    tier: str, query: SearchQuery, limit: int, *, exclude: Iterable[int] = ()
) -> list[int]:
    """The ids one tier finds, best first, none of `exclude`."""
    backend = _backend()
    skip = set(exclude)
    words = [word for word in query.keywords if word.strip()]
    if tier == "raw_substring":
        # LIKE wildcards in the shopper's text would match what the shopper did not type.
        if not 3 <= len(query.text) <= 300 or re.search(r"[%_\\]", query.text):
            return []
        ids = backend.title_contains(query, query.text, limit + len(skip))
    elif tier == "strict":
        if not words or not query.categories:
            return []
        ids = backend.all_words(query, words, limit + len(skip), in_categories=True)
    elif tier == "narrow":
        if not words:
            return []
        ids = backend.all_words(query, words, limit + len(skip), in_categories=False)
    elif tier == "fuzzy":
        if not words:
            return []
        ids = backend.any_word(query, words, limit + len(skip))
    elif tier == "broadened":
        if not query.categories:
            return []
        ids = backend.in_categories(query, limit + len(skip))
    else:
        raise ValueError(f"unknown tier {tier!r}")
    return [product_id for product_id in ids if product_id not in skip][:limit]


# --- Trending fill -----------------------------------------------------------------------------


def _cached(key: str, timeout: int, compute: Any) -> Any:
    try:
        value = cache.get(key)
    except RedisError:
        return compute()
    if value is None:
        value = compute()
        with contextlib.suppress(RedisError):
            cache.set(key, value, timeout=timeout)
    return value


def _trending_pool(region: str | None) -> list[tuple[int, Decimal | None]]:
    """(id, price) of the region's best sellers: creator GMV of the last 30 days first, then
    all-time creator GMV, so a quiet month still has an order."""
    since = timezone.now() - TRENDING_WINDOW
    where, params = _backend().region_filter(region)
    sql = (
        "SELECT p.id, p.price_usd FROM catalog_product p "
        "JOIN catalog_video v ON v.product_id = p.id "
        f"WHERE {where} GROUP BY p.id, p.price_usd "
        "ORDER BY SUM(CASE WHEN v.published_at >= %s THEN v.gmv_usd ELSE 0 END) DESC, "
        "SUM(v.gmv_usd) DESC, p.id LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, since, TRENDING_POOL])
        return [(row[0], row[1]) for row in cursor.fetchall()]


def trending_ids(query: SearchQuery, limit: int, *, exclude: Iterable[int] = ()) -> list[int]:
    """Best-selling products of the region that fit the budget, none of `exclude`."""
    pool = _cached(
        f"catalog:trending:{query.region or '*'}",
        TRENDING_CACHE_S,
        lambda: _trending_pool(query.region),
    )
    skip = set(exclude)
    chosen = []
    for product_id, price in pool:
        if product_id in skip or not _within_budget(query, price):
            continue
        chosen.append(product_id)
        if len(chosen) == limit:
            break
    return chosen


def fits(query: SearchQuery, product: Product | None) -> bool:
    """Whether a loaded product (None: gone) still keeps to the query's region and budget."""
    if product is None:
        return False
    sold_there = not product.regions or query.region is None or query.region in product.regions
    return sold_there and _within_budget(query, product.price_usd)


def _within_budget(query: SearchQuery, price: Decimal | float | None) -> bool:
    if not query.has_budget:
        return True
    if price is None:
        return False
    value = float(price)
    low_ok = query.budget_min is None or value >= query.budget_min
    return low_ok and (query.budget_max is None or value <= query.budget_max)


def catalog_categories() -> list[str]:
    """Every category name (level 1 and 2) the catalog uses: what the engine may answer."""

    def compute() -> list[str]:
        names: set[str] = set()
        for level in ("category_l1", "category_l2"):
            names.update(
                Product.objects.exclude(Q(**{f"{level}__isnull": True}) | Q(**{level: ""}))
                .values_list(level, flat=True)
                .distinct()
            )
        return sorted(names)

    return list(_cached("catalog:categories", CATEGORIES_CACHE_S, compute))


# --- Backends ----------------------------------------------------------------------------------


def _trigrams(word: str) -> set[str]:
    padded = f"  {word.lower()} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def word_similarity(keyword: str, text: str) -> float:
    """How alike `keyword` and its closest word of `text` are, 0-1: shared trigrams over all
    trigrams of the two (pg_trgm's strict_word_similarity, word by word)."""
    wanted = _trigrams(keyword)
    words = re.findall(r"\w+", text.lower())
    return max(
        (len(wanted & (grams := _trigrams(word))) / len(wanted | grams) for word in words),
        default=0.0,
    )


def _fuzzy_words(keywords: Sequence[str]) -> list[str]:
    """The single words the fuzzy tier looks for: a misspelling of a word shorter than four
    letters is too close to too many other words to mean anything."""
    words = (part for keyword in keywords for part in re.findall(r"\w+", keyword.lower()))
    return list(dict.fromkeys(word for word in words if len(word) >= 4))


class _Backend:
    vendor = ""

    def region_filter(self, region: str | None) -> tuple[str, list[Any]]:
        raise NotImplementedError

    def filters(self, query: SearchQuery, *, in_categories: bool) -> tuple[str, list[Any]]:
        """The WHERE conditions every tier shares, on products aliased `p`."""
        where, params = self.region_filter(query.region)
        clauses = [where]
        if query.has_budget:
            clauses.append("p.price_usd IS NOT NULL")
        if query.budget_max is not None:
            clauses.append("p.price_usd <= %s")
            params.append(query.budget_max)
        if query.budget_min is not None:
            clauses.append("p.price_usd >= %s")
            params.append(query.budget_min)
        if in_categories:
            marks = ", ".join(["%s"] * len(query.categories))
            clauses.append(f"(p.category_l2 IN ({marks}) OR p.category_l1 IN ({marks}))")
            params.extend([*query.categories, *query.categories])
        return " AND ".join(clauses), params

    def ids(self, sql: str, params: list[Any]) -> list[int]:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [row[0] for row in cursor.fetchall()]

    def title_contains(self, query: SearchQuery, text: str, limit: int) -> list[int]:
        raise NotImplementedError

    def all_words(
        self, query: SearchQuery, words: Sequence[str], limit: int, *, in_categories: bool
    ) -> list[int]:
        raise NotImplementedError

    def any_word(self, query: SearchQuery, words: Sequence[str], limit: int) -> list[int]:
        raise NotImplementedError

    def in_categories(self, query: SearchQuery, limit: int) -> list[int]:
        """Products of the resolved categories, best creator sellers first."""
        where, params = self.filters(query, in_categories=True)
        return self.ids(
            "SELECT p.id FROM catalog_product p "
            "LEFT JOIN catalog_video v ON v.product_id = p.id "
            f"WHERE {where} GROUP BY p.id "
            "ORDER BY COALESCE(SUM(v.gmv_usd), 0) DESC, p.id LIMIT %s",
            [*params, limit],
        )


class _Sqlite(_Backend):
    """FTS5 with the trigram tokenizer: a quoted word matches wherever it occurs as a
    substring, case-insensitively; words shorter than three characters cannot use the index and
    are matched with LIKE on the same text."""

    vendor = "sqlite"

    def region_filter(self, region: str | None) -> tuple[str, list[Any]]:
        if region is None:
            return "1 = 1", []
        return (
            "(p.regions = '[]' OR EXISTS "
            "(SELECT 1 FROM json_each(p.regions) WHERE json_each.value = %s))",
            [region],
        )

    @staticmethod
    def _phrase(word: str) -> str:
        return '"' + word.replace('"', '""') + '"'

    def _search(
        self,
        query: SearchQuery,
        match: str,
        extra: list[tuple[str, list[Any]]],
        limit: int,
        *,
        in_categories: bool,
        columns: str = "p.id",
    ) -> list[Any]:
        where, params = self.filters(query, in_categories=in_categories)
        conditions = [where, *(sql for sql, _ in extra)]
        for _, extra_params in extra:
            params.extend(extra_params)
        sql = (
            f"SELECT {columns} FROM catalog_product_fts "
            "JOIN catalog_product p ON p.id = catalog_product_fts.rowid "
            f"WHERE catalog_product_fts MATCH %s AND {' AND '.join(conditions)} "
            "ORDER BY catalog_product_fts.rank, p.id LIMIT %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [match, *params, limit])
            return cursor.fetchall()

    def title_contains(self, query: SearchQuery, text: str, limit: int) -> list[int]:
        where, params = self.filters(query, in_categories=False)
        # The trigram index answers LIKE on its columns; shortest titles are the closest.
        return self.ids(
            "SELECT p.id FROM catalog_product_fts "
            "JOIN catalog_product p ON p.id = catalog_product_fts.rowid "
            f"WHERE catalog_product_fts.title LIKE %s AND {where} "
            "ORDER BY length(p.title), p.id LIMIT %s",
            [f"%{text}%", *params, limit],
        )

    def all_words(
        self, query: SearchQuery, words: Sequence[str], limit: int, *, in_categories: bool
    ) -> list[int]:
        indexed = [word for word in words if len(word) >= 3]
        short = [
            ("catalog_product_fts.document LIKE %s", [f"%{word}%"])
            for word in words
            if len(word) < 3 and not re.search(r"[%_\\]", word)
        ]
        if not indexed:
            return []
        match = "{document} : (" + " AND ".join(self._phrase(word) for word in indexed) + ")"
        rows = self._search(query, match, short, limit, in_categories=in_categories)
        return [row[0] for row in rows]

    def any_word(self, query: SearchQuery, words: Sequence[str], limit: int) -> list[int]:
        # Candidates share at least one trigram with a keyword; similarity then decides.
        singles = _fuzzy_words(words)
        grams = sorted({gram for word in singles for gram in _trigrams(word) if " " not in gram})
        if not grams:
            return []
        match = "{document} : (" + " OR ".join(self._phrase(gram) for gram in grams) + ")"
        rows = self._search(
            query,
            match,
            [],
            FUZZY_CANDIDATES,
            in_categories=False,
            columns="p.id, catalog_product_fts.document",
        )
        scored = []
        for product_id, document in rows:
            best = max(word_similarity(word, document) for word in singles)
            if best >= FUZZY_SIMILARITY:
                scored.append((-best, product_id))
        return [product_id for _, product_id in sorted(scored)[:limit]]


PG_DOCUMENT = (
    "(coalesce(p.title, '') || ' ' || coalesce(p.brand, '') || ' ' || coalesce(p.category_l1, '')"
    " || ' ' || coalesce(p.category_l2, '') || ' ' || p.tags::text)"
)
PG_VECTOR = f"to_tsvector('english'::regconfig, {PG_DOCUMENT})"


class _Postgres(_Backend):
    """Full-text search (English stemming) on a GIN expression index for whole words, pg_trgm
    GIN indexes for substrings of titles and for misspelt words."""

    vendor = "postgresql"

    def region_filter(self, region: str | None) -> tuple[str, list[Any]]:
        if region is None:
            return "TRUE", []
        return "(p.regions = '[]'::jsonb OR p.regions @> jsonb_build_array(%s::text))", [region]

    def title_contains(self, query: SearchQuery, text: str, limit: int) -> list[int]:
        where, params = self.filters(query, in_categories=False)
        return self.ids(
            f"SELECT p.id FROM catalog_product p WHERE lower(p.title) LIKE %s AND {where} "
            "ORDER BY length(p.title), p.id LIMIT %s",
            [f"%{text.lower()}%", *params, limit],
        )

    def all_words(
        self, query: SearchQuery, words: Sequence[str], limit: int, *, in_categories: bool
    ) -> list[int]:
        where, params = self.filters(query, in_categories=in_categories)
        tsquery = " && ".join(["plainto_tsquery('english'::regconfig, %s)"] * len(words))
        return self.ids(
            f"SELECT p.id FROM catalog_product p WHERE {PG_VECTOR} @@ ({tsquery}) AND {where} "
            f"ORDER BY ts_rank_cd({PG_VECTOR}, ({tsquery})) DESC, p.id LIMIT %s",
            [*words, *params, *words, limit],
        )

    def any_word(self, query: SearchQuery, words: Sequence[str], limit: int) -> list[int]:
        singles = _fuzzy_words(words)
        if not singles:
            return []
        where, params = self.filters(query, in_categories=False)
        # `<<%` (strict word similarity above pg_trgm.strict_word_similarity_threshold, 0.5 by
        # default) is answered by the trigram index; the similarity then orders and filters.
        near = " OR ".join([f"%s <<%% {PG_DOCUMENT}"] * len(singles))
        similarity = f"strict_word_similarity(%s, {PG_DOCUMENT})"
        best = "GREATEST(" + ", ".join([similarity] * len(singles)) + ")"
        return self.ids(
            f"SELECT p.id FROM catalog_product p WHERE ({near}) AND {where} "
            f"AND {best} >= %s ORDER BY {best} DESC, p.id LIMIT %s",
            [*singles, *params, *singles, FUZZY_SIMILARITY, *singles, limit],
        )


_BACKENDS: dict[str, _Backend] = {"sqlite": _Sqlite(), "postgresql": _Postgres()}


def _backend() -> _Backend:
    return _BACKENDS[connection.vendor]
