"""Catalog use cases: issue cards, read them back, and a creator's showcase."""

from collections.abc import Sequence
from typing import Any

import orjson
from django.conf import settings
from django.db import connection
from django.db.models import Prefetch, QuerySet, Sum
from django.utils import timezone

from catalog import versions
from catalog.cards import build_card
from catalog.models import USERNAME, Creator, Product, Recommendation, Video, product_id_from
from gateway import cache
from gateway.errors import CARD_NOT_FOUND, CREATOR_NOT_FOUND, PRODUCT_NOT_FOUND
from gateway.ids import REC, is_minted, new_id
from gateway.inserts import insert_together


def products_with_videos() -> QuerySet[Product]:
    """Products with their videos and creators loaded in two extra queries, as cards need."""
    return Product.objects.prefetch_related(
        Prefetch("videos", queryset=Video.objects.select_related("creator"))
    )


def products_for_cards(ids: Sequence[int]) -> dict[int, Product]:
    """The products of `ids` that exist, with videos and creators loaded, by id; each is reused
    from this process's memory for CATALOG_CACHE_S while the catalog's version holds
    (catalog/versions.py: an edit reaches every process's cards within its CHECK_S)."""
    version = versions.current()
    keys = {f"catalog:product:{version}:{pid}": pid for pid in ids}
    loaded = {keys[key]: product for key, product in cache.recalled(keys).items()}
    missing = [pid for pid in ids if pid not in loaded]
    if missing:
        fresh = {product.id: product for product in products_with_videos().filter(id__in=missing)}
        cache.remember(
            {f"catalog:product:{version}:{pid}": product for pid, product in fresh.items()},
            settings.CATALOG_CACHE_S,
        )
        loaded.update(fresh)
    return loaded


def cards_build(*, products: Sequence[Product], channel: str | None) -> list[dict[str, Any]]:
    """One card per product, each under a new rec_id; nothing written yet.

    `products` must come from `products_with_videos()`.
    """
    now = timezone.now()
    return [
        build_card(
            product,
            list(product.videos.all()),
            rec_id=new_id(REC),
            channel=channel,
            generated_at=now,
            base_url=settings.PUBLIC_BASE_URL,
            max_videos=settings.CARD_MAX_VIDEOS,
        )
        for product in products
    ]


def cards_rows(
    *,
    products: Sequence[Product],
    cards: Sequence[dict[str, Any]],
    region: str | None = None,
    intent_id: str | None = None,
) -> list[Recommendation]:
    """The Recommendations that record built cards, not yet written."""
    return [
        Recommendation(
            rec_id=card["rec_id"],
            product=product,
            card=card,
            channel=card["channel"],
            region=region,
            intent_id=intent_id,
        )
        for product, card in zip(products, cards, strict=True)
    ]


def cards_record(
    *,
    products: Sequence[Product],
    cards: Sequence[dict[str, Any]],
    region: str | None = None,
    intent_id: str | None = None,
) -> None:
    """Record built cards as Recommendations (call inside the caller's transaction, if any)."""
    insert_together(cards_rows(products=products, cards=cards, region=region, intent_id=intent_id))


def cards_issue(
    *,
    products: Sequence[Product],
    channel: str | None,
    region: str | None = None,
    intent_id: str | None = None,
) -> list[dict[str, Any]]:
    """Build one card per product and record them as Recommendations."""
    cards = cards_build(products=products, channel=channel)
    cards_record(products=products, cards=cards, region=region, intent_id=intent_id)
    return cards


# The stored card as JSON text (SQLite keeps the text; PostgreSQL renders its jsonb).
CARD_JSON_SQL = "SELECT CAST(card AS text) FROM catalog_recommendation WHERE rec_id = %s"


def card_get(*, rec_id: str) -> orjson.Fragment:
    """The card issued under `rec_id`, exactly as it was served, as the JSON it was stored as.

    The hot read path of a card: its text goes into the response as it is, never parsed into
    Python and rendered again (that took most of the time of the lookup, and an ORM query as
    much again as the SQL itself).
    """
    row = None
    if is_minted(REC, rec_id):  # no stray byte of a path reaches the database
        with connection.cursor() as cursor:
            cursor.execute(CARD_JSON_SQL, [rec_id])
            row = cursor.fetchone()
    if row is None:
        raise CARD_NOT_FOUND()
    return orjson.Fragment(row[0])


def product_card_issue(*, product_id: str, channel: str | None) -> dict[str, Any]:
    """A fresh card, with a new rec_id, for one known product (`product_id` as in the path)."""
    known = product_id_from(product_id)
    product = products_with_videos().filter(id=known).first() if known is not None else None
    if product is None:
        raise PRODUCT_NOT_FOUND()
    return cards_issue(products=[product], channel=channel)[0]


def creator_showcase(*, username: str, limit: int, channel: str | None) -> list[dict[str, Any]]:
    """Cards of the products the creator sold best, by the GMV of the creator's own videos."""
    creator = (
        Creator.objects.filter(username=username).first() if USERNAME.fullmatch(username) else None
    )
    if creator is None:
        raise CREATOR_NOT_FOUND()
    best = (
        Video.objects.filter(creator=creator, gmv_usd__gt=0)
        .values("product_id")
        .annotate(creator_gmv=Sum("gmv_usd"))
        .order_by("-creator_gmv", "product_id")
        .values_list("product_id", flat=True)[:limit]
    )
    product_ids = list(best)
    by_id = {product.id: product for product in products_with_videos().filter(id__in=product_ids)}
    return cards_issue(products=[by_id[pid] for pid in product_ids], channel=channel)
