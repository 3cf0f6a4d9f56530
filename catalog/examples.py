"""Example bodies of the catalog endpoints, for the contract (taken from the demo catalog)."""

from typing import Any

from drf_spectacular.utils import OpenApiExample

BASE_URL = "https://gateway.example.com"
REC_ID = "rec_e466b0f3ec8ef21fd02a3768"
GENERATED_AT = "2025-11-20T09:30:12Z"


def _video(
    task_id: str, username: str, name: str, followers: int, **figures: Any
) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "creator": {
            "username": username,
            "display_name": name,
            "avatar": f"https://img.demo-shop.example/c/{username}.jpg",
            "followers": followers,
        },
        "thumbnail": f"https://img.demo-shop.example/v/{task_id}.jpg",
        "video_url": f"https://video.demo-shop.example/v/{task_id}.mp4",
        **figures,
        "platform_video_url": f"https://platform.demo-shop.example/@{username}/video/{task_id}",
    }


CARD: dict[str, Any] = {
    "rec_id": REC_ID,
    "product": {
        "id": "100001",
        "title": "Stridewell Stride 5 Stability Cushioned Road Running Shoe",
        "brand": "Stridewell",
        "price_usd": 74.99,
        "original_price_usd": 89.99,
        "discount_label": "-17%",
        "main_image": "https://img.demo-shop.example/p/100001/main.jpg",
        "gallery": [
            "https://img.demo-shop.example/p/100001/1.jpg",
            "https://img.demo-shop.example/p/100001/2.jpg",
        ],
        "category_l1": "Sports & Outdoors",
        "category_l2": "Running Shoes",
    },
    "hero_pitch": {
        "one_liner": "Stridewell Stride 5 Stability Cushioned Road Running Shoe: 343 orders "
        "from creator videos, now 17% off",
        "why_it_wins_on_platform": "2 creators sold 343 units worth $23,171 from 51,354 views; "
        "0.67% of viewers ordered.",
        "key_benefits": [
            {
                "icon": "shopping-bag",
                "title": "Proven seller",
                "desc": "343 orders through creator videos",
            },
            {
                "icon": "trending-up",
                "title": "Converts viewers",
                "desc": "0.67% of viewers ordered",
            },
            {"icon": "tag", "title": "On sale", "desc": "17% off the $89.99 list price"},
        ],
        "target_audience": {
            "persona": "Everyday runners and walkers",
            "age": "25-54",
            "region": ["US", "GB", "CA"],
        },
    },
    "selection_story": {
        "headline": "Service score 71/100 on creator sales: 343 orders, $23,171 GMV",
        "bullets": [
            "@lucas.ortiz's 28s video: 288 orders from 39,200 views (0.73%)",
            "@run_with_theo's 34s video: 55 orders from 12,154 views (0.45%)",
            "$74.99, 17% below the $89.99 list price",
            "Ships to US, GB, CA",
        ],
        "service_score": 71.4,
    },
    "videos": [
        _video(
            "v-100001-2",
            "lucas.ortiz",
            "Lucas Ortiz",
            73585,
            duration_s=28,
            gmv_usd=19334.58,
            orders=288,
            views=39200,
            conversion_score=0.73,
        ),
        _video(
            "v-100001-1",
            "run_with_theo",
            "Run with Theo",
            48302,
            duration_s=34,
            gmv_usd=3836.53,
            orders=55,
            views=12154,
            conversion_score=0.45,
        ),
    ],
    "cta": {
        "primary": {"label": "Buy now", "url": f"{BASE_URL}/r/{REC_ID}"},
        "secondary": {
            "label": "More picks from @lucas.ortiz",
            "url": f"{BASE_URL}/v1/creators/lucas.ortiz/showcase",
        },
    },
    "compliance": {"region_allow": ["US", "GB", "CA"], "risk_level": "low"},
    "generated_at": GENERATED_AT,
    "channel": "my-agent",
}

CARD_EXAMPLE = OpenApiExample(
    "Card",
    summary="A card with two creator videos",
    value=CARD,
    response_only=True,
)

SHOWCASE_EXAMPLE = OpenApiExample(
    "Showcase",
    summary="A creator's best-selling product",
    value={"username": "lucas.ortiz", "count": 1, "items": [CARD]},
    response_only=True,
)
