"""Factories of catalog rows for tests."""

from datetime import UTC, datetime
from decimal import Decimal

import factory

from catalog.models import Creator, Product, Video


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Product

    id = factory.Sequence(lambda n: 500000 + n)
    title = factory.Sequence(lambda n: f"Northpeak Insulated Steel Bottle {n}")
    brand = "Northpeak"
    price_usd = Decimal("24.99")
    original_price_usd = None
    main_image = factory.LazyAttribute(lambda p: f"https://img.shop.test/p/{p.id}.jpg")
    gallery: list[str] = []
    category_l1 = "Sports & Outdoors"
    category_l2 = "Water Bottles"
    url = factory.LazyAttribute(lambda p: f"https://shop.test/p/{p.id}")
    description = "Keeps drinks cold for 24 hours."
    tags = ["bottle", "insulated"]
    regions = ["US", "GB"]
    risk_level = "low"


class CreatorFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Creator

    username = factory.Sequence(lambda n: f"creator{n}")
    display_name = factory.Sequence(lambda n: f"Creator {n}")
    avatar = None
    followers = 50_000


class VideoFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Video

    task_id = factory.Sequence(lambda n: f"v-test-{n}")
    product = factory.SubFactory(ProductFactory)
    creator = factory.SubFactory(CreatorFactory)
    thumbnail = None
    video_url = "https://video.shop.test/v.mp4"
    platform_video_url = None
    duration_s = 30
    gmv_usd = Decimal("1000.00")
    orders = 40
    views = 10_000
    published_at = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
