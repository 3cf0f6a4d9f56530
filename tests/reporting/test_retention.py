"""Pruning what recommends and intents store (reporting/retention.py): old records go, anything
the attribution chain still references stays, whatever its age."""

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog.models import Recommendation
from matching.models import Intent, IntentTag, MatchSession, MatchToken, Proposal
from reporting import tasks
from reporting.models import Click, Conversion
from tests.protocol import create_intent, post, propose

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
