"""Tiered product retrieval for a resolved intent (DESIGN.md section 5, "Recommend").

The tiers run from tightest to loosest; each one only adds products the earlier ones missed:

    raw_substring  the shopper's own words, in their order, are words of a product title
    strict         every keyword, inside the resolved categories
    narrow         every keyword, any category
    fuzzy          every keyword, each word the catalog does not know corrected to the known
                   word spelled most like it; in the resolved categories when there are any;
                   never matched against category names
    broadened      the resolved categories only, ranked by the keywords first, sales second

A keyword matches on whole words with their stems ("shoes" finds "Shoe", "men" never finds
"Women's"); a keyword of several words matches when they stand near each other in one field.
Inside a tier, products of the resolved categories come first, then the most relevant (BM25F
of the product's own text, catalog/index.py), then the best sellers with creators.

Every tier, and the trending fill after them, keeps to the region (products sold there or
everywhere) and to the budget: a stated maximum is never exceeded, a stated minimum never
undercut, and a product without a price is left out when a budget was stated.

Retrieval reads the in-process index of catalog/index.py, not the database: the same answer,
in the same order, on SQLite and PostgreSQL. Only the trending fill queries the database.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from catalog import index, text
from catalog.models import Product
from gateway.cache import cached

TIERS = ("raw_substring", "strict", "narrow", "fuzzy", "broadened")
TRENDING = "trending"
TRENDING_WINDOW = timedelta(days=30)
# Trending products are ranked once per region and reused this long.
TRENDING_CACHE_S = 300
TRENDING_POOL = 100
CATEGORIES_CACHE_S = 300


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
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}")
    catalog = index.current()
    skip = set(exclude)
    keywords = [terms for terms in map(text.query_terms, query.keywords) if terms]
    categories = {name.casefold() for name in query.categories}
    if tier == "raw_substring":
        found = _title_phrase(catalog, text.terms(query.text))
        scored = keywords or [text.query_terms(query.text)]
    elif tier in ("strict", "narrow"):
        if not keywords or (tier == "strict" and not categories):
            return []
        found, scored = _every(catalog, keywords), keywords
        if tier == "strict":
            found &= catalog.in_categories(categories)
    elif tier == "fuzzy":
        corrected = _corrected(catalog, query.keywords)
        if corrected is None:
            return []
        found = _every(catalog, corrected, mask=index.NOT_CATEGORY)
        if categories:
            found &= catalog.in_categories(categories)
        scored = corrected
    else:  # broadened
        if not categories:
            return []
        found = catalog.in_categories(categories)
        scored = keywords
    docs = [
        doc
        for doc in found
        if catalog.docs[doc].product_id not in skip and _fits_doc(query, catalog.docs[doc])
    ]
    return [catalog.docs[doc].product_id for doc in _ranked(catalog, docs, scored, categories)][
        :limit
    ]


def _ranked(
    catalog: index.Index,
    docs: list[int],
    keywords: Sequence[Sequence[str]],
    categories: set[str],
) -> list[int]:
    """Best first: inside the resolved categories, then the product itself before accessories
    of it (text.accessory_of), then by score, then by creator sales; the product id breaks the
    last ties, so both databases answer the same order."""
    terms = [term for keyword in keywords for term in keyword]
    scores = catalog.scores(terms, docs)
    heads = [keyword[-1] for keyword in keywords if keyword]
    asked = set(terms)
    return sorted(
        docs,
        key=lambda doc: (
            not catalog.docs[doc].categories & categories,
            text.accessory_of(heads, catalog.docs[doc].field("title"), asked),
            -round(scores[doc], 9),
            -catalog.docs[doc].sales,
            catalog.docs[doc].product_id,
        ),
    )


def _every(catalog: index.Index, keywords: Sequence[Sequence[str]], mask: int = -1) -> set[int]:
    """The docs holding every keyword (a phrase's words near each other)."""
    ordered = sorted(keywords, key=lambda keyword: len(catalog.with_term(keyword[0])))
    found = catalog.with_keyword(ordered[0], mask)
    for keyword in ordered[1:]:
        if not found:
            break
        found &= catalog.with_keyword(keyword, mask)
    return found


def _title_phrase(catalog: index.Index, terms: Sequence[str]) -> set[int]:
    """The docs whose title holds `terms` as consecutive words: the shopper's own words."""
    searched = [term for term in terms if term not in text.STOP_WORDS]
    if not searched or len(terms) > 40:
        return set()
    found = catalog.with_term(searched[0], index.BIT["title"])
    for term in searched[1:]:
        found &= catalog.with_term(term, index.BIT["title"])
    width = len(terms)
    wanted = tuple(terms)
    return {
        doc
        for doc in found
        if any(
            catalog.docs[doc].field("title")[start : start + width] == wanted
            for start in range(len(catalog.docs[doc].field("title")) - width + 1)
        )
    }


def _corrected(catalog: index.Index, keywords: Sequence[str]) -> list[list[str]] | None:
    """The keywords with each misspelt word replaced by its correction (Index.correction);
    None when no word was corrected, or when a word the catalog does not know has none."""
    changed = False
    corrected: list[list[str]] = []
    for keyword in keywords:
        terms: list[str] = []
        for word in text.words(keyword):
            if word in text.STOP_WORDS:
                continue
            fixed = catalog.correction(word)
            if fixed is None and not catalog.df(text.stem(word)):
                return None
            terms.append(text.stem(fixed or word))
            changed = changed or fixed is not None
        if terms:
            corrected.append(terms)
    return corrected if changed else None


def corrections(keywords: Sequence[str]) -> dict[str, str]:
    """The fuzzy tier's corrections of the keywords' misspelt words (word -> catalog word)."""
    catalog = index.current()
    words = (word for keyword in keywords for word in text.words(keyword))
    return {
        word: fixed
        for word in words
        if word not in text.STOP_WORDS and (fixed := catalog.correction(word))
    }


def _fits_doc(query: SearchQuery, doc: index.Doc) -> bool:
    sold_there = not doc.regions or query.region is None or query.region in doc.regions
    return sold_there and _within_budget(query, doc.price)


# --- Trending fill -----------------------------------------------------------------------------


def _trending_pool(region: str | None) -> list[tuple[int, Decimal | None]]:
    """(id, price) of the region's best sellers: creator GMV of the last 30 days first, then
    all-time creator GMV, so a quiet month still has an order."""
    since = timezone.now() - TRENDING_WINDOW
    where, params = _region_filter(region)
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


def _region_filter(region: str | None) -> tuple[str, list[Any]]:
    """The SQL condition of products sold in `region` (aliased `p`), for the trending pool."""
    if region is None:
        return "1 = 1", []
    if connection.vendor == "postgresql":
        return "(p.regions = '[]'::jsonb OR p.regions @> jsonb_build_array(%s::text))", [region]
    return (
        "(p.regions = '[]' OR EXISTS "
        "(SELECT 1 FROM json_each(p.regions) WHERE json_each.value = %s))",
        [region],
    )
