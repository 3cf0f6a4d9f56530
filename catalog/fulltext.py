"""The database's full-text search over the products' search documents (catalog/documents.py).

One copy of the index for every web process and host, kept by the database as products are
written (migration 0006): PostgreSQL's weighted `tsvector` with a GIN index and pg_trgm for the
spelling vocabulary; SQLite's FTS5 on the embedded default. Each backend answers the same three
questions; catalog/search.py and catalog/spelling.py ask them and never see SQL:

- candidates(): the products a Match finds within the filters, at most `limit`, in `order_by`'s
  order (the score: FTS5's bm25 with field weights, PostgreSQL's ts_rank with A-D's weights).
  The database ranks the products the match finds but returns a bounded few, so no request
  reads more than `limit` rows back, however large the catalog.
- documents_with(): how many products hold a term, counted up to a cap.
- spelled_like(): the vocabulary's words whose trigrams are most like a word's.

Matches (catalog/fulltext_query.py writes them in each database's query language) are written
for the documents' stems: a superset of what the gateway's analyzer means by them (a phrase's
words near each other, in any order on SQLite, anywhere in the fields asked for), which
catalog/search.py checks against the exact rule (order, slack, one field) before it keeps one.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import connection

from catalog import text, types, versions
from catalog.fulltext_filters import Filters as Filters
from catalog.fulltext_filters import conditions, order_by, typed_sql
from catalog.fulltext_filters import holding as holding
from catalog.fulltext_filters import region_condition as region_condition
from catalog.fulltext_query import Match as Match
from catalog.fulltext_query import fts5_query, pg_query, pg_term

# ts_rank's weights of D, C, B, A; SQLite's bm25 weights of the FTS5 columns, in FIELDS order.
PG_WEIGHTS = "{0.1, 0.2, 0.5, 1.0}"
FTS5_WEIGHTS = "3.0, 2.0, 1.5, 1.0, 0.5"
# The matches a query ranks at most, the first the index yields past the filters: no search
# costs more than ranking this many, however large the catalog.
WINDOW = 2000
# A word held by this many products is common: counted no further, it weighs least
# (the partial tier, catalog/partial.py) and is never asked for alone.
COMMON = 1000
# documents_with() counts at least this far on PostgreSQL (see there).
SMALLEST_COUNT = 100


@dataclass(frozen=True)
class Candidate:
    product_id: int
    title: str
    tags: list[str]
    brand: str | None
    category_l1: str | None
    category_l2: str | None
    in_categories: bool
    score: float  # the database's relevance score: higher is better
    sales: float  # all-time creator GMV
    price: float | None = None  # in US dollars
    embedding: bytes | None = None  # what its text means (catalog/semantic.py)
    product_type: str = ""  # what it is (catalog/types.py)
    brand_key: str = ""  # whose it is (catalog/brands.py)
    typed: bool = False  # of a kind the shopper wants (Filters.kinds)
    near: bool = False  # in a category named like the resolved ones (Filters.near)
    branded: bool = False  # of the brand the shopper named (Filters.brand)


def candidates(
    match: Match | None,
    filters: Filters,
    limit: int,
    *,
    scored: Sequence[str] = (),
    by_id: bool = True,
) -> list[Candidate]:
    """The best `limit` products `match` finds within `filters`; with no match, the products
    of the filters' categories, by id (else as the database finds them, through the
    categories' indexes: never a walk of the catalog's ids). `scored`: the stems to score by,
    when not the match's own."""
    sql, params = candidates_query(match, filters, limit, scored=scored, by_id=by_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        Candidate(
            product_id=int(row[0]),
            title=row[1] or "",
            # The names of what its specifications state it is (a phone) are tags to search.
            tags=[*_strings(row[2]), *types.NAMED_BY_TYPE.get(row[6] or "", ())],
            brand=row[3],
            category_l1=row[4],
            category_l2=row[5],
            product_type=row[6] or "",
            brand_key=row[7] or "",
            price=float(row[8]) if row[8] is not None else None,
            in_categories=int(row[9] or 0) == 2,
            near=int(row[9] or 0) == 1,
            # The database knows the type; the word that says which kind of it is in the title.
            typed=int(row[10] or 0) % 2 == 1
            and types.is_kind(filters.kinds, row[6] or "", text.terms(row[1] or "")),
            branded=bool(filters.brand) and row[7] == filters.brand,
            embedding=bytes(row[11]) if row[11] is not None else None,
            score=float(row[12] or 0.0),
            sales=float(row[13] or 0.0),
        )
        for row in rows
    ]


def candidates_query(
    match: Match | None,
    filters: Filters,
    limit: int,
    *,
    scored: Sequence[str] = (),
    by_id: bool = True,
) -> tuple[str, list[Any]]:
    """The SQL and parameters candidates() runs (bench/search_100k.py reads its plan)."""
    if match is None:
        where, params, inside, inside_params = conditions(filters)
        typed, typed_params = typed_sql(filters)
        order = "ORDER BY p.id " if by_id else ""
        sql = (
            f"SELECT {_SELECTED}, {inside} AS inside, {typed} AS typed, "  # noqa: S608
            "p.embedding, 0 AS score FROM catalog_product p "
            f"WHERE {where} {order}LIMIT %s"
        )
        params = [*inside_params, *typed_params, *params, limit]
    else:
        backend = _postgres if connection.vendor == "postgresql" else _sqlite
        sql, params = backend(match, filters, limit, scored)
    # Creator sales (a tie-break of the order) for the few rows returned, in the same round trip.
    return (
        "SELECT chosen.*, (SELECT SUM(v.gmv_usd) FROM catalog_video v "  # noqa: S608
        f"WHERE v.product_id = chosen.id) AS sales FROM ({sql}) chosen "
        f"ORDER BY {order_by('chosen', filters)}, chosen.id",
        params,
    )


def documents_with(term: str | Sequence[str], cap: int) -> int:
    """How many products hold `term` (a stem, or a phrase's stems standing together) in any
    field, counted up to `cap`; kept by this process as a statistic of the catalog
    (catalog/versions.py: across edits of a few products, at most CATALOG_CACHE_S), since a
    common word's count reads its whole list of products in the index and a query asks for a
    dozen. A count of none follows the version, so a word an import or an admin edit adds is
    counted on every process within CHECK_S, as their search hits are."""
    key = orjson.dumps([term, cap]).decode()
    return int(versions.statistic("documents", key, lambda: _count(term, cap)))


def _count(term: str | Sequence[str], cap: int) -> int:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Never a tiny LIMIT: PostgreSQL's planner takes LIMIT 1 as a promise that a scan
            # of the table finds a row at once, and a rare word (the ones the fuzzy tier asks
            # about) then costs a scan of every product (docs/benchmarks.md, "Scale").
            phrase = Match([[term] if isinstance(term, str) else term], exact_phrase=True)
            cursor.execute(
                "SELECT least(count(*), %s) FROM (SELECT 1 FROM catalog_product "
                "WHERE search_vector @@ to_tsquery('simple', %s) LIMIT %s) found",
                [cap, pg_query(phrase), max(cap, SMALLEST_COUNT)],
            )
        elif isinstance(term, str):
            cursor.execute(
                "SELECT min(doc, %s) FROM catalog_product_fts_terms WHERE term = %s", [cap, term]
            )
        else:
            cursor.execute(
                "SELECT count(*) FROM (SELECT 1 FROM catalog_product_fts "
                "WHERE catalog_product_fts MATCH %s LIMIT %s)",
                [fts5_query(Match([term], exact_phrase=True)), cap],
            )
        row = cursor.fetchone()
    return int(row[0] or 0) if row else 0


def is_word(word: str) -> bool:
    """Whether `word` is a clean whole word of the vocabulary (catalog.models.SearchWord): one
    some title, tag or brand writes; kept by this process as a statistic of the catalog
    (catalog/versions.py)."""
    return bool(versions.statistic("word", word, lambda: _in_vocabulary(word)))


def _in_vocabulary(word: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM catalog_searchword WHERE word = %s", [word])
        return cursor.fetchone() is not None


def spelled_like(word: str, limit: int) -> list[str]:
    """Up to `limit` words of the vocabulary, those sharing the most trigrams with `word`
    first (PostgreSQL: pg_trgm's distance; SQLite: bm25 over the words' trigrams)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT word FROM catalog_searchword ORDER BY word <-> %s LIMIT %s", [word, limit]
            )
            return [row[0] for row in cursor.fetchall()]
        grams = " OR ".join(f'"{gram}"' for gram in sorted(trigrams(word)) if '"' not in gram)
        if not grams:
            return []
        cursor.execute(
            "SELECT word FROM catalog_searchword_grams WHERE catalog_searchword_grams MATCH %s "
            "ORDER BY rank LIMIT %s",
            [grams, limit],
        )
        return [row[0].strip() for row in cursor.fetchall()]


def best_sellers(filters: Filters, limit: int) -> list[int]:
    """Up to `limit` products within `filters` that sold with creators, by all-time GMV."""
    where, params, _, _ = conditions(filters)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT v.product_id FROM catalog_video v JOIN catalog_product p "  # noqa: S608
            f"ON p.id = v.product_id WHERE {where} GROUP BY v.product_id "
            "HAVING SUM(v.gmv_usd) > 0 ORDER BY SUM(v.gmv_usd) DESC, v.product_id LIMIT %s",
            [*params, limit],
        )
        return [int(row[0]) for row in cursor.fetchall()]


def trigrams(word: str) -> set[str]:
    """A word's trigrams, padded as pg_trgm pads them: two spaces before, one after."""
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


# --- The backends ------------------------------------------------------------------------------

# A candidate's columns, in the order candidates() reads them.
_COLUMNS = (
    *("id", "title", "tags", "brand", "category_l1", "category_l2"),
    *("product_type", "brand_key", "price_usd"),
)
_SELECTED = ", ".join(f"p.{name}" for name in _COLUMNS)
_FOUND = ", ".join(f"found.{name}" for name in (*_COLUMNS, "inside", "typed", "embedding"))


def _postgres(
    match: Match, filters: Filters, limit: int, scored: Sequence[str]
) -> tuple[str, list[Any]]:
    where, params, inside, inside_params = conditions(filters)
    typed, typed_params = typed_sql(filters)
    terms = scored or [term for keyword in match.keywords for term in keyword]
    rank = " | ".join(pg_term(term) for term in dict.fromkeys(terms))
    ranked = [rank or pg_term("_"), *inside_params, *typed_params]
    return (
        f"SELECT {_FOUND}, ts_rank('{PG_WEIGHTS}', found.search_vector, "  # noqa: S608
        "to_tsquery('simple', %s), 1) AS score "
        f"FROM (SELECT {_SELECTED}, p.search_vector, {inside} AS inside, {typed} AS typed, "
        "p.embedding FROM catalog_product p "
        f"WHERE p.search_vector @@ to_tsquery('simple', %s) AND {where} LIMIT %s) found "
        f"ORDER BY {order_by('found', filters, 'score')}, found.id LIMIT %s",
        [*ranked, pg_query(match), *params, WINDOW, limit],
    )


def _sqlite(
    match: Match, filters: Filters, limit: int, scored: Sequence[str]
) -> tuple[str, list[Any]]:
    where, params, inside, inside_params = conditions(filters)
    typed, typed_params = typed_sql(filters)
    return (
        f"SELECT {_FOUND}, found.score FROM (SELECT {_SELECTED}, {inside} AS inside, "  # noqa: S608
        f"{typed} AS typed, p.embedding, -bm25(catalog_product_fts, {FTS5_WEIGHTS}) AS score "
        "FROM catalog_product_fts JOIN catalog_product p ON p.id = catalog_product_fts.rowid "
        f"WHERE catalog_product_fts MATCH %s AND {where} LIMIT %s) found "
        f"ORDER BY {order_by('found', filters)}, found.id LIMIT %s",
        [*inside_params, *typed_params, fts5_query(match), *params, WINDOW, limit],
    )


def _strings(value: object) -> list[str]:
    """A JSON list column as read by a raw cursor: a list on PostgreSQL, text on SQLite."""
    if isinstance(value, str):
        value = orjson.loads(value)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
