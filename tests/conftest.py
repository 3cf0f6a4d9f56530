from collections.abc import Iterator
from decimal import Decimal

import pytest
from django.core.cache import cache

from tests.factories import CreatorFactory, ProductFactory, VideoFactory


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counters and cached state never leak from one test into another."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def trail_shoe(db):
    """A discounted product with two creator videos whose figures the tests work out by hand."""
    product = ProductFactory(
        id=1001,
        title="TrailFox GTX Trail Running Shoe",
        brand="TrailFox",
        price_usd=Decimal("89.99"),
        original_price_usd=Decimal("119.99"),
        category_l1="Sports & Outdoors",
        category_l2="Running Shoes",
        url="https://shop.test/p/1001?ref=feed",
        regions=["US", "GB"],
        target_persona="Trail runners",
        target_age="18-44",
    )
    miles = CreatorFactory(username="milesrun", display_name="Miles", followers=120_000)
    ana = CreatorFactory(username="ana.runs", display_name="Ana", followers=30_000)
    VideoFactory(
        task_id="v-2",
        product=product,
        creator=ana,
        gmv_usd=Decimal("899.80"),
        orders=20,
        views=5_000,
        duration_s=15,
    )
    VideoFactory(
        task_id="v-1",
        product=product,
        creator=miles,
        gmv_usd=Decimal("4210.50"),
        orders=61,
        views=84_000,
        duration_s=31,
    )
    return product


@pytest.fixture
def unthrottled(settings):
    """For tests that make more requests of a scope than its rate allows in a minute."""
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
