"""The SQL of a search's filters (catalog/fulltext.py): where a product must be sold and
priced, what it must not hold, whether it is inside the resolved categories, of the wanted
type or brand, and the order those give the products a match finds. Products are aliased `p`."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection

from catalog import types
from catalog.fulltext_query import Match, fts5_query, pg_query


@dataclass(frozen=True)
class Filters:
    region: str | None = None
    budget_min: float | None = None
    budget_max: float | None = None
    categories: Sequence[str] = ()  # lower-case names: preferred, or required with `within`
    within: bool = False
    # Second-level categories (lower-case names) named like the resolved ones
    # (categories.near): their products come after those inside, before the rest.
    near: Sequence[str] = ()
    exclude: Sequence[int] = ()
    # Stems or phrases (stems in order) no product's title, tags or brand may hold.
    ruled_out: Sequence[Sequence[str]] = ()
    # Categories (lower-case names) the shopper ruled out by name: none of their products.
    ruled_out_categories: Sequence[str] = ()
    # What the shopper wants (catalog/types.py): products of one of these kinds come first,
    # before the resolved categories' others; never a filter.
    kinds: Sequence[types.Kind] = ()
    # A brand the shopper named (catalog/brands.py): its products come first
    # (catalog/ordering.py, standing).
    brand: str = ""
    # The shopper asked for it cheap, naming no figure: the lower price before the better score.
    cheapest_first: bool = False


def order_by(found: str, filters: Filters, score: str = "") -> str:
    """The order of the products a match finds: the named brand's and of the wanted type first
    (a product that only mentions the wanted thing, "Cycle Bell for Bicycle", after those that
    are it; catalog/ordering.py, standing), then inside
    the resolved categories, then in those named like them, then (asked for cheap) by price,
    then by the database's score."""
    price = f"{found}.price_usd IS NULL, {found}.price_usd, " if filters.cheapest_first else ""
    return f"{found}.typed DESC, {found}.inside DESC, {price}{score or found + '.score'} DESC"


def typed_sql(filters: Filters) -> tuple[str, list[Any]]:
    """The expression of how well a product (aliased `p`) is what the shopper wants: 2 for the
    brand named, 1 more for a wanted type (of which kind, the candidates' titles say); the
    order of catalog/ordering.py's `standing`."""
    wanted = list(dict.fromkeys(kind[-1] for kind in filters.kinds))
    typed = f"p.product_type IN ({', '.join(['%s'] * len(wanted))})" if wanted else "0 = 1"
    branded = "p.brand_key = %s" if filters.brand else "0 = 1"
    params = [*([filters.brand] if filters.brand else []), *wanted]
    return f"(CASE WHEN {branded} THEN 2 ELSE 0 END + CASE WHEN {typed} THEN 1 ELSE 0 END)", params


def conditions(filters: Filters) -> tuple[str, list[Any], str, list[Any]]:
    """The WHERE conditions of `filters` (products aliased `p`), and the expression of where a
    product stands: 2 inside the categories, 1 in one named like them, 0 elsewhere."""
    where: list[str] = []
    params: list[Any] = []
    region, region_params = region_condition(filters.region)
    if filters.region is not None:
        where.append(region)
        params.extend(region_params)
    if filters.budget_min is not None or filters.budget_max is not None:
        where.append("p.price_usd IS NOT NULL")
        if filters.budget_min is not None:
            where.append("p.price_usd >= %s")
            params.append(filters.budget_min)
        if filters.budget_max is not None:
            where.append("p.price_usd <= %s")
            params.append(filters.budget_max)
    if filters.exclude:
        where.append(f"p.id NOT IN ({', '.join(['%s'] * len(filters.exclude))})")
        params.extend(filters.exclude)
    if filters.ruled_out:
        held, held_params = holding_condition(filters.ruled_out, filters.ruled_out_categories)
        where.append(f"NOT {held}")
        params.extend(held_params)
    if filters.categories:
        marks = ", ".join(["%s"] * len(filters.categories))
        inside = f"(lower(p.category_l1) IN ({marks}) OR lower(p.category_l2) IN ({marks}))"
        inside_params = [*filters.categories, *filters.categories]
        if filters.within:
            where.append(inside)
            params.extend(inside_params)
        if filters.near:
            near = f"lower(p.category_l2) IN ({', '.join(['%s'] * len(filters.near))})"
            inside = f"(CASE WHEN {inside} THEN 2 WHEN {near} THEN 1 ELSE 0 END)"
            inside_params = [*inside_params, *filters.near]
        else:
            inside = f"(CASE WHEN {inside} THEN 2 ELSE 0 END)"
    else:
        inside, inside_params = "0", []
    return " AND ".join(where) or "1 = 1", params, inside, inside_params


# Where a product holds what the shopper ruled out: never the categories' words (what was asked
# for) nor the description (it names what a product is not: "no plastic smell"); a category
# only when a phrase ruled out names it whole (categories.named_by).
RULED_OUT_FIELDS = ("title", "tags", "brand")


def holding_condition(
    ruled_out: Sequence[Sequence[str]], categories: Sequence[str] = ()
) -> tuple[str, list[Any]]:
    """The SQL condition of a product (aliased `p`) holding any of `ruled_out` in the fields
    of RULED_OUT_FIELDS, a phrase's words near each other (search.rules_out checks them), a
    single word not only as what the product is without ("Non Padded"), or of one of
    `categories`."""
    match = Match(ruled_out, fields=RULED_OUT_FIELDS, every=False, plainly=True)
    if connection.vendor == "postgresql":
        held, params = "p.search_vector @@ to_tsquery('simple', %s)", [pg_query(match)]
    else:
        held = "p.id IN (SELECT rowid FROM catalog_product_fts WHERE catalog_product_fts MATCH %s)"
        params = [fts5_query(match)]
    if categories:
        marks = ", ".join(["%s"] * len(categories))
        held = f"{held} OR COALESCE(lower(p.category_l2), '') IN ({marks})"
        params = [*params, *categories]
    return f"({held})", params


def holding(
    ids: Sequence[int], ruled_out: Sequence[Sequence[str]], categories: Sequence[str] = ()
) -> set[int]:
    """Which of the products `ids` hold any of `ruled_out` or are of `categories` (see
    _holding)."""
    if not ids or not ruled_out:
        return set()
    held, params = holding_condition(ruled_out, categories)
    marks = ", ".join(["%s"] * len(ids))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT p.id FROM catalog_product p WHERE p.id IN ({marks}) AND {held}",  # noqa: S608
            [*ids, *params],
        )
        return {int(row[0]) for row in cursor.fetchall()}


def region_condition(region: str | None) -> tuple[str, list[Any]]:
    """The SQL condition of products sold in `region` (products aliased `p`)."""
    if region is None:
        return "1 = 1", []
    if connection.vendor == "postgresql":
        return "(p.regions = '[]'::jsonb OR p.regions @> jsonb_build_array(%s::text))", [region]
    return (
        "(p.regions = '[]' OR EXISTS "
        "(SELECT 1 FROM json_each(p.regions) WHERE json_each.value = %s))",
        [region],
    )
