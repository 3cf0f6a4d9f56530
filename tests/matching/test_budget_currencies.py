"""A budget in the shopper's money: converted with the one table of exchange rates (USD_RATES)
before it filters the catalog's dollar prices, never applied when its currency has no rate, and
said in the answer's `retrieval.budget` and shopper guide. Through the whole stack: HTTP,
litellm to the scripted engine, retrieval on the database under test."""

from decimal import Decimal

import orjson
import pytest

from matching.engine import resolution
from tests.matching.match_calls import match
from tests.protocol import propose, register, state_intent

pytestmark = pytest.mark.django_db

RUPEE = 1 / 82.5  # the default table's rate (gateway/environment.py USD_RATES_DEFAULT)


def shoes(budget):
    return {
        "normalized_query": "running shoes",
        "keywords": ["running"],
        "categories": [],
        "intent_tags": ["running"],
        "budget": budget,
    }


def served(client, engine, budget):
    # Each budget its own words: an intent already resolved is answered from the cache.
    words = f"running gear {budget['min']} to {budget['max']} {budget['currency']}"
    engine.answer(words, **shoes(budget))
    body = client.get("/v1/recommend", {"intent": words, "limit": 10}).json()
    hits = body["retrieval"]["intent_hits"]  # the tiers' products come before trending's
    return sorted(item["product"]["id"] for item in body["items"][:hits]), body


def test_a_ceiling_in_rupees_is_converted_to_dollars_before_it_filters(client, shelf, engine):
    ids, body = served(client, engine, {"min": None, "max": 8250, "currency": "INR"})

    # 8,250 rupees are $100: the $89.99 shoe and the $60 vest, never the $150 shoe.
    assert ids == ["2001", "2003"]
    assert body["retrieval"]["budget"] == {
        "min": None,
        "max": 8250.0,
        "currency": "INR",
        "applied": True,
        "usd_per_unit": pytest.approx(RUPEE),
        "min_usd": None,
        "max_usd": 100.0,
    }
    assert "(up to INR 8,250.00, about $100.00)" in body["shopper_guide"]
    assert "$89.99, $10.01 under your budget." in body["shopper_guide"]


def test_a_range_in_rupees_rounds_inward_to_the_cent(client, shelf, engine):
    ids, body = served(client, engine, {"min": 4950, "max": 8250, "currency": "INR"})

    # 4,950 rupees are exactly $60: the $60 vest is in; 4,951 are $60.0121..., rounded up.
    assert ids == ["2001", "2003"]
    ids, body = served(client, engine, {"min": 4951, "max": 8250, "currency": "INR"})
    assert ids == ["2001"]
    assert (body["retrieval"]["budget"]["min_usd"], body["retrieval"]["budget"]["max_usd"]) == (
        60.02,
        100.0,
    )


def test_a_currency_without_a_rate_is_not_applied_and_the_answer_says_so(client, shelf, engine):
    ids, body = served(client, engine, {"min": None, "max": 100, "currency": "JPY"})

    # 100 yen is not $100: no rate, no filter; the $150 shoe is served.
    assert "2002" in ids
    assert body["retrieval"]["budget"] == {
        "min": None,
        "max": 100.0,
        "currency": "JPY",
        "applied": False,
        "usd_per_unit": None,
        "min_usd": None,
        "max_usd": None,
    }
    assert "up to JPY 100.00, not applied: no exchange rate for JPY" in body["shopper_guide"]
    assert "under your budget" not in body["shopper_guide"]


def test_a_configured_rate_converts_its_currency(client, shelf, engine, settings):
    settings.USD_RATES = {"EUR": Decimal("1.25")}

    ids, body = served(client, engine, {"min": None, "max": 80, "currency": "EUR"})

    assert ids == ["2001", "2003"]  # 80 euros are $100
    assert body["retrieval"]["budget"]["max_usd"] == 100.0
    ids, _ = served(client, engine, {"min": None, "max": 8250, "currency": "INR"})
    assert "2002" in ids  # this table has no rupee any more


def test_a_budget_in_dollars_or_in_no_named_currency_is_as_stated(client, shelf, engine):
    for currency in ("USD", None):
        ids, body = served(client, engine, {"min": None, "max": 100, "currency": currency})

        assert ids == ["2001", "2003"]
        assert body["retrieval"]["budget"]["currency"] == "USD"
        assert body["retrieval"]["budget"]["usd_per_unit"] == 1.0
        assert "(up to $100.00)" in body["shopper_guide"]
    _, body = served(client, engine, {"min": None, "max": None, "currency": "INR"})
    assert body["retrieval"]["budget"] is None  # nothing stated, nothing to say


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("inr", "INR"),
        ("Rupees", "INR"),
        ("\u20b9", "INR"),
        ("Rs.", "INR"),
        ("$", "USD"),
        ("euros", "EUR"),
        ("\u00a3", "GBP"),
        ("zorkmids", resolution.UNKNOWN_CURRENCY),
        ("", None),
        (7, None),
    ],
)
def test_a_currency_is_read_from_its_code_symbol_or_name(written, read):
    answer = {
        "normalized_query": "q",
        "keywords": [],
        "categories": [],
        "intent_tags": [],
        "budget": {"min": None, "max": 1500, "currency": written},
    }

    parsed = resolution.parse(orjson.dumps(answer).decode(), text="q", categories=[])

    assert parsed.budget == resolution.Budget(None, 1500.0, read)


def test_money_the_engine_cannot_name_is_never_read_as_dollars(client, shelf, engine):
    ids, body = served(client, engine, {"min": None, "max": 100, "currency": "zorkmids"})

    assert "2002" in ids
    assert body["retrieval"]["budget"]["currency"] == "XXX"
    assert body["retrieval"]["budget"]["applied"] is False


def test_a_match_session_judges_an_intent_s_rupees_in_dollars(client, shelf):
    shop = register(client, "rupee-shop")
    intent, _ = state_intent(
        client, intent_tags=["running"], budget_range={"max": 8250, "currency": "INR"}
    )
    within = propose(client, shop, intent["intent_id"], 2001, price=89.99).json()["proposal"]
    over = propose(client, shop, intent["intent_id"], 2002, price=150).json()["proposal"]

    ranked = match(client, intent["intent_id"]).json()["match_session"]["ranked_proposals"]

    fit = {row["proposal_id"]: row["components"]["price_fit"] for row in ranked}
    # $89.99 within $100; $150 is half over: 1 - 50/100.
    assert fit == {within["proposal_id"]: 1.0, over["proposal_id"]: 0.5}


def test_a_match_session_does_not_judge_a_budget_without_a_rate(client, shelf):
    shop = register(client, "yen-shop")
    intent, _ = state_intent(
        client, intent_tags=["running"], budget_range={"max": 100, "currency": "JPY"}
    )
    proposal = propose(client, shop, intent["intent_id"], 2002, price=150).json()["proposal"]

    ranked = match(client, intent["intent_id"]).json()["match_session"]["ranked_proposals"]

    assert [(row["proposal_id"], row["components"]["price_fit"]) for row in ranked] == [
        (proposal["proposal_id"], 0.5)  # as without a budget
    ]
