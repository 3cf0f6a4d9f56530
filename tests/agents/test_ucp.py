"""UCP through its REST binding: catalog search, lookup and product detail for a client that names
no platform profile (so in release 2026-04-08, as before the gateway spoke 2026-08-25), each
request and answer checked against UCP's own published schemas (tests/agents/ucp_validation.py),
with the intent engine scripted on loopback. The profiles and the other release:
tests/agents/test_ucp_releases.py."""

from typing import Any

import orjson
import pytest
from django.conf import settings

from catalog.models import Recommendation
from matching.models import Intent
from tests.agents import ucp_validation as schemas
from tests.protocol import register
from tests.reporting.conftest import SUPPLY_KEY, convert, report

pytestmark = pytest.mark.django_db

SHOES = {
    "normalized_query": "running shoes",
    "keywords": ["running"],
    "categories": [],
    "intent_tags": ["running"],
    "budget": {"min": None, "max": None, "currency": "USD"},
}


def post(client, path: str, body: Any, **headers: str):
    return client.post(path, orjson.dumps(body), content_type="application/json", headers=headers)


def valid(ref: str, document: Any) -> Any:
    problems = schemas.errors(ref, document)
    assert not problems, problems
    return document


def search(client, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    valid(schemas.SEARCH_REQUEST, body)
    response = post(client, "/ucp/catalog/search", body)
    assert response.status_code == status, response.content
    return response.json()


# --- Search -------------------------------------------------------------------------------------


def test_a_search_answers_ucp_products_with_attributed_buy_links(client, shelf, engine):
    engine.answer("running shoes", **SHOES)

    answer = search(client, {"query": "running shoes", "pagination": {"limit": 2}})

    valid(schemas.SEARCH_RESPONSE, answer)
    assert answer["ucp"]["capabilities"] == {
        "dev.ucp.shopping.catalog.search": [{"version": "2026-04-08"}]
    }
    products = answer["products"]
    assert [product["title"] for product in products] == [
        "Roadster Running Shoe",
        "TrailFox GTX Trail Running Shoe",
    ] or len(products) == 2
    for product in products:
        rec_id = product["metadata"]["rec_id"]
        assert product["url"] == f"{settings.PUBLIC_BASE_URL}/r/{rec_id}"
        assert product["variants"][0]["url"] == product["url"]
        card = Recommendation.objects.get(rec_id=rec_id)
        assert (card.product_id, card.channel) == (int(product["id"]), "ucp")
        assert card.intent_id is not None
        assert product["price_range"]["min"]["currency"] == "USD"
    assert answer["pagination"]["has_next_page"] is True
    assert answer["messages"][0]["code"] == "shopper_guide"
    assert Intent.objects.count() == 1


def test_a_whole_number_written_with_a_fraction_is_an_integer_as_json_schema_says(
    client, shelf, engine
):
    engine.answer("running shoes", **SHOES)

    answer = search(client, {"query": "running shoes", "filters": {"price": {"max": 10000.0}}})

    assert answer["products"]
    assert all(product["price_range"]["max"]["amount"] <= 10000 for product in answer["products"])


def test_prices_are_cents_and_the_list_price_stands_beside_a_discount(client, trail_shoe, engine):
    engine.answer("trail shoe", **{**SHOES, "keywords": ["trail"]})

    product = search(client, {"query": "trail shoe"})["products"][0]

    assert product["price_range"]["min"] == {"amount": 8999, "currency": "USD"}
    assert product["list_price_range"]["max"] == {"amount": 11999, "currency": "USD"}
    assert product["variants"][0]["id"] == "1001-default"
    assert [media["type"] for media in product["media"]].count("video") <= 2
    assert {category["value"] for category in product["categories"]} == {
        "Sports & Outdoors",
        "Running Shoes",
    }


def test_filters_are_rules_not_hints(client, shelf, engine):
    engine.answer("running gear", **SHOES)

    hiking = search(
        client,
        {
            "query": "running gear",
            "filters": {"categories": ["hiking boots", "Socks"], "price": {"max": 13000}},
            "pagination": {"limit": 10},
        },
    )

    valid(schemas.SEARCH_RESPONSE, hiking)
    found = {product["title"] for product in hiking["products"]}
    assert found == {"Alpine Waterproof Hiking Boot", "Merino Hiking Socks"}
    assert hiking["pagination"] == {"has_next_page": False}


def test_the_country_of_the_context_keeps_to_products_sold_there(client, shelf, engine):
    engine.answer("running", **SHOES)

    answer = search(
        client,
        {"query": "running", "context": {"address_country": "de"}, "pagination": {"limit": 10}},
    )

    for product in answer["products"]:
        regions = product["metadata"]["regions"]
        assert not regions or "DE" in regions


def test_a_price_filter_in_another_currency_is_not_applied_and_says_so(client, shelf, engine):
    engine.answer("running shoes", **SHOES)

    answer = search(
        client,
        {
            "query": "running shoes",
            "context": {"currency": "EUR"},
            "filters": {"price": {"max": 100}},
        },
    )

    assert "price_filter_ignored" in [message["code"] for message in answer["messages"]]
    assert answer["products"], "the filter was not applied"


def test_pages_follow_the_cursor_under_the_first_pages_intent(client, shelf, engine):
    engine.answer("running shoes", **SHOES)
    body: dict[str, Any] = {"query": "running shoes", "pagination": {"limit": 3}}

    first = search(client, body)
    seen = [product["id"] for product in first["products"]]
    cursor = first["pagination"]["cursor"]
    while cursor:
        page = search(client, {**body, "pagination": {"limit": 3, "cursor": cursor}})
        valid(schemas.SEARCH_RESPONSE, page)
        seen += [product["id"] for product in page["products"]]
        cursor = page["pagination"].get("cursor")

    intent = Intent.objects.get()
    assert Recommendation.objects.filter(intent_id=intent.intent_id).count() == len(seen)
    assert len(engine.calls) == 1
    # The pages, end to end, are the list recommend answers for the same words.
    whole = client.get("/v1/recommend", {"intent": "running shoes", "limit": 10}).json()
    assert seen == [card["product"]["id"] for card in whole["items"]]
    assert len(seen) == 5  # the tiers' three running products, then two trending ones


@pytest.mark.parametrize(
    "tamper",
    [
        lambda cursor: cursor[:-2] + ("AA" if not cursor.endswith("AA") else "BB"),
        lambda cursor: "not-a-cursor",
    ],
)
def test_a_forged_cursor_is_refused_in_ucps_error_shape(client, shelf, engine, tamper):
    engine.answer("running shoes", **SHOES)
    first = search(client, {"query": "running shoes", "pagination": {"limit": 2}})

    refused = search(
        client,
        {
            "query": "running shoes",
            "pagination": {"cursor": tamper(first["pagination"]["cursor"])},
        },
        status=400,
    )

    valid(schemas.ERROR_RESPONSE, refused)
    assert refused["messages"][0]["code"] == "invalid_cursor"


def test_a_cursor_of_another_search_is_refused(client, shelf, engine):
    engine.answer("running shoes", **SHOES)
    first = search(client, {"query": "running shoes", "pagination": {"limit": 2}})

    refused = search(
        client,
        {"query": "hiking", "pagination": {"cursor": first["pagination"]["cursor"]}},
        status=400,
    )

    assert refused["messages"][0]["code"] == "invalid_cursor"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": ""}, "query"),
        ({"query": 7}, "query"),
        ({"query": "x", "filters": {"price": {"min": 500, "max": 100}}}, "price"),
        ({"query": "x", "filters": {"price": {"max": -1}}}, "max"),
        ({"query": "x", "filters": {"price": {"max": 10.5}}}, "max"),
        ({"query": "x", "filters": {"price": {"max": "100"}}}, "max"),
        ({"query": "x", "pagination": {"limit": 0}}, "limit"),
        ({"query": "x", "context": {"currency": "euro"}}, "currency"),
        ({"query": "x", "filters": {"categories": "Socks"}}, "categories"),
        ({"query": "x" * 2001}, "query"),
    ],
)
def test_a_request_no_search_can_answer_is_a_400_in_ucps_error_shape(client, engine, body, field):
    response = post(client, "/ucp/catalog/search", body)

    assert response.status_code == 400
    error = valid(schemas.ERROR_RESPONSE, response.json())
    assert error["ucp"]["status"] == "error"
    assert error["messages"][0]["severity"] == "recoverable"
    assert field in error["messages"][0]["content"]


@pytest.mark.parametrize("raw", [b"{not json", b"[]", b'"text"'])
def test_a_body_that_is_no_json_object_is_a_400_in_ucps_error_shape(client, engine, raw):
    response = client.post("/ucp/catalog/search", raw, content_type="application/json")

    assert response.status_code == 400
    valid(schemas.ERROR_RESPONSE, response.json())


def test_without_an_engine_search_answers_503_in_ucps_error_shape(client, shelf, settings):
    settings.INTENT_ENGINE_MODEL = ""

    response = post(client, "/ucp/catalog/search", {"query": "running shoes"})

    assert response.status_code == 503
    error = valid(schemas.ERROR_RESPONSE, response.json())
    assert error["messages"][0]["code"] == "intent_engine_unavailable"


# --- Lookup -------------------------------------------------------------------------------------


def lookup(client, body: dict[str, Any], path: str = "/ucp/catalog/lookup") -> dict[str, Any]:
    valid(schemas.LOOKUP_REQUEST if path.endswith("lookup") else schemas.PRODUCT_REQUEST, body)
    response = post(client, path, body)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_lookup_answers_each_product_once_with_what_named_it(client, shelf):
    answer = lookup(client, {"ids": ["2001", "2001-default", "2004", "9999", "abc", "2001x"]})

    valid(schemas.LOOKUP_RESPONSE, answer)
    assert [product["id"] for product in answer["products"]] == ["2001", "2004"]
    assert answer["products"][0]["variants"][0]["inputs"] == [
        {"id": "2001", "match": "featured"},
        {"id": "2001-default", "match": "exact"},
    ]
    assert [message["content"] for message in answer["messages"]] == ["9999", "abc", "2001x"]
    assert {message["code"] for message in answer["messages"]} == {"not_found"}
    for product in answer["products"]:
        card = Recommendation.objects.get(rec_id=product["metadata"]["rec_id"])
        assert card.channel == "ucp"
        assert product["url"].endswith(f"/r/{card.rec_id}")


def test_a_lookup_keeps_to_its_filters(client, shelf):
    answer = lookup(
        client, {"ids": ["2001", "2006"], "filters": {"categories": ["kitchen appliances"]}}
    )

    assert [product["id"] for product in answer["products"]] == ["2006"]


def test_a_lookup_of_too_many_ids_is_request_too_large(client, shelf):
    response = post(client, "/ucp/catalog/lookup", {"ids": [str(n) for n in range(51)]})

    assert response.status_code == 400
    error = valid(schemas.ERROR_RESPONSE, response.json())
    assert error["messages"][0]["code"] == "request_too_large"


def test_get_product_answers_the_products_detail(client, trail_shoe):
    answer = lookup(client, {"id": "1001-default"}, path="/ucp/catalog/product")

    valid(schemas.PRODUCT_RESPONSE, answer)
    assert answer["product"]["id"] == "1001"
    assert Recommendation.objects.filter(rec_id=answer["product"]["metadata"]["rec_id"]).exists()


def test_get_product_of_an_unknown_id_is_ucps_application_error(client, shelf):
    answer = lookup(client, {"id": "4242"}, path="/ucp/catalog/product")

    valid(schemas.ERROR_RESPONSE, answer)
    assert answer["messages"][0]["code"] == "not_found"
    assert answer["messages"][0]["severity"] == "unrecoverable"


# --- Attribution --------------------------------------------------------------------------------


def test_a_sale_through_a_ucp_search_is_credited_like_one_through_recommend(
    client, trail_shoe, engine, settings
):
    settings.SUPPLY_API_KEYS = [SUPPLY_KEY]
    engine.answer("trail shoe", **{**SHOES, "keywords": ["trail"]})
    product = search(client, {"query": "trail shoe"})["products"][0]
    buy_link = product["url"].removeprefix(settings.PUBLIC_BASE_URL)

    clicked = client.get(buy_link)
    shop = register(client, "shop-a")
    sold = convert(client, shop, "ORD-UCP-1", rec_id=product["metadata"]["rec_id"], amount=89.99)

    assert clicked.status_code == 302
    assert sold.status_code == 201, sold.content
    assert sold.json()["conversion"]["channel"] == "ucp"
    ucp_row = report(client, channel="ucp").json()["by_channel"]
    assert [
        (row["channel"], row["clicks"], row["conversions"], row["gmv_usd"]) for row in ucp_row
    ] == [("ucp", 1, 1, 89.99)]


# --- Retries ------------------------------------------------------------------------------------


def test_a_retried_search_under_its_key_records_nothing_new(client, shelf, engine):
    engine.answer("running shoes", **SHOES)
    body = {"query": "running shoes", "pagination": {"limit": 2}}

    first = post(client, "/ucp/catalog/search", body, **{"Idempotency-Key": "search-1"})
    again = post(client, "/ucp/catalog/search", body, **{"Idempotency-Key": "search-1"})
    other = post(
        client,
        "/ucp/catalog/search",
        {**body, "query": "hiking"},
        **{"Idempotency-Key": "search-1"},
    )

    assert (first.status_code, again.status_code) == (200, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Intent.objects.count() == 1
    assert Recommendation.objects.count() == 2
    assert len(engine.calls) == 1
    assert other.status_code == 422
    error = valid(schemas.ERROR_RESPONSE, other.json())
    assert error["messages"][0]["code"] == "idempotency_key_reused"
