"""Cards (PCD): every field of the interface, computed from real statistics."""

import re
from unittest import mock

import jsonschema
import pytest
from django.core.exceptions import ValidationError
from django.db.models import JSONField

from catalog.models import Recommendation
from tests.factories import ProductFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def card_validator(client):
    """Validates a card against the Card schema that /openapi.json publishes."""
    schema = client.get("/openapi.json").json()
    root = {"$ref": "#/components/schemas/Card", "components": schema["components"]}
    return jsonschema.Draft202012Validator(root)


def test_product_card_carries_every_field_with_values_from_the_statistics(client, trail_shoe):
    response = client.get("/v1/products/1001/card?channel=agent.test")

    assert response.status_code == 200
    card = response.json()
    assert re.fullmatch(r"rec_[0-9a-f]{24}", card["rec_id"])
    assert card["product"] == {
        "id": "1001",
        "title": "TrailFox GTX Trail Running Shoe",
        "brand": "TrailFox",
        "price_usd": 89.99,
        "original_price_usd": 119.99,
        "discount_label": "-25%",
        "main_image": "https://img.shop.test/p/1001.jpg",
        "gallery": [],
        "category_l1": "Sports & Outdoors",
        "category_l2": "Running Shoes",
    }
    assert card["hero_pitch"] == {
        "one_liner": "TrailFox GTX Trail Running Shoe: 81 orders from creator videos, now 25% off",
        "why_it_wins_on_platform": (
            "2 creators sold 81 units worth $5,110 from 89,000 views; 0.09% of viewers ordered."
        ),
        "key_benefits": [
            {
                "icon": "shopping-bag",
                "title": "Proven seller",
                "desc": "81 orders through creator videos",
            },
            {
                "icon": "trending-up",
                "title": "Converts viewers",
                "desc": "0.09% of viewers ordered",
            },
            {"icon": "tag", "title": "On sale", "desc": "25% off the $119.99 list price"},
        ],
        "target_audience": {"persona": "Trail runners", "age": "18-44", "region": ["US", "GB"]},
    }
    # 100 * (0.35*log(5111.3)/log(50001) + 0.25*log(82)/log(1001)
    #        + 0.25*(81/89000)/0.03 + 0.15*log(89001)/log(1000001)) = 56.7
    assert card["selection_story"] == {
        "headline": "Service score 57/100 on creator sales: 81 orders, $5,110 GMV",
        "bullets": [
            "@milesrun's 31s video: 61 orders from 84,000 views (0.07%)",
            "@ana.runs's 15s video: 20 orders from 5,000 views (0.40%)",
            "$89.99, 25% below the $119.99 list price",
            "Ships to US, GB",
        ],
        "service_score": 56.7,
    }
    assert [video["task_id"] for video in card["videos"]] == ["v-1", "v-2"]
    assert card["videos"][0] == {
        "task_id": "v-1",
        "creator": {
            "username": "milesrun",
            "display_name": "Miles",
            "avatar": None,
            "followers": 120000,
        },
        "thumbnail": None,
        "video_url": "https://video.shop.test/v.mp4",
        "duration_s": 31,
        "gmv_usd": 4210.5,
        "orders": 61,
        "views": 84000,
        "conversion_score": 0.07,
        "platform_video_url": None,
    }
    assert card["cta"] == {
        "primary": {"label": "Buy now", "url": f"http://127.0.0.1:8000/r/{card['rec_id']}"},
        "secondary": {
            "label": "More picks from @milesrun",
            "url": "http://127.0.0.1:8000/v1/creators/milesrun/showcase",
        },
    }
    assert card["compliance"] == {"region_allow": ["US", "GB"], "risk_level": "low"}
    assert card["channel"] == "agent.test"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", card["generated_at"])


def test_served_cards_match_the_published_schema(client, trail_shoe, card_validator):
    bare = ProductFactory(brand=None, price_usd=None, main_image=None, regions=[])

    for product_id in (trail_shoe.id, bare.id):
        card = client.get(f"/v1/products/{product_id}/card").json()
        card_validator.validate(card)


def test_product_without_videos_says_so_and_scores_zero(client):
    product = ProductFactory(id=77, title="Plain Mug", category_l2="Mugs", regions=[])

    card = client.get("/v1/products/77/card").json()

    assert card["videos"] == []
    assert card["selection_story"]["service_score"] == 0.0
    assert card["selection_story"]["headline"] == "Catalog pick: no creator sales yet"
    assert card["hero_pitch"]["why_it_wins_on_platform"] == (
        "No creator has sold it yet, so it is shown on its catalog data alone."
    )
    assert card["hero_pitch"]["target_audience"] == {
        "persona": "Shoppers of mugs",
        "age": "all ages",
        "region": [],
    }
    assert card["cta"]["secondary"]["url"] == f"http://127.0.0.1:8000/v1/products/{product.id}/card"


def test_each_product_card_is_a_new_recommendation(client, trail_shoe):
    first = client.get("/v1/products/1001/card").json()
    second = client.get("/v1/products/1001/card").json()

    assert first["rec_id"] != second["rec_id"]
    assert Recommendation.objects.filter(product=trail_shoe).count() == 2


def test_card_lookup_returns_the_card_exactly_as_served(client, trail_shoe):
    served = client.get("/v1/products/1001/card?channel=web").json()

    response = client.get(f"/v1/cards/{served['rec_id']}")

    assert response.status_code == 200
    assert response.json() == served


def test_card_lookup_serves_the_stored_json_without_decoding_it(client):
    ProductFactory(id=2002, title="Café Crème Pour-Over Kettle ☕", brand="Maison Été")
    served = client.get("/v1/products/2002/card").json()

    with mock.patch.object(JSONField, "from_db_value", side_effect=AssertionError("decoded")):
        response = client.get(f"/v1/cards/{served['rec_id']}")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == served
    assert response.json()["product"]["title"] == "Café Crème Pour-Over Kettle ☕"


def test_card_lookup_uses_one_query(client, trail_shoe, django_assert_num_queries):
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]

    with django_assert_num_queries(1):
        client.get(f"/v1/cards/{rec_id}")


@pytest.mark.parametrize(
    "rec_id", ["rec_000000000000000000000000", "nope", "x" * 300, "%27%20OR%201=1"]
)
def test_unknown_rec_id_is_404_not_found(client, rec_id):
    response = client.get(f"/v1/cards/{rec_id}")

    assert response.status_code == 404
    assert response.json() == {
        "error": "not found",
        "message": "No card was issued under that rec_id.",
    }


@pytest.mark.parametrize(
    "product_id", ["999999", "abc", "-1", "1.5", "99999999999999999999999", "١٢"]
)
def test_unknown_or_malformed_product_id_is_404(client, trail_shoe, product_id):
    response = client.get(f"/v1/products/{product_id}/card")

    assert response.status_code == 404
    assert response.json() == {"error": "product_not_found", "message": "No product has that id."}
    assert not Recommendation.objects.exists()


def test_empty_channel_means_no_channel(client, trail_shoe):
    assert client.get("/v1/products/1001/card?channel=").json()["channel"] is None


@pytest.mark.parametrize("channel", ["has space", "x" * 65, "<script>"])
def test_malformed_channel_is_400(client, trail_shoe, channel):
    response = client.get("/v1/products/1001/card", {"channel": channel})

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_parameter"
    assert list(response.json()["fields"]) == ["channel"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("regions", 5),
        ("regions", ["usa"]),
        ("tags", "serum"),
        ("gallery", ["ftp://img.test/1.jpg"]),
        ("url", "ftps://shop.test/p/1"),
    ],
)
def test_staff_cannot_save_values_that_would_break_cards(trail_shoe, field, value):
    setattr(trail_shoe, field, value)

    with pytest.raises(ValidationError) as raised:
        trail_shoe.full_clean()

    assert field in raised.value.message_dict


def test_the_contract_allows_the_empty_channel_it_reads_as_none(client):
    schema = client.get("/openapi.json").json()
    parameters = schema["paths"]["/v1/products/{productId}/card"]["get"]["parameters"]
    channel = next(p for p in parameters if p["name"] == "channel")

    assert channel["schema"] == {"type": "string", "pattern": "^$|^[A-Za-z0-9._:-]{1,64}$"}
