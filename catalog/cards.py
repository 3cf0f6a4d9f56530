"""The Product Card Document (PCD): pure functions from loaded catalog rows to a card dict.

Nothing here touches the database or invents a claim: `hero_pitch` and `selection_story` are
sentences about the product's creator statistics (GMV, orders, views, conversion) and its catalog
data, and say so plainly when there are none.

Service score (0-100), a weighted sum of four saturating components over all the product's videos:

    service_score = 100 * (0.35 * gmv + 0.25 * orders + 0.25 * conversion + 0.15 * reach)

    gmv        = min(1, log10(1 + GMV USD) / log10(1 + 50,000))     $50k of creator sales = full
    orders     = min(1, log10(1 + orders)  / log10(1 + 1,000))      1,000 orders = full
    conversion = min(1, (orders / views) / 0.03)                    3% of viewers ordering = full
    reach      = min(1, log10(1 + views)   / log10(1 + 1,000,000))  1M views = full

Logarithms keep one viral video from drowning everything else; a product without videos scores 0.
Each video's `conversion_score` is its conversion rate in percent: 100 * orders / views.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from catalog.models import Product, Video

SCORE_WEIGHTS = {"gmv": 0.35, "orders": 0.25, "conversion": 0.25, "reach": 0.15}
GMV_FULL_USD = 50_000
ORDERS_FULL = 1_000
CONVERSION_FULL = 0.03
VIEWS_FULL = 1_000_000


@dataclass(frozen=True)
class SalesStats:
    """What the product's creator videos add up to."""

    videos: int
    creators: int
    followers: int
    orders: int
    gmv_usd: float
    views: int

    @property
    def conversion_rate(self) -> float:
        return self.orders / self.views if self.views else 0.0


def sales_stats(videos: Sequence[Video]) -> SalesStats:
    creators = {video.creator_id: video.creator.followers for video in videos}
    return SalesStats(
        videos=len(videos),
        creators=len(creators),
        followers=sum(creators.values()),
        orders=sum(video.orders for video in videos),
        gmv_usd=float(sum((video.gmv_usd for video in videos), Decimal(0))),
        views=sum(video.views for video in videos),
    )


def _log_share(value: float, full: float) -> float:
    return min(1.0, math.log10(1 + value) / math.log10(1 + full))


def service_score(stats: SalesStats) -> float:
    """The documented 0-100 score of the module docstring."""
    if not stats.videos:
        return 0.0
    components = {
        "gmv": _log_share(stats.gmv_usd, GMV_FULL_USD),
        "orders": _log_share(stats.orders, ORDERS_FULL),
        "conversion": min(1.0, stats.conversion_rate / CONVERSION_FULL),
        "reach": _log_share(stats.views, VIEWS_FULL),
    }
    return round(100 * sum(SCORE_WEIGHTS[name] * value for name, value in components.items()), 1)


def conversion_score(video: Video) -> float:
    return round(100 * video.orders / video.views, 2) if video.views else 0.0


def _float_or_none(value: Decimal | None) -> float | None:
    return float(value) if value is not None else None


def discount_percent(product: Product) -> int | None:
    price, original = product.price_usd, product.original_price_usd
    if price is None or original is None or original <= price or original <= 0:
        return None
    percent = round((1 - price / original) * 100)
    return percent if percent >= 1 else None


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def product_block(product: Product) -> dict[str, Any]:
    percent = discount_percent(product)
    return {
        "id": str(product.id),
        "title": product.title,
        "brand": product.brand,
        "price_usd": _float_or_none(product.price_usd),
        "original_price_usd": _float_or_none(product.original_price_usd),
        "discount_label": f"-{percent}%" if percent else None,
        "main_image": product.main_image,
        "gallery": list(product.gallery),
        "category_l1": product.category_l1,
        "category_l2": product.category_l2,
    }


def _key_benefits(product: Product, stats: SalesStats) -> list[dict[str, str]]:
    benefits = []
    if stats.orders:
        benefits.append(
            {
                "icon": "shopping-bag",
                "title": "Proven seller",
                "desc": f"{_plural(stats.orders, 'order')} through creator videos",
            }
        )
        benefits.append(
            {
                "icon": "trending-up",
                "title": "Converts viewers",
                "desc": f"{100 * stats.conversion_rate:.2f}% of viewers ordered",
            }
        )
    percent = discount_percent(product)
    if percent:
        benefits.append(
            {
                "icon": "tag",
                "title": "On sale",
                "desc": f"{percent}% off the ${product.original_price_usd:,.2f} list price",
            }
        )
    if stats.creators:
        benefits.append(
            {
                "icon": "users",
                "title": "Creator-backed",
                "desc": f"Featured by {_plural(stats.creators, 'creator')} with "
                f"{stats.followers:,} followers combined",
            }
        )
    if not benefits:
        benefits.append(
            {
                "icon": "box",
                "title": product.category_l2 or "Catalog pick",
                "desc": "Listed in the catalog; no creator sales recorded yet",
            }
        )
    return benefits[:3]


def hero_pitch(product: Product, stats: SalesStats) -> dict[str, Any]:
    percent = discount_percent(product)
    if stats.orders:
        one_liner = f"{product.title}: {_plural(stats.orders, 'order')} from creator videos"
        why = (
            f"{_plural(stats.creators, 'creator')} sold {_plural(stats.orders, 'unit')} worth "
            f"${stats.gmv_usd:,.0f} from {_plural(stats.views, 'view')}; "
            f"{100 * stats.conversion_rate:.2f}% of viewers ordered."
        )
    elif stats.videos:
        one_liner = f"{product.title}: featured in {_plural(stats.videos, 'creator video')}"
        why = (
            f"{_plural(stats.videos, 'creator video')} reached {_plural(stats.views, 'view')}; "
            "no orders are recorded yet."
        )
    else:
        one_liner = f"{product.title}: new in {product.category_l2 or 'the catalog'}"
        why = "No creator has sold it yet, so it is shown on its catalog data alone."
    if percent:
        one_liner += f", now {percent}% off"
    return {
        "one_liner": one_liner,
        "why_it_wins_on_platform": why,
        "key_benefits": _key_benefits(product, stats),
        "target_audience": {
            "persona": product.target_persona
            or f"Shoppers of {(product.category_l2 or 'this category').lower()}",
            "age": product.target_age or "all ages",
            "region": list(product.regions),
        },
    }


def selection_story(product: Product, videos: Sequence[Video], stats: SalesStats) -> dict[str, Any]:
    score = service_score(stats)
    if stats.orders:
        headline = (
            f"Service score {score:.0f}/100 on creator sales: {_plural(stats.orders, 'order')}, "
            f"${stats.gmv_usd:,.0f} GMV"
        )
    elif stats.videos:
        headline = f"Service score {score:.0f}/100: creator videos, no orders yet"
    else:
        headline = "Catalog pick: no creator sales yet"
    bullets = [
        f"@{video.creator.username}'s {video.duration_s}s video: {_plural(video.orders, 'order')} "
        f"from {_plural(video.views, 'view')} ({conversion_score(video):.2f}%)"
        for video in videos[:3]
    ]
    if product.price_usd is not None:
        percent = discount_percent(product)
        price = f"${product.price_usd:,.2f}"
        if percent:
            price += f", {percent}% below the ${product.original_price_usd:,.2f} list price"
        bullets.append(price)
    if product.regions:
        bullets.append(f"Ships to {', '.join(product.regions)}")
    return {"headline": headline, "bullets": bullets, "service_score": score}


def video_block(video: Video) -> dict[str, Any]:
    creator = video.creator
    return {
        "task_id": video.task_id,
        "creator": {
            "username": creator.username,
            "display_name": creator.display_name,
            "avatar": creator.avatar,
            "followers": creator.followers,
        },
        "thumbnail": video.thumbnail,
        "video_url": video.video_url,
        "duration_s": video.duration_s,
        "gmv_usd": float(video.gmv_usd),
        "orders": video.orders,
        "views": video.views,
        "conversion_score": conversion_score(video),
        "platform_video_url": video.platform_video_url,
    }


def best_first(videos: Sequence[Video]) -> list[Video]:
    return sorted(videos, key=lambda video: (-video.gmv_usd, video.task_id))


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def build_card(
    product: Product,
    videos: Sequence[Video],
    *,
    rec_id: str,
    channel: str | None,
    generated_at: datetime,
    base_url: str,
    max_videos: int,
) -> dict[str, Any]:
    """Build the card (PCD) of `product` from its videos (each with its creator loaded)."""
    ranked = best_first(videos)
    stats = sales_stats(ranked)
    if ranked:
        top = ranked[0].creator.username
        secondary = {
            "label": f"More picks from @{top}",
            "url": f"{base_url}/v1/creators/{quote(top, safe='')}/showcase",
        }
    else:
        secondary = {"label": "Product details", "url": f"{base_url}/v1/products/{product.id}/card"}
    return {
        "rec_id": rec_id,
        "product": product_block(product),
        "hero_pitch": hero_pitch(product, stats),
        "selection_story": selection_story(product, ranked, stats),
        "videos": [video_block(video) for video in ranked[:max_videos]],
        "cta": {
            "primary": {"label": "Buy now", "url": f"{base_url}/r/{rec_id}"},
            "secondary": secondary,
        },
        "compliance": {"region_allow": list(product.regions), "risk_level": product.risk_level},
        "generated_at": iso(generated_at),
        "channel": channel,
    }
