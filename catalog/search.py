"""Tiered product retrieval for a resolved intent (DESIGN.md section 5, "Recommend").

The tiers run from tightest to loosest; each one only adds products the earlier ones missed:

    raw_substring  the shopper's own words, normalized, occur in a product title
    strict         every keyword, inside the resolved categories
    narrow         every keyword, any category
    fuzzy          any keyword, spelling mistakes forgiven: each word is corrected to the
                   catalog's words most like it (trigram similarity), which are then searched
    broadened      the resolved categories only

Every tier, and the trending fill after them, keeps to the region (products sold there or
everywhere) and to the budget: a stated maximum is never exceeded, a stated minimum never
undercut, and a product without a price is left out when a budget was stated.

One backend per database vendor answers the tiers, on the indexes of migration
catalog/0002_product_search: PostgreSQL full-text search and a pg_trgm index of titles, SQLite
FTS5 with the trigram tokenizer. Both read the same searchable text of a product: its title, brand,
categories and tags.
"""

import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from catalog.models import Product
from gateway.cache import cached

TIERS = ("raw_substring", "strict", "narrow", "fuzzy", "broadened")
TRENDING = "trending"
TRENDING_WINDOW = timedelta(days=30)
# Trending products are ranked once per region and reused this long.
TRENDING_CACHE_S = 300
TRENDING_POOL = 100
CATEGORIES_CACHE_S = 300
# How alike a misspelt word and a word of the product must be for the fuzzy tier (0-1).
FUZZY_SIMILARITY = 0.5


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
        ids = backend.words(query, words, limit + len(skip), every=True, in_categories=True)
    elif tier == "narrow":
        if not words:
            return []
        ids = backend.words(query, words, limit + len(skip), every=True)
    elif tier == "fuzzy":
        if not words:
            return []
        known = vocabulary()
        corrections = [similar for word in _fuzzy_words(words) for similar in known.similar(word)]
        if not corrections:
            return []
        ids = backend.words(query, list(dict.fromkeys(corrections)), limit + len(skip), every=False)
    elif tier == "broadened":
        if not query.categories:
            return []
        ids = backend.in_categories(query, limit + len(skip))
    else:
        raise ValueError(f"unknown tier {tier!r}")
    return [product_id for product_id in ids if product_id not in skip][:limit]


# --- Trending fill -----------------------------------------------------------------------------


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
    pool = cached(
        f"catalog:trending:{query.region or '*'}",
        TRENDING_CACHE_S,
        lambda: _trending_pool(query.region),
        alias="local",
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

    return list(cached("catalog:categories", CATEGORIES_CACHE_S, compute, alias="local"))


def search_indexes_refresh() -> None:
    """After a bulk load: on PostgreSQL, move the rows waiting in the GIN indexes' pending lists
    into the indexes and refresh the planner's statistics. Until autovacuum does it, a search
    reads every pending row (5 ms instead of 1 ms for a common word at 10k products)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
            "WHERE i.indrelid = 'catalog_product'::regclass AND a.amname = 'gin'"
        )
        cursor.execute("ANALYZE catalog_product")


# --- Backends ----------------------------------------------------------------------------------


def _trigrams(word: str) -> set[str]:
    padded = f"  {word.lower()} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def _fuzzy_words(keywords: Sequence[str]) -> list[str]:
    """The single words the fuzzy tier looks for: a misspelling of a word shorter than four
    letters is too close to too many other words to mean anything."""
    words = (part for keyword in keywords for part in re.findall(r"\w+", keyword.lower()))
    return list(dict.fromkeys(word for word in words if len(word) >= 4))


# --- The catalog's vocabulary (the fuzzy tier) -------------------------------------------------
# A misspelt keyword is first corrected to the catalog's own words that are most like it, then
# the products holding those words are found on the ordinary indexes: the same answer on both
# database vendors, and no similarity computed row by row. The vocabulary (every word of the
# products' searchable text, with a trigram index) is built once per process and per catalog
# version: the products' count and latest change, read at most every VOCABULARY_CHECK_S. A
# static catalog is read once; an import or an edit reaches the corrections within that time.

VOCABULARY_CHECK_S = 60
VOCABULARY_KEY = "catalog:vocabulary-version"
CORRECTIONS_PER_WORD = 5


@dataclass(frozen=True)
class Vocabulary:
    words: list[str]
    grams: list[frozenset[str]]
    postings: dict[str, list[int]]

    @classmethod
    def build(cls) -> "Vocabulary":
        found: set[str] = set()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT title, brand, category_l1, category_l2, tags FROM catalog_product"
            )
            for row in cursor.fetchall():
                text = " ".join(str(part) for part in row if part)
                found.update(word for word in re.findall(r"\w+", text.lower()) if len(word) >= 3)
        words = sorted(found)
        grams = [frozenset(_trigrams(word)) for word in words]
        postings: dict[str, list[int]] = {}
        for index, word_grams in enumerate(grams):
            for gram in word_grams:
                postings.setdefault(gram, []).append(index)
        return cls(words, grams, postings)

    def similar(self, word: str) -> list[str]:
        """The catalog's words most like `word` (similarity >= FUZZY_SIMILARITY), best first."""
        wanted = _trigrams(word)
        shared: dict[int, int] = {}
        for gram in wanted:
            for index in self.postings.get(gram, ()):
                shared[index] = shared.get(index, 0) + 1
        scored = []
        for index, count in shared.items():
            similarity = count / (len(wanted) + len(self.grams[index]) - count)
            if similarity >= FUZZY_SIMILARITY:
                scored.append((-similarity, self.words[index]))
        return [candidate for _, candidate in sorted(scored)[:CORRECTIONS_PER_WORD]]


def catalog_version() -> str:
    """Changes whenever a product is added, removed, or saved."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*), MAX(updated_at) FROM catalog_product")
        count, latest = cursor.fetchone()
    return f"{count}:{latest}"


_vocabulary: tuple[str, Vocabulary] | None = None
# One build at a time: the threads of a web worker that meet a new catalog together wait for
# one build (a fifth of a second of CPU at 10k products) rather than each making its own.
_vocabulary_lock = threading.Lock()


def vocabulary() -> Vocabulary:
    """This process's vocabulary of the current catalog."""
    global _vocabulary
    version = cached(VOCABULARY_KEY, VOCABULARY_CHECK_S, catalog_version, alias="local")
    if _vocabulary is None or _vocabulary[0] != version:
        with _vocabulary_lock:
            if _vocabulary is None or _vocabulary[0] != version:
                # One catalog per process: the newest only.
                _vocabulary = (version, Vocabulary.build())
    return _vocabulary[1]


# --- Backends ----------------------------------------------------------------------------------


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

    def words(
        self,
        query: SearchQuery,
        words: Sequence[str],
        limit: int,
        *,
        every: bool,
        in_categories: bool = False,
    ) -> list[int]:
        """Products holding every one (or any one) of `words`, shortest title first: the title
        that is most nearly just the words is the closest match."""
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

    def _fts(
        self, condition: str, condition_params: list[Any], where: str, params: list[Any], limit: int
    ) -> list[int]:
        return self.ids(
            "SELECT p.id FROM catalog_product_fts "
            "JOIN catalog_product p ON p.id = catalog_product_fts.rowid "
            f"WHERE {condition} AND {where} ORDER BY length(p.title), p.id LIMIT %s",
            [*condition_params, *params, limit],
        )

    def title_contains(self, query: SearchQuery, text: str, limit: int) -> list[int]:
        where, params = self.filters(query, in_categories=False)
        # The trigram index answers LIKE on its columns.
        return self._fts("catalog_product_fts.title LIKE %s", [f"%{text}%"], where, params, limit)

    def words(
        self,
        query: SearchQuery,
        words: Sequence[str],
        limit: int,
        *,
        every: bool,
        in_categories: bool = False,
    ) -> list[int]:
        indexed = [word for word in words if len(word) >= 3]
        short = [word for word in words if len(word) < 3 and not re.search(r"[%_\\]", word)]
        if not indexed:
            return []
        joiner = " AND " if every else " OR "
        match = "{document} : (" + joiner.join(self._phrase(word) for word in indexed) + ")"
        where, params = self.filters(query, in_categories=in_categories)
        conditions, condition_params = ["catalog_product_fts MATCH %s"], [match]
        if every:
            for word in short:
                conditions.append("catalog_product_fts.document LIKE %s")
                condition_params.append(f"%{word}%")
        return self._fts(" AND ".join(conditions), condition_params, where, params, limit)


PG_DOCUMENT = (
    "(coalesce(p.title, '') || ' ' || coalesce(p.brand, '') || ' ' || coalesce(p.category_l1, '')"
    " || ' ' || coalesce(p.category_l2, '') || ' ' || p.tags::text)"
)
PG_VECTOR = f"to_tsvector('english'::regconfig, {PG_DOCUMENT})"


class _Postgres(_Backend):
    """Full-text search (English stemming) on a GIN expression index for whole words, a pg_trgm
    GIN index for substrings of titles."""

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

    def words(
        self,
        query: SearchQuery,
        words: Sequence[str],
        limit: int,
        *,
        every: bool,
        in_categories: bool = False,
    ) -> list[int]:
        where, params = self.filters(query, in_categories=in_categories)
        joiner = " && " if every else " || "
        tsquery = joiner.join(["plainto_tsquery('english'::regconfig, %s)"] * len(words))
        return self.ids(
            f"SELECT p.id FROM catalog_product p WHERE {PG_VECTOR} @@ ({tsquery}) AND {where} "
            "ORDER BY length(p.title), p.id LIMIT %s",
            [*words, *params, limit],
        )


_BACKENDS: dict[str, _Backend] = {"sqlite": _Sqlite(), "postgresql": _Postgres()}


def _backend() -> _Backend:
    return _BACKENDS[connection.vendor]
