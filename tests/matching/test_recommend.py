"""GET /v1/recommend through the whole stack: HTTP, litellm to the scripted engine on loopback,
tiered retrieval on the database under test, cards, and the records it leaves behind."""

from urllib.parse import parse_qs, urlsplit

import orjson
import pytest
from django.conf import settings
from django.utils import timezone

from catalog import versions
from catalog.models import Product, Recommendation
from kernel import cache
from matching.models import Intent, MatchSession, Proposal
from merchants.models import MerchantAgent, WebhookDelivery
from tests.protocol import fan_out

pytestmark = pytest.mark.django_db

SHOES = {
    "normalized_query": "trail running shoes",
    "keywords": ["trail", "running"],
    "categories": ["Running Shoes"],
    "intent_tags": ["running", "trail"],
    "target_audience": "trail runners",
    "budget": {"min": None, "max": 120, "currency": "USD"},
    "region": None,
    "constraints": ["waterproof"],
    "summary": "Trail running shoes under $120",
}
# SHOES's budget as the answer's `retrieval` says it: in dollars, applied as stated.
SHOES_BUDGET = {
    "min": None,
    "max": 120.0,
    "currency": "USD",
    "applied": True,
    "usd_per_unit": 1.0,
    "min_usd": None,
    "max_usd": 120.0,
}


def recommend(client, intent, **query):
    return client.get("/v1/recommend", {"intent": intent, **query})


def test_unconfigured_engine_answers_503_even_for_an_intent_answered_before(
    client, shelf, engine, settings
):
    engine.answer("trail running shoes", **SHOES)
    assert recommend(client, "trail running shoes").status_code == 200
    settings.INTENT_ENGINE_MODEL = ""

    response = recommend(client, "trail running shoes")

    assert response.status_code == 503
    assert response.json() == {
        "error": "intent_engine_unavailable",
        "message": "The intent engine is not configured on this gateway (INTENT_ENGINE_MODEL), "
        "so shopping intents cannot be resolved.",
    }
    assert engine.calls_count == 1
    assert Intent.objects.count() == 1


def test_unconfigured_engine_503_without_any_engine(client, shelf):
    response = recommend(client, "anything")

    assert response.status_code == 503
    assert response.json()["error"] == "intent_engine_unavailable"
    assert Intent.objects.count() == 0


def test_recommend_answers_every_field_and_records_what_it_served(client, shelf, engine):
    engine.answer("Trail running shoes under $120", **SHOES)

    response = recommend(client, "Trail running shoes under $120", limit=2, channel="agent.test")

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "intent", "intent_id", "count", "items", "proposals", "proposal_count",
        "match_session_id", "demand_token", "shopper_guide", "note", "match_tier",
        "intent_source", "resolved_keywords", "resolved_categories", "retrieval", "generated_at",
    }  # fmt: skip
    assert body["intent"] == "Trail running shoes under $120"
    assert [item["product"]["id"] for item in body["items"]] == ["2001", "2003"]
    assert (body["count"], body["proposal_count"]) == (2, 2)
    assert (body["match_tier"], body["note"]) == ("narrow", None)
    assert body["retrieval"] == {
        "intent_hits": 2,
        "trending_fill": 0,
        "excluded": [],
        "budget": SHOES_BUDGET,
    }
    assert body["intent_source"] == "engine"
    assert body["resolved_keywords"] == ["trail", "running"]
    assert body["resolved_categories"] == ["Running Shoes"]
    assert body["generated_at"].endswith("Z")
    # The records behind the answer are the protocol's own.
    intent = client.get(f"/v1/intents/{body['intent_id']}").json()["intent"]
    assert intent["resolution_source"] == "engine"
    assert intent["intent_tags"] == ["running", "trail"]
    assert intent["budget_range"] == {"min": None, "max": 120.0, "currency": "USD"}
    assert intent["source_channel"] == "agent.test"
    listed = client.get(f"/v1/intents/{body['intent_id']}/proposals").json()
    assert [p["proposal_id"] for p in listed["proposals"]] == [
        p["proposal_id"] for p in body["proposals"]
    ]
    assert {p["provenance"] for p in listed["proposals"]} == {"catalog"}
    assert [p["metadata"]["rec_id"] for p in body["proposals"]] == [
        item["rec_id"] for item in body["items"]
    ]
    match = client.get(f"/v1/match/{body['match_session_id']}").json()
    assert match["match_session"]["intent_id"] == body["intent_id"]
    assert {r["proposal_id"] for r in match["ranked_proposals"]} == {
        p["proposal_id"] for p in body["proposals"]
    }
    assert sorted(card["rec_id"] for card in match["items"]) == sorted(
        item["rec_id"] for item in body["items"]
    )


def test_every_item_is_a_card_whose_rec_id_is_served_and_carried_by_the_buy_link(
    client, shelf, engine
):
    engine.answer("trail running shoes", **SHOES)
    body = recommend(client, "trail running shoes", limit=3, channel="agent.test").json()

    for item in body["items"]:
        assert client.get(f"/v1/cards/{item['rec_id']}").json() == item
        assert item["cta"]["primary"]["url"] == f"{settings.PUBLIC_BASE_URL}/r/{item['rec_id']}"
        assert item["channel"] == "agent.test"
        shop = client.get(urlsplit(item["cta"]["primary"]["url"]).path)
        assert shop.status_code == 302
        assert parse_qs(urlsplit(shop["Location"]).query)["rec_id"] == [item["rec_id"]]
    recorded = Recommendation.objects.filter(intent_id=body["intent_id"])
    assert recorded.count() == 3


def test_trending_fills_the_slots_the_tiers_left(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    body = recommend(client, "trail running shoes", limit=4).json()

    # Budget $120: the $350 espresso machine is not trending enough to break it; the socks
    # have no creator sales, so they are not trending at all.
    assert [item["product"]["id"] for item in body["items"]] == ["2001", "2003", "2006"]
    assert (body["match_tier"], body["note"]) == ("narrow", "intent_plus_trending")
    assert body["retrieval"] == {
        "intent_hits": 2,
        "trending_fill": 1,
        "excluded": [],
        "budget": SHOES_BUDGET,
    }


def test_nothing_matching_answers_trending_suggested(client, shelf, engine):
    engine.answer("qqqq", normalized_query="qqqq", keywords=["qqqq"], categories=[], intent_tags=[])

    body = recommend(client, "qqqq", limit=2).json()

    assert [item["product"]["id"] for item in body["items"]] == ["2006", "2007"]
    assert (body["match_tier"], body["note"]) == ("none", "trending_suggested")
    assert "Nothing matched it directly" in body["shopper_guide"]


@pytest.mark.parametrize(
    ("intent", "answer", "tier"),
    [
        ("gtx trail running shoe", {"keywords": ["zzzz"]}, "raw_substring"),
        ("trail shoes", {"keywords": ["trail"], "categories": ["Running Shoes"]}, "strict"),
        ("running on trails", {"keywords": ["trail", "running"]}, "narrow"),
        ("waterprooff kit", {"keywords": ["waterprooff"]}, "fuzzy"),
        ("warm feet", {"keywords": ["zzzz"], "categories": ["Socks"]}, "broadened"),
    ],
)
def test_each_tier_is_reachable_and_named(client, shelf, engine, intent, answer, tier):
    engine.answer(intent, normalized_query=intent, categories=[], intent_tags=[])
    engine.answers[intent].update(answer)

    body = recommend(client, intent, limit=1).json()

    assert body["match_tier"] == tier
    assert body["retrieval"] == {
        "intent_hits": 1,
        "trending_fill": 0,
        "excluded": [],
        "budget": None,
    }


def test_a_region_excludes_products_not_sold_there(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    body = recommend(client, "trail running shoes", limit=10, region="de").json()

    assert body["items"]
    for item in body["items"]:
        allowed = item["compliance"]["region_allow"]
        assert allowed == [] or "DE" in allowed
    assert "2001" not in {item["product"]["id"] for item in body["items"]}
    assert Intent.objects.get(intent_id=body["intent_id"]).region == "DE"


def test_the_budget_is_never_exceeded(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    body = recommend(client, "trail running shoes", limit=10).json()

    # $150 and $130 shoes match but are over $120, as is the trending $350 espresso machine.
    assert [item["product"]["id"] for item in body["items"]] == ["2001", "2003", "2006"]
    assert all(item["product"]["price_usd"] <= 120 for item in body["items"])


@pytest.mark.parametrize(
    "query",
    [
        {"limit": "0"},
        {"limit": "11"},
        {"limit": "abc"},
        {"limit": "2.0"},
        {"limit": ""},  # no integer: never read as absent, the default
        {"region": "USA"},
        {"region": " US"},  # the pattern holds for the code as sent
        {"channel": "bad channel!"},
        {"intent": ""},
        {"intent": " \t "},  # blank once trimmed, as the contract's pattern says
        {"intent": "x" * 2001},
    ],
)
def test_bad_query_values_are_400_naming_the_field(client, shelf, engine, query):
    response = client.get("/v1/recommend", {"intent": "trail running shoes", **query})

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_parameter"
    assert set(body["fields"]) == set(query)
    assert engine.calls_count == 0


def test_intent_is_required(client, engine):
    response = client.get("/v1/recommend")

    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"intent"}


def test_limit_defaults_to_3_and_10_is_honoured(client, shelf, engine):
    engine.answer("running", **{**SHOES, "budget": None, "keywords": ["running"]})

    assert recommend(client, "running").json()["count"] == 3
    # Three running products, then the two with creator sales: all the catalog can offer.
    ids = [item["product"]["id"] for item in recommend(client, "running", limit=10).json()["items"]]
    assert (sorted(ids[:3]), ids[3:]) == (["2001", "2002", "2003"], ["2006", "2007"])


def test_the_shopper_guide_explains_each_pick_from_the_resolution(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    guide = recommend(client, "trail running shoes", limit=3).json()["shopper_guide"]

    assert guide.startswith(
        "You asked for \u201ctrail running shoes\u201d (in Running Shoes, up to $120.00)."
    )
    # Every reason is true of the product: which field holds which keyword, and the category.
    assert (
        "1. TrailFox GTX Trail Running Shoe: its title contains your exact words; its title "
        "mentions \u201ctrail\u201d and \u201crunning\u201d; it is in the category "
        "\u201cRunning Shoes\u201d. $89.99, $30.01 under your budget."
    ) in guide
    assert (
        "2. Trail Running Vest: its title mentions \u201ctrail\u201d and \u201crunning\u201d. "
        "$60.00, $60.00 under your budget."
    ) in guide
    assert "3. Vortex Countertop Blender: it is trending with creators. $49.00" in guide


def test_a_warm_cache_answers_without_the_engine(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    first = recommend(client, "trail running shoes").json()
    second = recommend(client, "  Trail   RUNNING shoes ").json()
    other_region = recommend(client, "trail running shoes", region="US").json()

    assert (first["intent_source"], second["intent_source"]) == ("engine", "engine_cached")
    assert other_region["intent_source"] == "engine"
    assert engine.calls_count == 2
    assert second["intent_id"] != first["intent_id"]
    assert Intent.objects.get(intent_id=second["intent_id"]).resolution_source == "engine_cached"


def test_recommend_announces_the_intent_to_merchants_it_fits(client, shelf, engine):
    fits = MerchantAgent.objects.create(
        merchant_id="runner-shop", agent_endpoint="https://203.0.113.5/hook",
        subscription_tags=["trail"], token_hash="x", webhook_secret="whsec_x",
        endpoint_verified_at=timezone.now(),
    )  # fmt: skip
    MerchantAgent.objects.create(
        merchant_id="kitchen-shop", agent_endpoint="https://203.0.113.6/hook",
        subscription_tags=["coffee"], token_hash="y", webhook_secret="whsec_y",
        endpoint_verified_at=timezone.now(),
    )  # fmt: skip
    engine.answer("trail running shoes", **SHOES)

    body = recommend(client, "trail running shoes").json()
    fan_out()

    delivery = WebhookDelivery.objects.select_related("event").get()
    assert (delivery.merchant_id, delivery.event.intent_id) == (fits.pk, body["intent_id"])
    # The surge carries the intent exactly as the protocol serves it.
    served = client.get(f"/v1/intents/{body['intent_id']}").json()["intent"]
    assert orjson.loads(delivery.event.body)["data"]["intent"] == served


def test_catalog_proposals_are_scored_and_ranked(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    body = recommend(client, "trail running shoes", limit=3).json()

    session = MatchSession.objects.get(match_session_id=body["match_session_id"])
    assert len(session.ranked_proposals) == 3
    assert session.best_proposal_id == session.ranked_proposals[0]["proposal_id"]
    assert Proposal.objects.filter(intent_id=body["intent_id"], merchant=None).count() == 3


def test_the_proposals_answered_are_the_ones_the_protocol_serves(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)

    body = recommend(client, "trail running shoes", limit=3).json()

    for proposal in body["proposals"]:
        served = client.get(f"/v1/proposals/{proposal['proposal_id']}").json()["proposal"]
        assert served == proposal


def test_a_product_repriced_over_the_budget_leaves_the_answer_once_the_cache_expires(
    client, shelf, engine
):
    engine.answer("trail running shoes", **SHOES)
    first = recommend(client, "trail running shoes", limit=2).json()
    assert [item["product"]["id"] for item in first["items"]] == ["2001", "2003"]
    Product.objects.filter(id=2003).update(price_usd=500)
    warm = recommend(client, "trail running shoes", limit=2).json()
    assert [item["product"]["id"] for item in warm["items"]] == ["2001", "2003"]
    assert warm["items"][1]["product"]["price_usd"] == 60.0  # within the minute it is cached

    version = versions.current()
    cache.forget(
        [f"catalog:product:{version}:2001", f"catalog:product:{version}:2003"]
    )  # the minute passed
    second = recommend(client, "trail running shoes", limit=2).json()

    assert [item["product"]["id"] for item in second["items"]] == ["2001"]
    assert second["retrieval"]["intent_hits"] == 1
    assert second["retrieval"]["trending_fill"] == 0


def test_the_contract_describes_the_recommend_answer_as_one_object(client, engine, shelf):
    """Served by a `list` action, the answer is one object, not an array of them."""
    from jsonschema import Draft202012Validator

    schema = client.get("/openapi.json").json()
    answer = schema["paths"]["/v1/recommend"]["get"]["responses"]["200"]["content"]
    declared = answer["application/json"]["schema"]
    body = recommend(client, "trail running shoes").json()

    assert declared == {"$ref": "#/components/schemas/Recommend"}
    Draft202012Validator({**declared, "components": schema["components"]}).validate(body)
