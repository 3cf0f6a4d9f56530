"""The trending fill after the tiers (catalog/search.py): the region's best sellers with
creators that fit the budget and hold nothing the shopper ruled out."""

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal

from django.db import connection
from django.utils import timezone

from catalog import fulltext
from catalog.query import SearchQuery, within_budget
from kernel.cache import cached

TRENDING_WINDOW = timedelta(days=30)
# Trending products are ranked once per region and reused this long.
TRENDING_CACHE_S = 300
TRENDING_POOL = 100


def _trending_pool(region: str | None) -> list[tuple[int, Decimal | None]]:
    """(id, price) of the region's best sellers: creator GMV of the last 30 days first, then
    all-time creator GMV, so a quiet month still has an order."""
    since = timezone.now() - TRENDING_WINDOW
    where, params = fulltext.region_condition(region)
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
    )
    skip = set(exclude)
    if query.excluded:
        pooled = [product_id for product_id, _ in pool]
        skip |= fulltext.holding(pooled, query.excluded, query.ruled_out_categories)
    chosen = []
    for product_id, price in pool:
        if product_id in skip or not within_budget(query, price):
            continue
        chosen.append(product_id)
        if len(chosen) == limit:
            break
    return chosen
