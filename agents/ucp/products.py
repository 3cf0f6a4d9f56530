"""A catalog product in UCP's shape (`types/product.json`), from the product and the card the
gateway just issued for it.

A product of the gateway is one purchasable thing: it has one variant, `{id}-default`. Prices
are US dollars in cents (ISO 4217 minor units). The product's `url`, and its variant's, is the
card's buy link (`/r/{rec_id}`): the link that attributes the sale, to be handed to the shopper
as it is. Its `media` are the product's images, then its creators' short videos. `metadata`
carries what UCP has no field for: the rec_id, the card's own URL, the brand, and the creator
videos with their sales.

A product without a price cannot be offered in UCP (price is required): searches and lookups
leave it out.
"""

from decimal import Decimal
from typing import Any

from django.conf import settings

from catalog.models import Product

CURRENCY = "USD"
VARIANT_SUFFIX = "-default"


def variant_id(product_id: int) -> str:
    return f"{product_id}{VARIANT_SUFFIX}"


def price(amount_usd: Decimal) -> dict[str, Any]:
    cents = int((amount_usd * 100).to_integral_value())
    return {"amount": cents, "currency": CURRENCY}


def offered(product: Product) -> bool:
    """Whether UCP can carry the product: it has a price."""
    return product.price_usd is not None


def _media(product: Product, card: dict[str, Any]) -> list[dict[str, Any]]:
    images = [url for url in (product.main_image, *product.gallery) if url]
    media = [
        {"type": "image", "url": url, "alt_text": product.title} for url in dict.fromkeys(images)
    ]
    for video in card["videos"]:
        if video.get("video_url"):
            creator = video["creator"]["username"]
            media.append(
                {"type": "video", "url": video["video_url"], "alt_text": f"@{creator}'s video"}
            )
    return media


def ucp_product(product: Product, card: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    """The product as UCP describes it; `metadata` adds to its metadata (e.g. the tier that
    found it). The product must be `offered`."""
    assert product.price_usd is not None, "a product without a price is not offered"
    buy_url = card["cta"]["primary"]["url"]
    description = {"plain": product.description or product.title}
    selling = price(product.price_usd)
    listed = product.original_price_usd
    variant: dict[str, Any] = {
        "id": variant_id(product.id),
        "title": product.title,
        "description": description,
        "url": buy_url,
        "price": selling,
        "availability": {"available": True},
    }
    body: dict[str, Any] = {
        "id": str(product.id),
        "title": product.title,
        "description": description,
        "url": buy_url,
        "categories": [
            {"value": name, "taxonomy": "merchant"}
            for name in (product.category_l1, product.category_l2)
            if name
        ],
        "price_range": {"min": selling, "max": selling},
        "media": _media(product, card),
        "variants": [variant],
        "tags": list(product.tags),
        "metadata": {
            "rec_id": card["rec_id"],
            "card_url": f"{settings.PUBLIC_BASE_URL}/v1/cards/{card['rec_id']}",
            "brand": product.brand,
            "regions": list(product.regions),
            "videos": card["videos"],
            **metadata,
        },
    }
    if listed is not None and listed > product.price_usd:
        variant["list_price"] = price(listed)
        body["list_price_range"] = {"min": price(listed), "max": price(listed)}
    return body
