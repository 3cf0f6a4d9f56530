"""Match tokens: minting, confirming, superseding, expiry, and every error of accepting."""

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Recommendation
from matching.models import MatchSession, MatchToken, Proposal
from tests.matching.match_calls import accept, match
from tests.protocol import post, propose

pytestmark = pytest.mark.django_db


def test_confirming_one_token_supersedes_the_others(client, market):
    session_id = match(client, market["intent"]["intent_id"]).json()["match_session"][
        "match_session_id"
    ]
    first = accept(client, session_id, proposal_id=market["good"]["proposal_id"]).json()[
        "match_token"
    ]
    second = accept(client, session_id, proposal_id=market["weak"]["proposal_id"]).json()[
        "match_token"
    ]

    accept(
        client,
        session_id,
        match_token_id=second["match_token_id"],
        demand_token=market["demand_token"],
    )

    states = dict(MatchToken.objects.values_list("match_token_id", "acceptance_state"))
    assert states == {first["match_token_id"]: "superseded", second["match_token_id"]: "accepted"}
    late = accept(client, session_id, match_token_id=first["match_token_id"])
    assert (late.status_code, late.json()["error"]) == (409, "match_already_accepted")


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({}, 400, "missing_fields"),
        ({"proposal_id": None, "match_token_id": None}, 400, "missing_fields"),
        ({"proposal_id": "prp_000000000000000000000000"}, 404, "proposal_not_found"),
        ({"match_token_id": "mtk_000000000000000000000000"}, 404, "match_token_not_found"),
        ({"proposal_id": 5}, 400, "invalid_body"),
    ],
)
def test_accept_errors(client, session_id, body, status, error):
    response = accept(client, session_id, **body)

    assert (response.status_code, response.json()["error"]) == (status, error)
    assert not MatchToken.objects.exists()


def test_proposal_and_token_that_disagree_are_400(client, market, session_id):
    token = accept(client, session_id, proposal_id=market["good"]["proposal_id"]).json()[
        "match_token"
    ]

    response = accept(
        client,
        session_id,
        proposal_id=market["weak"]["proposal_id"],
        match_token_id=token["match_token_id"],
    )

    assert (response.status_code, response.json()["error"]) == (400, "invalid_body")
    assert MatchToken.objects.get().acceptance_state == "issued"


def test_confirming_an_expired_token_is_410(client, market, session_id):
    token = accept(client, session_id, proposal_id=market["good"]["proposal_id"]).json()[
        "match_token"
    ]
    MatchToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = accept(client, session_id, match_token_id=token["match_token_id"])

    assert (response.status_code, response.json()["error"]) == (410, "match_token_expired")
    read = client.get(f"/v1/match-tokens/{token['match_token_id']}").json()["match_token"]
    assert read["acceptance_state"] == "expired"


def test_a_withdrawn_proposal_cannot_be_minted(client, market, session_id):
    post(client, "/v1/merchant/fast-shop/deactivate", None, token=market["fast"].token)

    response = accept(client, session_id, proposal_id=market["good"]["proposal_id"])

    assert (response.status_code, response.json()["error"]) == (409, "proposal_unavailable")


def test_an_expired_session_accepts_nothing(client, market, session_id):
    MatchSession.objects.update(status="expired")

    response = accept(client, session_id, proposal_id=market["good"]["proposal_id"])

    assert (response.status_code, response.json()["error"]) == (409, "match_expired")


@pytest.mark.parametrize("bad", ["mtk_000000000000000000000000", "x", "mtk_%00"])
def test_unknown_token_is_match_token_not_found(client, bad):
    response = client.get(f"/v1/match-tokens/{bad}")

    assert (response.status_code, response.json()["error"]) == (404, "match_token_not_found")


def test_a_minted_token_of_a_withdrawn_proposal_cannot_be_confirmed(client, market, session_id):
    token = accept(client, session_id, proposal_id=market["good"]["proposal_id"]).json()[
        "match_token"
    ]
    post(client, "/v1/merchant/fast-shop/deactivate", None, token=market["fast"].token)

    response = accept(client, session_id, match_token_id=token["match_token_id"])

    assert (response.status_code, response.json()["error"]) == (409, "proposal_unavailable")
    assert Proposal.objects.get(pk=market["good"]["proposal_id"]).status == "withdrawn"
    assert MatchSession.objects.get().status == "open"


def test_a_minted_token_of_a_superseded_proposal_cannot_be_confirmed(client, market, session_id):
    token = accept(client, session_id, proposal_id=market["good"]["proposal_id"]).json()[
        "match_token"
    ]
    propose(client, market["fast"], market["intent"]["intent_id"], 1001, price=95)

    response = accept(client, session_id, match_token_id=token["match_token_id"])

    assert (response.status_code, response.json()["error"]) == (409, "proposal_unavailable")
    assert Proposal.objects.get(pk=market["good"]["proposal_id"]).status == "superseded"


def test_after_acceptance_a_minted_rival_is_409_and_the_winner_still_answers(
    client, market, session_id
):
    good = accept(client, session_id, proposal_id=market["good"]["proposal_id"]).json()[
        "match_token"
    ]
    accept(client, session_id, proposal_id=market["weak"]["proposal_id"])
    accept(
        client,
        session_id,
        match_token_id=good["match_token_id"],
        demand_token=market["demand_token"],
    )

    rival = accept(client, session_id, proposal_id=market["weak"]["proposal_id"])
    winner = accept(client, session_id, proposal_id=market["good"]["proposal_id"])

    assert (rival.status_code, rival.json()["error"]) == (409, "match_already_accepted")
    assert winner.status_code == 200
    assert winner.json()["match_token"]["acceptance_state"] == "accepted"


def test_a_merchant_cannot_plant_an_attribution_id_in_a_token(client, market):
    planted = propose(
        client,
        market["fast"],
        market["intent"]["intent_id"],
        1001,
        price=90,
        metadata={"rec_id": "rec_aaaaaaaaaaaaaaaaaaaaaaaa"},
    ).json()["proposal"]
    session_id = match(client, market["intent"]["intent_id"]).json()["match_session"][
        "match_session_id"
    ]

    token = accept(client, session_id, proposal_id=planted["proposal_id"]).json()["match_token"]

    assert token["trace_ids"]["rec_id"] is None


def test_match_cards_are_issued_once_and_read_back_unchanged(client, market, session_id):
    issued = Recommendation.objects.count()

    first = client.get(f"/v1/match/{session_id}").json()["items"]
    again = client.get(f"/v1/match/{session_id}").json()["items"]

    assert first == again
    assert Recommendation.objects.count() == issued
    assert {card["rec_id"] for card in first} <= set(
        Recommendation.objects.filter(intent_id=market["intent"]["intent_id"]).values_list(
            "rec_id", flat=True
        )
    )


@pytest.mark.parametrize("body", [{}, {"proposal_id": None}, {"match_token_id": None}])
def test_the_contract_requires_a_proposal_or_a_token_to_accept(client, market, body):
    """Accepting needs proposal_id or match_token_id, by the gateway and by its contract."""
    from jsonschema import Draft202012Validator

    schema = client.get("/openapi.json").json()
    operation = schema["paths"]["/v1/match/{matchSessionId}/accept"]["post"]
    declared = operation["requestBody"]["content"]["application/json"]["schema"]
    session = match(client, market["intent"]["intent_id"]).json()["match_session"]

    assert operation["requestBody"]["required"] is True
    assert not Draft202012Validator({**declared, "components": schema["components"]}).is_valid(body)
    response = accept(client, session["match_session_id"], **body)
    assert response.status_code == 400
