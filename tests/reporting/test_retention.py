"""Pruning what recommends and intents store (reporting/retention.py): old records go, anything
the attribution chain still references stays, whatever its age; a token only minted pins
nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Recommendation
from matching.models import Intent, IntentTag, MatchSession, MatchToken, Proposal
from reporting import tasks
from reporting.models import Click, Conversion
from tests.protocol import create_intent, post, propose, state_intent

pytestmark = pytest.mark.django_db

LONG_AGO = timedelta(days=400)


def _age_everything() -> None:
    """Every record issued so far, as if a long time had passed."""
    long_ago = timezone.now() - LONG_AGO
    Recommendation.objects.update(created_at=long_ago)
    Intent.objects.update(created_at=long_ago)
    MatchSession.objects.update(created_at=long_ago)


def test_pruning_keeps_every_record_attribution_references(client, market, engine):
    engine.answer("trail running shoes", normalized_query="trail running shoes",
                  keywords=["trail", "running"], categories=["Running Shoes"],
                  intent_tags=["trail"])  # fmt: skip
    unreferenced = client.get("/v1/recommend", {"intent": "trail running shoes"}).json()
    bare_intent = create_intent(client, intent_tags=["trail"])["intent_id"]
    proposed = propose(client, market.shop_b, bare_intent, 1001, price=80).json()["proposal"]
    unreferenced_session = post(client, "/v1/match", {"intent_id": bare_intent}).json()
    token = MatchToken.objects.get(match_token_id=market.token_id)
    chain_session = token.session
    _age_everything()

    tasks.prune_records.run()

    kept_cards = set(Recommendation.objects.values_list("rec_id", flat=True))
    clicked = {market.recs[name] for name in ("r1", "r2", "r4", "r5")}
    converted = {market.recs[name] for name in ("r1", "r4", "r5")}
    assert clicked | converted <= kept_cards  # what clicks and conversions credit
    assert set(chain_session.card_rec_ids) <= kept_cards  # GET /v1/match still serves its cards
    for gone in ("r3", "r6"):  # issued, never clicked nor converted
        assert market.recs[gone] not in kept_cards
    assert not {item["rec_id"] for item in unreferenced["items"]} & kept_cards
    # The accepted token keeps its intent, proposal and session; the rest of the old went.
    assert set(Intent.objects.values_list("intent_id", flat=True)) == {token.intent_id}
    assert Proposal.objects.filter(pk=token.proposal_id).exists()
    assert not Proposal.objects.filter(pk=proposed["proposal_id"]).exists()
    assert set(MatchSession.objects.values_list("pk", flat=True)) == {chain_session.pk}
    assert not MatchSession.objects.filter(
        pk=unreferenced_session["match_session"]["match_session_id"]
    ).exists()
    assert not IntentTag.objects.exclude(intent_id=token.intent_id).exists()
    # The facts themselves are never pruned.
    assert Click.objects.count() == 5
    assert Conversion.objects.count() == 4
    report = client.get(f"/v1/match-tokens/{market.token_id}")
    assert report.status_code == 200


def test_records_within_their_retention_are_kept(client, market, settings):
    settings.INTENT_RETENTION_DAYS, settings.RECOMMENDATION_RETENTION_DAYS = 30, 90
    create_intent(client, intent_tags=["trail"])
    cards, intents = Recommendation.objects.count(), Intent.objects.count()
    Recommendation.objects.update(created_at=timezone.now() - timedelta(days=89))
    Intent.objects.update(created_at=timezone.now() - timedelta(days=29))

    tasks.prune_records.run()

    assert (Recommendation.objects.count(), Intent.objects.count()) == (cards, intents)


def _mint(client, session_id: str, proposal_id: str) -> str:
    minted = post(client, f"/v1/match/{session_id}/accept", {"proposal_id": proposal_id})
    assert minted.status_code == 200, minted.content
    return str(minted.json()["match_token"]["match_token_id"])


def test_a_token_only_minted_pins_nothing_and_a_confirmed_one_keeps_only_its_own(
    client, market, engine
):
    engine.answer("trail running shoes", normalized_query="trail running shoes",
                  keywords=["trail", "running"], categories=["Running Shoes"],
                  intent_tags=["trail"])  # fmt: skip
    # Anyone mints a token on a recommend's session, and confirms nothing.
    recommended = client.get("/v1/recommend", {"intent": "trail running shoes"}).json()
    minted_only = _mint(
        client, recommended["match_session_id"], recommended["proposals"][0]["proposal_id"]
    )
    # A demand agent confirms in one session of its intent; another session holds a mint.
    intent, demand_token = state_intent(client, intent_tags=["trail"])
    proposal_id = propose(client, market.shop_b, intent["intent_id"], 1001, price=80).json()[
        "proposal"
    ]["proposal_id"]
    chosen, abandoned = (
        post(client, "/v1/match", {"intent_id": intent["intent_id"]}).json()["match_session"][
            "match_session_id"
        ]
        for _ in range(2)
    )
    confirmed, stray = _mint(client, chosen, proposal_id), _mint(client, abandoned, proposal_id)
    answer = client.post(f"/v1/match/{chosen}/accept", {"match_token_id": confirmed},
                         content_type="application/json",
                         headers={"X-Demand-Token": demand_token})  # fmt: skip
    assert answer.json()["match_token"]["confirmed_by"] == "demand"
    _age_everything()
    MatchToken.objects.update(issued_at=timezone.now() - LONG_AGO)

    tasks.prune_records.run()

    tokens = set(MatchToken.objects.values_list("pk", flat=True))
    assert tokens == {confirmed, market.token_id}  # confirmed ones, one a conversion credits
    assert not Intent.objects.filter(pk=recommended["intent_id"]).exists()
    assert not Proposal.objects.filter(intent_id=recommended["intent_id"]).exists()
    assert not MatchSession.objects.filter(pk=recommended["match_session_id"]).exists()
    rec_ids = {item["rec_id"] for item in recommended["items"]}
    assert not Recommendation.objects.filter(rec_id__in=rec_ids).exists()
    assert Intent.objects.filter(pk=intent["intent_id"]).exists()
    assert Proposal.objects.filter(pk=proposal_id).exists()
    assert client.get(f"/v1/match/{chosen}").status_code == 200
    assert client.get(f"/v1/match/{abandoned}").status_code == 404
    assert client.get(f"/v1/match-tokens/{stray}").status_code == 404
    assert client.get(f"/v1/match-tokens/{minted_only}").status_code == 404
    assert client.get(f"/v1/match-tokens/{confirmed}").json()["match_token"]["confirmed_by"] == (
        "demand"
    )


def test_a_token_minted_within_the_retention_keeps_its_old_intent_for_now(client, market):
    intent = create_intent(client, intent_tags=["trail"])
    proposal_id = propose(client, market.shop_b, intent["intent_id"], 1001, price=80).json()[
        "proposal"
    ]["proposal_id"]
    session_id = post(client, "/v1/match", {"intent_id": intent["intent_id"]}).json()[
        "match_session"
    ]["match_session_id"]
    _age_everything()
    token_id = _mint(client, session_id, proposal_id)  # minted now, on an old intent

    tasks.prune_records.run()
    MatchToken.objects.filter(pk=token_id).update(issued_at=timezone.now() - LONG_AGO)
    kept = Intent.objects.filter(pk=intent["intent_id"]).exists()
    tasks.prune_records.run()

    assert kept
    assert not Intent.objects.filter(pk=intent["intent_id"]).exists()
    assert not MatchToken.objects.filter(pk=token_id).exists()
