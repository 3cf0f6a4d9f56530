"""Match sessions: ranking, limits, listed proposals, and every error of creating one."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from matching.models import MatchSession, Proposal
from merchants.models import MerchantAgent
from tests.factories import ProductFactory
from tests.matching.match_calls import accept, match
from tests.protocol import create_intent, post, propose, register

pytestmark = pytest.mark.django_db


def test_the_whole_protocol_walkthrough(client, market):
    intent_id = market["intent"]["intent_id"]
    good, weak = market["good"]["proposal_id"], market["weak"]["proposal_id"]

    created = match(client, intent_id)
    assert created.status_code == 201
    session = created.json()["match_session"]
    assert session["match_session_id"].startswith("mss_")
    assert session["status"] == "open"
    assert session["best_proposal_id"] == good
    first, second = session["ranked_proposals"]
    assert (first["rank"], first["proposal_id"], second["rank"], second["proposal_id"]) == (
        1,
        good,
        2,
        weak,
    )
    # relevance 1, price fit 1, in stock 1, 2 days free 1, fresh merchant 1, 3 evidence 1,
    # commission 0.1/0.2 = 0.5: 1 - 0.05 * 0.5 = 0.975
    assert first["components"] == {
        "relevance": 1.0,
        "price_fit": 1.0,
        "availability": 1.0,
        "shipping": 1.0,
        "reliability": 1.0,
        "evidence": 1.0,
        "commission": 0.5,
    }
    assert first["score"] == 0.975
    assert first["reasons"][:2] == [
        "matches 2 of 2 intent tags: trail (title, tags), running (title, category)",
        "within budget: 99.00 vs max 120.00",
    ]
    assert first["product_id"] == 1001
    assert first["merchant_agent_id"] == "fast-shop"
    # relevance 0, price 150 vs 120: 1 - 30/120 = 0.75, low stock 0.7, 12 days 0.2
    assert second["components"]["relevance"] == 0.0
    assert second["components"]["price_fit"] == 0.75
    assert second["score"] == round(0.2 * 0.75 + 0.15 * 0.7 + 0.1 * 0.2 + 0.1 * 1.0, 4)
    summary = session["summary"]
    assert summary["weights"]["relevance"] == 0.30
    assert abs(sum(summary["weights"].values()) - 1) < 1e-9
    assert (summary["considered"], summary["ranked"], summary["returned"]) == (2, 2, 2)
    assert summary["excluded"] == []
    session_id = session["match_session_id"]

    minted = accept(client, session_id, proposal_id=good)
    assert minted.status_code == 200
    token = minted.json()["match_token"]
    assert token["match_token_id"].startswith("mtk_")
    assert token["acceptance_state"] == "issued"
    assert token["accepted_at"] is None

    again = accept(client, session_id, proposal_id=good).json()["match_token"]
    assert again == token

    confirmed = accept(
        client,
        session_id,
        match_token_id=token["match_token_id"],
        demand_token=market["demand_token"],
    )
    assert confirmed.status_code == 200
    accepted = confirmed.json()["match_token"]
    assert accepted["acceptance_state"] == "accepted"
    assert accepted["accepted_at"] is not None

    other = accept(client, session_id, proposal_id=weak)
    assert (other.status_code, other.json()["error"]) == (409, "match_already_accepted")

    read = client.get(f"/v1/match-tokens/{token['match_token_id']}").json()["match_token"]
    assert read == accepted
    assert read["ranking_snapshot"]["proposal_id"] == good
    assert read["ranking_snapshot"]["score"] == first["score"]
    assert read["ranking_snapshot"]["components"] == first["components"]
    assert read["proposal_snapshot"]["proposal_id"] == good
    assert read["proposal_snapshot"]["price"] == 99.0
    assert read["intent_snapshot"]["intent_id"] == intent_id
    assert read["trace_ids"]["match_session_id"] == session_id
    assert read["trace_ids"]["proposal_id"] == good
    assert read["trace_ids"]["intent_id"] == intent_id
    assert read["trace_ids"]["request_id"].startswith("req_")
    assert Proposal.objects.get(pk=good).status == "accepted"

    detail = client.get(f"/v1/match/{session_id}").json()
    assert detail["match_session"]["status"] == "accepted"
    assert [p["proposal_id"] for p in detail["ranked_proposals"]] == [good, weak]
    assert [t["match_token_id"] for t in detail["match_tokens"]] == [token["match_token_id"]]
    assert [card["product"]["id"] for card in detail["items"]] == ["1001", "1002"]


def test_limit_keeps_the_best_and_get_limit_trims(client, market):
    session = match(client, market["intent"]["intent_id"], limit=1).json()["match_session"]

    assert [p["proposal_id"] for p in session["ranked_proposals"]] == [
        market["good"]["proposal_id"]
    ]
    assert session["summary"]["ranked"] == 2
    assert session["summary"]["returned"] == 1
    detail = client.get(f"/v1/match/{session['match_session_id']}?limit=1").json()
    assert len(detail["ranked_proposals"]) == len(detail["items"]) == 1


def test_only_listed_proposals_are_ranked(client, market):
    weak = market["weak"]["proposal_id"]

    session = match(client, market["intent"]["intent_id"], proposal_ids=[weak]).json()[
        "match_session"
    ]

    assert [p["proposal_id"] for p in session["ranked_proposals"]] == [weak]


def test_expired_withdrawn_and_superseded_proposals_are_never_ranked(client, market):
    Proposal.objects.filter(pk=market["weak"]["proposal_id"]).update(
        valid_until=timezone.now() - timedelta(seconds=1)
    )
    post(client, "/v1/merchant/fast-shop/deactivate", None, token=market["fast"].token)

    session = match(client, market["intent"]["intent_id"]).json()["match_session"]

    assert session["ranked_proposals"] == []
    assert session["best_proposal_id"] is None
    assert sorted(session["summary"]["excluded"], key=lambda e: e["reason"]) == [
        {"proposal_id": market["weak"]["proposal_id"], "reason": "expired"},
        {"proposal_id": market["good"]["proposal_id"], "reason": "withdrawn"},
    ]


def test_ties_break_on_price_then_submission_order(client):
    ProductFactory(id=1)
    shop = register(client, "shop")
    other = register(client, "other")
    intent_id = create_intent(client)["intent_id"]
    dear = propose(client, shop, intent_id, 1, price=20).json()["proposal"]["proposal_id"]
    cheap = propose(client, other, intent_id, 1, price=10).json()["proposal"]["proposal_id"]
    # Same score: no tags, no budget, no shipping or stock stated, both merchants fresh.

    ranked = match(client, intent_id).json()["match_session"]["ranked_proposals"]

    assert ranked[0]["score"] == ranked[1]["score"]
    assert [item["proposal_id"] for item in ranked] == [cheap, dear]


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({}, 400, "missing_fields"),
        ({"intent_id": "int_000000000000000000000000"}, 404, "intent_not_found"),
        ({"limit": 0}, 400, "invalid_body"),
        ({"limit": 11}, 400, "invalid_body"),
        ({"limit": "3"}, 400, "invalid_body"),
        ({"limit": True}, 400, "invalid_body"),
        ({"proposal_ids": "prp_x"}, 400, "invalid_body"),
        ({"proposal_ids": ["prp_000000000000000000000000"]}, 404, "proposal_not_found"),
    ],
)
def test_match_errors(client, market, body, status, error):
    body = {"intent_id": market["intent"]["intent_id"], **body} if body else body

    response = post(client, "/v1/match", body)

    assert (response.status_code, response.json()["error"]) == (status, error)
    assert not MatchSession.objects.exists()


def test_a_proposal_of_another_intent_is_proposal_not_found(client, market):
    other_intent = create_intent(client)["intent_id"]

    response = match(client, other_intent, proposal_ids=[market["good"]["proposal_id"]])

    assert (response.status_code, response.json()["error"]) == (404, "proposal_not_found")


@pytest.mark.parametrize("path", ["/v1/match/{}", "/v1/match/{}/accept"])
@pytest.mark.parametrize("bad", ["mss_000000000000000000000000", "x", "mss_%00"])
def test_unknown_session_is_match_not_found(client, path, bad):
    url = path.format(bad)
    response = client.get(url) if url.endswith(bad) else post(client, url, {"proposal_id": "p"})

    assert (response.status_code, response.json()["error"]) == (404, "match_not_found")


def test_match_get_limit_is_validated(client, session_id):
    for limit in ("0", "11", "x", ""):
        response = client.get(f"/v1/match/{session_id}?limit={limit}")
        assert (response.status_code, response.json()["error"]) == (400, "invalid_parameter")


def test_match_query_count_does_not_grow_with_the_proposals(client, unthrottled):
    for product_id in (7, 8):
        ProductFactory(id=product_id, price_usd=Decimal("10"))
    counts = []
    for proposals in (3, 30):
        intent_id = create_intent(client, intent_tags=["bottle"])["intent_id"]
        for n in range(proposals):
            propose(
                client, register(client, f"m{proposals}-{n}"), intent_id, 7 + n % 2, price=10 + n
            )
        with CaptureQueriesContext(connection) as queries:
            response = match(client, intent_id, limit=10)
        assert response.status_code == 201
        counts.append(len(queries))

    assert counts[0] == counts[1] <= 12


def test_a_quiet_merchant_is_less_reliable_than_one_seen_today(client, market):
    MerchantAgent.objects.filter(merchant_id="fast-shop").update(
        last_seen_at=timezone.now() - timedelta(days=2)
    )
    post(client, "/v1/merchant/heartbeat", {"merchant_id": "slow-shop"}, token=market["slow"].token)

    ranked = match(client, market["intent"]["intent_id"]).json()["match_session"][
        "ranked_proposals"
    ]

    reliability = {item["merchant_agent_id"]: item["components"]["reliability"] for item in ranked}
    assert reliability == {"fast-shop": 0.6, "slow-shop": 1.0}


def test_listed_ids_tie_in_submission_order_whatever_order_they_are_listed(client):
    ProductFactory(id=1)
    first_shop, second_shop = register(client, "first"), register(client, "second")
    intent_id = create_intent(client)["intent_id"]
    first = propose(client, first_shop, intent_id, 1, price=10).json()["proposal"]["proposal_id"]
    second = propose(client, second_shop, intent_id, 1, price=10).json()["proposal"]["proposal_id"]

    for listed in ([first, second], [second, first]):
        ranked = match(client, intent_id, proposal_ids=listed).json()["match_session"]
        assert [p["proposal_id"] for p in ranked["ranked_proposals"]] == [first, second]


def test_a_limit_of_integral_float_reads_as_that_integer(client, market):
    """JSON Schema counts 2.0 as an integer; so does the gateway. 2.5 stays invalid."""
    response = match(client, market["intent"]["intent_id"], limit=2.0)
    fraction = match(client, market["intent"]["intent_id"], limit=2.5)

    assert response.status_code == 201
    assert len(response.json()["match_session"]["ranked_proposals"]) == 2
    assert fraction.status_code == 400


def test_an_offer_title_is_shown_never_scored(client):
    """A merchant who titles a sleeping bag "trail running waterproof" does not outrank a real
    trail shoe: relevance reads the product's own catalog text, and says which fields matched."""
    ProductFactory(
        id=1001,
        title="TrailFox GTX Trail Running Shoe",
        category_l2="Running Shoes",
        tags=["waterproof"],
    )
    ProductFactory(id=1003, title="Down Sleeping Bag", category_l2="Camping", tags=["camping"])
    merchant = register(client, "shop")
    intent = create_intent(client, intent_tags=["trail running", "waterproof"])
    same = {"price": 90, "inventory_status": "in_stock"}
    gamed = propose(
        client, merchant, intent["intent_id"], 1003, offer_title="trail running waterproof", **same
    ).json()["proposal"]
    shoe = propose(client, merchant, intent["intent_id"], 1001, **same).json()["proposal"]

    ranked = match(client, intent["intent_id"]).json()["match_session"]["ranked_proposals"]

    assert gamed["offer_title"] == "trail running waterproof"  # shown as the merchant wrote it
    assert [item["proposal_id"] for item in ranked] == [shoe["proposal_id"], gamed["proposal_id"]]
    assert ranked[0]["components"]["relevance"] == 1.0
    assert ranked[1]["components"]["relevance"] == 0.0
    assert ranked[0]["reasons"][0] == (
        "matches 2 of 2 intent tags: trail running (title, category), waterproof (tags)"
    )
