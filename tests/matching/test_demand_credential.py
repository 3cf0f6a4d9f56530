"""The demand side's credential (matching/demand.py): answered once when an intent is created,
stored as a digest, and recorded with every confirmation as who made it."""

import hashlib

import pytest
from django.db import connection

from matching.models import Intent, MatchToken
from tests.matching.match_calls import match
from tests.protocol import propose, register, state_intent

pytestmark = pytest.mark.django_db


@pytest.fixture
def offer(client, market):
    """An intent whose demand agent holds its credential, a merchant's proposal and a session."""
    intent, demand_token = state_intent(client, intent_tags=["trail"])
    proposal = propose(client, market["fast"], intent["intent_id"], 1001, price=99)
    session = match(client, intent["intent_id"]).json()["match_session"]
    return {
        "intent": intent,
        "demand_token": demand_token,
        "proposal_id": proposal.json()["proposal"]["proposal_id"],
        "session_id": session["match_session_id"],
    }


def _accept(client, offer, body, **headers):
    path = f"/v1/match/{offer['session_id']}/accept"
    return client.post(path, body, content_type="application/json", headers=headers)


def _mint(client, offer) -> str:
    minted = _accept(client, offer, {"proposal_id": offer["proposal_id"]})
    assert minted.status_code == 200, minted.content
    return str(minted.json()["match_token"]["match_token_id"])


def test_creating_an_intent_answers_its_demand_token_once_and_keeps_only_its_digest(client):
    response = client.post(
        "/v1/intents", {"raw_query": "trail shoes"}, content_type="application/json"
    )

    demand_token = response.json()["demand_token"]
    intent_id = response.json()["intent"]["intent_id"]
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    assert demand_token.startswith("dmt_")
    assert len(demand_token) == 47  # 256 random bits
    stored = Intent.objects.get(pk=intent_id).demand_token_hash
    assert stored == hashlib.sha256(demand_token.encode()).hexdigest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM matching_intent WHERE intent_id = %s", [intent_id])
        assert demand_token not in repr(cursor.fetchone())
    read = client.get(f"/v1/intents/{intent_id}")
    assert demand_token not in read.content.decode()
    assert stored not in read.content.decode()
    again = client.post(
        "/v1/intents", {"raw_query": "trail shoes"}, content_type="application/json"
    )
    assert again.json()["demand_token"] != demand_token


@pytest.mark.parametrize(
    ("credentials", "confirmed_by", "acceptor"),
    [
        ({"header": True}, "demand", None),
        ({"body": True}, "demand", None),
        ({"header": True, "body": True}, "demand", None),
        ({"merchant": True}, "merchant", "fast-shop"),
        ({"header": True, "merchant": True}, "demand", "fast-shop"),
        ({}, "anonymous", None),
    ],
)
def test_a_confirmation_records_who_made_it(
    client, market, offer, credentials, confirmed_by, acceptor
):
    token_id = _mint(client, offer)
    body = {"match_token_id": token_id}
    headers = {}
    if credentials.get("header"):
        headers["X-Demand-Token"] = offer["demand_token"]
    if credentials.get("body"):
        body["demand_token"] = offer["demand_token"]
    if credentials.get("merchant"):
        headers["X-Merchant-Token"] = market["fast"].token

    response = _accept(client, offer, body, **headers)

    assert response.status_code == 200, response.content
    assert response.json()["match_token"]["acceptance_state"] == "accepted"
    assert response.json()["match_token"]["confirmed_by"] == confirmed_by
    token = MatchToken.objects.select_related("accepted_by").get(pk=token_id)
    assert token.confirmed_by == confirmed_by
    assert (token.accepted_by.merchant_id if token.accepted_by else None) == acceptor
    read = client.get(f"/v1/match-tokens/{token_id}").json()["match_token"]
    assert read["confirmed_by"] == confirmed_by
    assert (
        offer["demand_token"] not in client.get(f"/v1/match/{offer['session_id']}").content.decode()
    )


def test_an_unconfirmed_token_names_no_confirmer(client, offer):
    token_id = _mint(client, offer)

    read = client.get(f"/v1/match-tokens/{token_id}").json()["match_token"]

    assert (read["acceptance_state"], read["confirmed_by"]) == ("issued", None)


def test_another_intents_demand_token_is_403_and_confirms_nothing(client, offer):
    _, other_token = state_intent(client, intent_tags=["trail"])
    token_id = _mint(client, offer)

    for wrong in (other_token, offer["demand_token"] + "x", "dmt_guess"):
        response = _accept(client, offer, {"match_token_id": token_id}, **{"X-Demand-Token": wrong})

        assert (response.status_code, response.json()["error"]) == (403, "invalid_demand_token")
    in_body = _accept(client, offer, {"match_token_id": token_id, "demand_token": other_token})
    minting = _accept(
        client, offer, {"proposal_id": offer["proposal_id"]}, **{"X-Demand-Token": other_token}
    )

    assert (in_body.status_code, minting.status_code) == (403, 403)
    token = MatchToken.objects.get(pk=token_id)
    assert (token.acceptance_state, token.confirmed_by) == ("issued", None)


def test_a_header_and_a_body_that_name_different_credentials_are_403(client, offer):
    token_id = _mint(client, offer)
    right, wrong = offer["demand_token"], offer["demand_token"] + "x"

    for header, in_body in ((wrong, right), (right, wrong)):
        response = _accept(
            client,
            offer,
            {"match_token_id": token_id, "demand_token": in_body},
            **{"X-Demand-Token": header},
        )

        assert (response.status_code, response.json()["error"]) == (403, "invalid_demand_token")
    assert MatchToken.objects.get(pk=token_id).acceptance_state == "issued"


def test_an_intent_recorded_before_credentials_existed_has_no_credential(client, offer):
    Intent.objects.filter(pk=offer["intent"]["intent_id"]).update(demand_token_hash="")
    token_id = _mint(client, offer)
    empty_digest = hashlib.sha256(b"").hexdigest()

    guessed = _accept(
        client, offer, {"match_token_id": token_id}, **{"X-Demand-Token": empty_digest}
    )
    empty = _accept(client, offer, {"match_token_id": token_id}, **{"X-Demand-Token": ""})

    assert (guessed.status_code, guessed.json()["error"]) == (403, "invalid_demand_token")
    assert empty.status_code == 200  # an empty header is no header
    assert empty.json()["match_token"]["confirmed_by"] == "anonymous"


def test_the_credential_confirms_the_tokens_of_every_session_of_its_intent(client, market, offer):
    second = match(client, offer["intent"]["intent_id"]).json()["match_session"]
    other = {**offer, "session_id": second["match_session_id"]}
    token_id = _mint(client, other)

    response = _accept(
        client, other, {"match_token_id": token_id}, **{"X-Demand-Token": offer["demand_token"]}
    )

    assert response.json()["match_token"]["confirmed_by"] == "demand"


def test_a_merchant_cannot_take_a_credential_from_a_match_session(client, market, offer):
    register(client, "intruder")

    created = match(client, offer["intent"]["intent_id"])

    assert created.status_code == 201
    assert "demand_token" not in created.json()
    assert "demand_token" not in created.json()["match_session"]


def test_recommend_answers_the_credential_that_confirms_its_sessions_tokens(client, shelf, engine):
    engine.answer("trail running shoes", normalized_query="trail running shoes",
                  keywords=["trail", "running"], categories=["Running Shoes"],
                  intent_tags=["trail"])  # fmt: skip
    first = client.get("/v1/recommend", {"intent": "trail running shoes"})
    second = client.get("/v1/recommend", {"intent": "trail running shoes"})
    body = first.json()
    offer = {
        "session_id": body["match_session_id"],
        "proposal_id": body["proposals"][0]["proposal_id"],
    }
    token_id = _mint(client, offer)

    foreign = _accept(client, offer, {"match_token_id": token_id},
                      **{"X-Demand-Token": second.json()["demand_token"]})  # fmt: skip
    own = _accept(client, offer, {"match_token_id": token_id},
                  **{"X-Demand-Token": body["demand_token"]})  # fmt: skip

    assert first.headers["Cache-Control"] == "no-store"
    assert body["demand_token"] != second.json()["demand_token"]
    assert (foreign.status_code, foreign.json()["error"]) == (403, "invalid_demand_token")
    assert own.json()["match_token"]["confirmed_by"] == "demand"
    read = client.get(f"/v1/intents/{body['intent_id']}").content.decode()
    assert body["demand_token"] not in read
