"""POST /v1/attribution/conversions: orders recorded once per merchant order id."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from catalog.models import Recommendation
from matching.models import MatchToken
from merchants.models import MerchantAgent
from reporting.models import Conversion
from tests.protocol import create_intent, post, propose, register, state_intent
from tests.reporting.conftest import ISSUED, OCCURRED, accepted_token, convert, issue_card

pytestmark = pytest.mark.django_db


def test_a_conversion_on_a_card_is_recorded_with_its_product_and_channel(client, shop, rec_id):
    response = convert(
        client, shop, "ORD-1", rec_id=rec_id, amount=89.99, currency="usd", occurred_at=OCCURRED
    )

    assert response.status_code == 201
    conversion = response.json()["conversion"]
    assert conversion["conversion_id"].startswith("cnv_")
    assert {key: value for key, value in conversion.items() if key != "conversion_id"} == {
        "merchant_agent_id": "shop-a",
        "order_id": "ORD-1",
        "rec_id": rec_id,
        "match_token_id": None,
        "product_id": 1001,
        "channel": "agent.a",
        "amount": 89.99,
        "currency": "USD",
        "quantity": 1,
        "occurred_at": OCCURRED,
        "created_at": conversion["created_at"],
        "flags": [],
    }
    assert Conversion.objects.get().pk == conversion["conversion_id"]


def test_the_same_order_again_answers_the_recorded_conversion(client, shop, rec_id):
    first = convert(client, shop, "ORD-1", rec_id=rec_id, amount=89.99, occurred_at=OCCURRED)

    again = convert(client, shop, "ORD-1", rec_id=rec_id, amount=89.99, occurred_at=OCCURRED)

    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert Conversion.objects.count() == 1


@pytest.mark.parametrize(
    "change",
    [
        {"amount": 90},
        {"currency": "EUR"},
        {"occurred_at": "2026-11-01T09:31:00Z"},
        {"rec_id": None},  # replaced below by another card of the same product
    ],
)
def test_the_same_order_with_other_facts_is_a_conflict(client, shop, rec_id, change):
    convert(client, shop, "ORD-1", rec_id=rec_id, amount=89.99, occurred_at=OCCURRED)
    if "rec_id" in change:
        change = {"rec_id": issue_card(client, 1001, "agent.a")}
        Recommendation.objects.filter(rec_id=change["rec_id"]).update(created_at=ISSUED)

    response = convert(
        client,
        shop,
        "ORD-1",
        **{"rec_id": rec_id, "amount": 89.99, "occurred_at": OCCURRED, **change},
    )

    assert response.status_code == 409
    assert response.json()["error"] == "conversion_conflict"
    assert list(Conversion.objects.values_list("amount", "currency")) == [(Decimal("89.99"), "USD")]


def test_two_merchants_may_use_the_same_order_id(client, shop, rec_id):
    other = register(client, "shop-b")

    first = convert(client, shop, "ORD-1", rec_id=rec_id)
    second = convert(client, other, "ORD-1", rec_id=rec_id)

    assert (first.status_code, second.status_code) == (201, 201)
    assert Conversion.objects.count() == 2


def test_a_conversion_on_a_match_token_takes_its_product_and_intent_channel(client, shop):
    token_id = accepted_token(client, shop, 1001, "agent.m")

    response = convert(client, shop, "ORD-1", match_token_id=token_id)

    assert response.status_code == 201
    conversion = response.json()["conversion"]
    assert (conversion["match_token_id"], conversion["rec_id"]) == (token_id, None)
    assert (conversion["product_id"], conversion["channel"]) == (1001, "agent.m")


def test_a_card_and_a_token_of_the_same_product_are_both_kept(client, shop, rec_id):
    token_id = accepted_token(client, shop, 1001, "agent.m")

    response = convert(client, shop, "ORD-1", rec_id=rec_id, match_token_id=token_id)

    assert response.status_code == 201
    conversion = Conversion.objects.get()
    assert (conversion.recommendation_id, conversion.match_token_id) == (rec_id, token_id)
    assert conversion.channel == "agent.a"  # the card's channel wins


def test_a_card_and_a_token_of_different_products_are_refused(client, shop, bottle_card):
    token_id = accepted_token(client, shop, 1001, "agent.m")

    response = convert(client, shop, "ORD-1", rec_id=bottle_card, match_token_id=token_id)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_body"
    assert list(response.json()["fields"]) == ["match_token_id"]
    assert not Conversion.objects.exists()


@pytest.fixture
def bottle_card(client, bottle):
    return issue_card(client, 2002, "agent.b")


def test_another_merchants_match_token_is_refused(client, shop):
    other = register(client, "shop-b")
    token_id = accepted_token(client, other, 1001, "agent.m")

    response = convert(client, shop, "ORD-1", match_token_id=token_id)

    assert response.status_code == 403
    assert response.json()["error"] == "match_token_not_yours"
    assert not Conversion.objects.exists()


@pytest.mark.parametrize(
    ("reference", "error"),
    [
        ({"rec_id": "rec_000000000000000000000000"}, "recommendation_not_found"),
        ({"rec_id": "not-a-rec"}, "recommendation_not_found"),
        ({"match_token_id": "mtk_000000000000000000000000"}, "match_token_not_found"),
        ({"match_token_id": "mtk_short"}, "match_token_not_found"),
    ],
)
def test_unknown_references_are_404(client, shop, rec_id, reference, error):
    response = convert(client, shop, "ORD-1", **reference)

    assert (response.status_code, response.json()["error"]) == (404, error)
    assert not Conversion.objects.exists()


def test_a_known_card_with_an_unknown_token_is_404(client, shop, rec_id):
    response = convert(
        client, shop, "ORD-1", rec_id=rec_id, match_token_id="mtk_000000000000000000000000"
    )

    assert (response.status_code, response.json()["error"]) == (404, "match_token_not_found")


def test_an_unknown_merchant_is_404(client, shop, rec_id):
    response = post(
        client,
        "/v1/attribution/conversions",
        {
            "merchant_agent_id": "nobody",
            "rec_id": rec_id,
            "order_id": "ORD-1",
            "amount": 1,
            "currency": "USD",
            "occurred_at": OCCURRED,
        },
        token=shop.token,
    )

    assert (response.status_code, response.json()["error"]) == (404, "merchant_not_found")


@pytest.mark.parametrize(
    ("who", "status", "error"),
    [
        ("missing", 401, "missing registration token"),
        ("wrong", 403, "invalid registration token"),
        ("another merchant's", 403, "invalid registration token"),
    ],
)
def test_the_merchant_token_is_required(client, shop, rec_id, who, status, error):
    other = register(client, "shop-b")
    token = {"missing": None, "wrong": "mrt_wrong", "another merchant's": other.token}[who]
    before = MerchantAgent.objects.values().get(merchant_id="shop-a")

    response = convert(client, shop, "ORD-1", token=token, rec_id=rec_id)

    assert (response.status_code, response.json()["error"]) == (status, error)
    assert not Conversion.objects.exists()
    assert MerchantAgent.objects.values().get(merchant_id="shop-a") == before


def test_the_token_is_checked_before_the_body(client, shop):
    response = post(client, "/v1/attribution/conversions", {"order_id": 5})

    assert (response.status_code, response.json()["error"]) == (401, "missing registration token")


def _bad(field, value):
    return pytest.param({field: value}, field, id=f"{field}={value!r}")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        _bad("amount", -1),
        _bad("amount", "12.50"),
        _bad("amount", True),
        _bad("amount", 12.345),
        _bad("amount", 100_000_000.01),
        _bad("amount", 1e300),
        _bad("currency", "US"),
        _bad("currency", "US1"),
        _bad("currency", " USD"),  # the pattern holds for the code as sent
        _bad("order_id", ""),
        _bad("order_id", "x" * 129),
        _bad("order_id", 42),
        _bad("occurred_at", "yesterday"),
        _bad("occurred_at", "2999-01-01T00:00:00Z"),
        _bad("rec_id", 7),
    ],
)
def test_invalid_bodies_name_the_field(client, shop, rec_id, change, field):
    body = {"order_id": "ORD-1", "rec_id": rec_id, **change}

    response = convert(client, shop, **body)

    assert response.status_code == 400, response.content
    assert response.json()["error"] == "invalid_body"
    assert list(response.json()["fields"]) == [field]
    assert not Conversion.objects.exists()


def test_a_conversion_needs_a_card_or_a_token(client, shop):
    response = convert(client, shop, "ORD-1")

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_body"
    assert sorted(response.json()["fields"]) == ["match_token_id", "rec_id"]


@pytest.mark.parametrize("body", [[], "order", 5])
def test_a_body_that_is_not_an_object_is_refused(client, shop, body):
    response = post(client, "/v1/attribution/conversions", body, token=shop.token)

    assert (response.status_code, response.json()["error"]) == (400, "invalid_body")


def test_a_little_clock_skew_is_allowed_and_zero_amounts_too(client, shop, rec_id):
    soon = (timezone.now() + timedelta(minutes=2)).isoformat()

    response = convert(client, shop, "ORD-1", rec_id=rec_id, amount=0, occurred_at=soon)

    assert response.status_code == 201
    assert response.json()["conversion"]["amount"] == 0.0


def test_a_deactivated_merchant_may_still_report_its_orders(client, shop, rec_id):
    post(client, "/v1/merchant/shop-a/deactivate", None, token=shop.token)

    response = convert(client, shop, "ORD-1", rec_id=rec_id)

    assert response.status_code == 201


def issued_token(client, merchant, product_id: int) -> str:
    """The id of a token minted but not confirmed."""
    intent_id = create_intent(client, intent_tags=["trail"])["intent_id"]
    proposal = propose(client, merchant, intent_id, product_id, price=99)
    proposal_id = proposal.json()["proposal"]["proposal_id"]
    session = post(client, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    accept = f"/v1/match/{session['match_session_id']}/accept"
    token = post(client, accept, {"proposal_id": proposal_id}).json()["match_token"]
    assert token["acceptance_state"] == "issued"
    return token["match_token_id"]


def test_a_token_that_was_only_issued_earns_no_sale(client, shop):
    token_id = issued_token(client, shop, 1001)

    response = convert(client, shop, "ORD-9", match_token_id=token_id)

    assert response.status_code == 409
    assert response.json()["error"] == "match_token_not_accepted"
    assert Conversion.objects.count() == 0


def test_a_superseded_token_earns_no_sale(client, shop):
    rival = register(client, "shop-b")
    intent, demand_token = state_intent(client, intent_tags=["trail"])
    intent_id = intent["intent_id"]
    mine = propose(client, shop, intent_id, 1001, price=99).json()["proposal"]["proposal_id"]
    theirs = propose(client, rival, intent_id, 1001, price=95).json()["proposal"]["proposal_id"]
    session = post(client, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    accept = f"/v1/match/{session['match_session_id']}/accept"
    my_token = post(client, accept, {"proposal_id": mine}).json()["match_token"]
    their_token = post(client, accept, {"proposal_id": theirs}).json()["match_token"]
    # The demand side's confirmation accepts the match and supersedes the other token.
    post(
        client,
        accept,
        {"match_token_id": their_token["match_token_id"], "demand_token": demand_token},
    )
    assert MatchToken.objects.get(pk=my_token["match_token_id"]).acceptance_state == "superseded"

    response = convert(client, shop, "ORD-9", match_token_id=my_token["match_token_id"])

    assert response.status_code == 409
    assert response.json()["error"] == "match_token_not_accepted"


def test_an_order_older_than_its_card_is_refused(client, shop, trail_shoe):
    fresh = issue_card(client, 1001, "agent.a")  # issued now

    response = convert(client, shop, "ORD-9", rec_id=fresh, occurred_at="2026-01-01T00:00:00Z")

    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"occurred_at"}
    assert Conversion.objects.count() == 0


def test_a_null_reference_counts_as_absent(client, shop, rec_id):
    response = convert(
        client, shop, "ORD-9", rec_id=rec_id, match_token_id=None, occurred_at=OCCURRED
    )

    assert response.status_code == 201
    assert response.json()["conversion"]["match_token_id"] is None


def test_a_negative_zero_amount_is_recorded_as_zero(client, shop, rec_id):
    response = convert(client, shop, "ORD-9", rec_id=rec_id, amount=-0.0, occurred_at=OCCURRED)

    assert response.status_code == 201
    assert b'"amount":0.0,' in response.content
    assert b'"amount":-0' not in response.content
    assert str(Conversion.objects.get().amount) == "0.00"


@pytest.mark.parametrize(
    "references", [{}, {"rec_id": None}, {"rec_id": None, "match_token_id": None}]
)
def test_the_contract_requires_a_card_or_a_token_for_a_conversion(client, shop, references):
    """A conversion names a rec_id or a match_token_id, by the gateway and by its contract."""
    from jsonschema import Draft202012Validator

    schema = client.get("/openapi.json").json()
    operation = schema["paths"]["/v1/attribution/conversions"]["post"]
    declared = operation["requestBody"]["content"]["application/json"]["schema"]
    body = {
        "merchant_agent_id": shop.merchant_id,
        "order_id": "o-1",
        "amount": 10,
        "currency": "USD",
        "occurred_at": "2025-11-20T09:00:00Z",
        **references,
    }

    assert operation["requestBody"]["required"] is True
    assert not Draft202012Validator({**declared, "components": schema["components"]}).is_valid(body)
    response = post(client, "/v1/attribution/conversions", body, token=shop.token)
    assert response.status_code == 400
    assert not Conversion.objects.exists()
