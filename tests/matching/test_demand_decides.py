"""Only the demand side decides a match: a confirmation without the intent's credential is
recorded on its token and binds nothing, never blocks or downgrades the demand side's, and pins
nothing past retention."""

from datetime import timedelta

import pytest
from django.utils import timezone

from matching.models import Intent, MatchSession, MatchToken, Proposal
from reporting import tasks
from tests.matching.match_calls import accept, match
from tests.protocol import create_intent, propose

pytestmark = pytest.mark.django_db


def _session(client, intent_id: str) -> str:
    return match(client, intent_id).json()["match_session"]["match_session_id"]


def _minted(client, session_id: str, proposal_id: str) -> str:
    response = accept(client, session_id, proposal_id=proposal_id)
    assert response.status_code == 200, response.content
    return response.json()["match_token"]["match_token_id"]


def _confirm(client, session_id: str, token_id: str, **credentials: str):
    headers = {"X-Merchant-Token": credentials["merchant"]} if "merchant" in credentials else {}
    body = {"match_token_id": token_id}
    if "demand" in credentials:
        body["demand_token"] = credentials["demand"]
    return client.post(
        f"/v1/match/{session_id}/accept", body, content_type="application/json", headers=headers
    )


def test_the_demand_side_still_accepts_after_a_rivals_acceptance(client, market):
    intent_id = market["intent"]["intent_id"]
    rival_session = _session(client, intent_id)  # the rival's own session of the intent
    rival_token = _minted(client, rival_session, market["weak"]["proposal_id"])
    rival = _confirm(client, rival_session, rival_token, merchant=market["slow"].token)
    session_id = _session(client, intent_id)
    anonymous = _confirm(
        client, session_id, _minted(client, session_id, market["weak"]["proposal_id"])
    )

    assert rival.status_code == anonymous.status_code == 200
    assert rival.json()["match_token"]["confirmed_by"] == "merchant"
    assert anonymous.json()["match_token"]["confirmed_by"] == "anonymous"
    # Neither bound anything: both sessions open, the proposal still submitted.
    assert set(MatchSession.objects.values_list("status", flat=True)) == {"open"}
    assert Proposal.objects.get(pk=market["weak"]["proposal_id"]).status == "submitted"

    chosen = _minted(client, session_id, market["good"]["proposal_id"])
    decided = _confirm(client, session_id, chosen, demand=market["demand_token"])

    assert decided.status_code == 200
    assert decided.json()["match_token"]["confirmed_by"] == "demand"
    assert MatchSession.objects.get(pk=session_id).status == "accepted"
    assert Proposal.objects.get(pk=market["good"]["proposal_id"]).status == "accepted"
    states = dict(
        MatchToken.objects.filter(session_id=session_id).values_list(
            "match_token_id", "acceptance_state"
        )
    )
    assert states[chosen] == "accepted"
    assert set(states.values()) == {"accepted", "superseded"}


def test_a_third_partys_confirmation_neither_blocks_nor_downgrades_the_demand_sides(client, market):
    session_id = _session(client, market["intent"]["intent_id"])
    token_id = _minted(client, session_id, market["good"]["proposal_id"])
    first = _confirm(client, session_id, token_id)
    assert first.json()["match_token"]["confirmed_by"] == "anonymous"

    demand = _confirm(client, session_id, token_id, demand=market["demand_token"])
    later = _confirm(client, session_id, token_id, merchant=market["fast"].token)

    assert demand.status_code == 200
    assert demand.json()["match_token"]["confirmed_by"] == "demand"
    assert later.status_code == 200
    assert later.json()["match_token"]["confirmed_by"] == "demand"
    assert MatchToken.objects.get(pk=token_id).confirmed_by == "demand"
    assert MatchSession.objects.get(pk=session_id).status == "accepted"


def test_without_the_credential_no_proposal_is_made_unavailable(client, market):
    session_id = _session(client, market["intent"]["intent_id"])
    for proposal in (market["good"], market["weak"]):
        _confirm(client, session_id, _minted(client, session_id, proposal["proposal_id"]))

    # Both proposals were confirmed without the credential: the demand side still takes
    # either, here in a new session of its intent.
    other = _session(client, market["intent"]["intent_id"])
    token_id = _minted(client, other, market["weak"]["proposal_id"])
    decided = _confirm(client, other, token_id, demand=market["demand_token"])

    assert decided.status_code == 200
    assert decided.json()["match_token"]["confirmed_by"] == "demand"


def test_an_anonymous_confirmation_pins_nothing_past_retention(client, market):
    bystander = create_intent(client, intent_tags=["trail"])["intent_id"]
    propose(client, market["fast"], bystander, 1001, price=80)
    session_id = _session(client, bystander)
    token_id = _minted(client, session_id, Proposal.objects.get(intent_id=bystander).pk)
    assert _confirm(client, session_id, token_id).json()["match_token"]["confirmed_by"] == (
        "anonymous"
    )
    decided_session = _session(client, market["intent"]["intent_id"])
    decided = _minted(client, decided_session, market["good"]["proposal_id"])
    _confirm(client, decided_session, decided, demand=market["demand_token"])
    long_ago = timezone.now() - timedelta(days=400)
    Intent.objects.update(created_at=long_ago)
    MatchSession.objects.update(created_at=long_ago)
    MatchToken.objects.update(issued_at=long_ago)

    tasks.prune_records.run()

    assert set(Intent.objects.values_list("intent_id", flat=True)) == {
        market["intent"]["intent_id"]
    }
    assert set(MatchToken.objects.values_list("match_token_id", flat=True)) == {decided}


def test_once_the_demand_side_decides_a_rivals_token_of_another_session_reads_superseded(
    client, market
):
    intent_id = market["intent"]["intent_id"]
    rival_session = _session(client, intent_id)
    rival_token = _minted(client, rival_session, market["weak"]["proposal_id"])
    anonymous_token = _minted(client, rival_session, market["good"]["proposal_id"])
    assert (
        _confirm(client, rival_session, rival_token, merchant=market["slow"].token).status_code
        == 200
    )
    assert _confirm(client, rival_session, anonymous_token).status_code == 200
    session_id = _session(client, intent_id)
    chosen = _minted(client, session_id, market["good"]["proposal_id"])

    decided = _confirm(client, session_id, chosen, demand=market["demand_token"])

    assert decided.status_code == 200
    for token_id in (rival_token, anonymous_token):
        read = client.get(f"/v1/match-tokens/{token_id}").json()["match_token"]
        assert read["acceptance_state"] == "superseded"
        assert read["confirmed_by"] is None
        assert read["accepted_at"] is None
    assert MatchSession.objects.get(pk=rival_session).status == "open"  # decided elsewhere


def test_after_the_demand_side_decides_no_confirmation_binding_nothing_is_taken(client, market):
    intent_id = market["intent"]["intent_id"]
    session_id = _session(client, intent_id)
    chosen = _minted(client, session_id, market["good"]["proposal_id"])
    assert _confirm(client, session_id, chosen, demand=market["demand_token"]).status_code == 200
    other = _session(client, intent_id)
    late = _minted(client, other, market["weak"]["proposal_id"])

    rival = _confirm(client, other, late, merchant=market["slow"].token)
    anonymous = _confirm(client, other, late)

    assert rival.status_code == anonymous.status_code == 409
    assert rival.json()["error"] == "match_already_accepted"
    assert MatchToken.objects.get(pk=late).acceptance_state == "issued"
