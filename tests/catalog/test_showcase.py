"""A creator's showcase: the products the creator sold best, as cards."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalog.models import Recommendation
from tests.factories import CreatorFactory, ProductFactory, VideoFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def kai():
    """A creator with videos for eight products, sales ranked by product id descending."""
    creator = CreatorFactory(username="kitchen_kai")
    for rank in range(8):
        product = ProductFactory(id=2000 + rank)
        VideoFactory(product=product, creator=creator, gmv_usd=Decimal(100 + 10 * rank))
    # A second video for product 2000 lifts it to the top: 100 + 500 = 600.
    VideoFactory(product_id=2000, creator=creator, gmv_usd=Decimal(500))
    # A video that sold nothing is not a winning video.
    VideoFactory(product=ProductFactory(id=2999), creator=creator, gmv_usd=Decimal(0), orders=0)
    # Another creator's big seller is not Kai's.
    VideoFactory(product=ProductFactory(id=3000), gmv_usd=Decimal(99999))
    return creator


def test_showcase_ranks_products_by_the_creators_own_gmv(client, kai):
    response = client.get("/v1/creators/kitchen_kai/showcase")

    assert response.status_code == 200
    body = response.json()
    assert body["username"] == "kitchen_kai"
    assert body["count"] == 6
    assert [card["product"]["id"] for card in body["items"]] == [
        "2000",
        "2007",
        "2006",
        "2005",
        "2004",
        "2003",
    ]
    assert Recommendation.objects.count() == 6


@pytest.mark.parametrize(("limit", "count"), [("1", 1), ("10", 8)])
def test_showcase_honours_limit(client, kai, limit, count):
    response = client.get(f"/v1/creators/kitchen_kai/showcase?limit={limit}")

    assert response.json()["count"] == count
    assert len(response.json()["items"]) == count


@pytest.mark.parametrize(
    "limit",
    ["0", "11", "-1", "abc", "2.5", "2.0", "99999999999999999999", "\uff12", "\u0663", " 3", ""],
)
def test_showcase_limit_outside_1_to_10_is_400(client, kai, limit):
    response = client.get(f"/v1/creators/kitchen_kai/showcase?limit={limit}")

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_parameter"
    assert list(response.json()["fields"]) == ["limit"]
    assert not Recommendation.objects.exists()


def test_a_repeated_parameter_is_400_not_a_silent_pick(client, kai):
    response = client.get("/v1/creators/kitchen_kai/showcase?limit=abc&limit=1")

    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_parameter",
        "message": "Give each query parameter once: limit.",
        "fields": {"limit": ["Given more than once."]},
    }


@pytest.mark.parametrize("username", ["nobody", "a%00b", "has%20space", "x" * 65])
def test_unknown_creator_is_404(client, username):
    response = client.get(f"/v1/creators/{username}/showcase")

    assert response.status_code == 404
    assert response.json() == {
        "error": "creator_not_found",
        "message": "No creator has that username.",
    }


def test_creator_without_sales_has_an_empty_showcase(client):
    CreatorFactory(username="newbie")

    assert client.get("/v1/creators/newbie/showcase").json() == {
        "username": "newbie",
        "count": 0,
        "items": [],
    }


def test_showcase_query_count_does_not_grow_with_limit(client, kai):
    counts = []
    for limit in (1, 10):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/v1/creators/kitchen_kai/showcase?limit={limit}").status_code == 200
        counts.append(len(queries))

    assert counts[0] == counts[1]
    assert counts[1] <= 7
