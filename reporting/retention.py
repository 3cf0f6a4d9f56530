"""Retention of what recommends and intents store, never breaking the attribution chain.

A recommend stores an intent (with its tags), a card per product (a Recommendation, its rec_id
in the buy link), a catalog proposal per card and a match session. Kept forever, they would grow
without bound; most are never read again. Beat prunes them every hour, all older than
INTENT_RETENTION_DAYS:

- match tokens that the demand side never confirmed and that no conversion credits: anyone may
  mint one on any session, and confirm it without the intent's credential, so neither pins
  anything;
- match sessions left without a token, whatever became of their intent;
- intents left without a token, with their proposals, sessions and tags. A token the demand
  side confirmed, or one a conversion credits, keeps its intent, proposal and session;
- cards older than RECOMMENDATION_RETENTION_DAYS, unless something still points at them: a
  click, a conversion, a match token's `trace_ids.rec_id`, or a match session kept above (its
  `card_rec_ids`, served by GET /v1/match/{id}).

Clicks and conversions, the attribution facts themselves, are kept: the report reads a year.
The chain rec_id -> click -> match token -> conversion is never cut.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from catalog.models import Recommendation
from matching.models import AcceptanceState, ConfirmedBy, Intent, MatchSession, MatchToken
from reporting.models import Click, Conversion

BATCH = 1000


@dataclass(frozen=True)
class Pruned:
    tokens: int
    sessions: int
    intents: int
    cards: int

    def __bool__(self) -> bool:
        return any((self.tokens, self.sessions, self.intents, self.cards))


def _delete_in_batches(rows: QuerySet[Any], keep: set[str] | None = None) -> int:
    """Delete `rows` BATCH at a time (no long lock), skipping primary keys in `keep`."""
    deleted, skipped = 0, set(keep or ())
    while True:
        batch = list(rows.exclude(pk__in=skipped).values_list("pk", flat=True)[:BATCH])
        if not batch:
            return deleted
        rows.model.objects.filter(pk__in=batch).delete()
        deleted += len(batch)


def tokens_prune(*, issued_before: datetime) -> int:
    """Delete the match tokens minted before the moment that the demand side never confirmed
    and that no conversion credits; how many went."""
    credited = Conversion.objects.filter(match_token=OuterRef("pk"))
    return _delete_in_batches(
        MatchToken.objects.filter(issued_at__lt=issued_before)
        .exclude(acceptance_state=AcceptanceState.ACCEPTED, confirmed_by=ConfirmedBy.DEMAND)
        .exclude(Exists(credited))
    )


def sessions_prune(*, created_before: datetime) -> int:
    """Delete the match sessions created before the moment that hold no match token (an
    intent kept by one session's confirmed token keeps only that session); how many went."""
    tokens = MatchToken.objects.filter(session=OuterRef("pk"))
    return _delete_in_batches(
        MatchSession.objects.filter(created_at__lt=created_before).exclude(Exists(tokens))
    )


def intents_prune(*, created_before: datetime) -> int:
    """Delete intents created before the moment that hold no match token, with their
    proposals, sessions and tags; how many intents went."""
    tokens = MatchToken.objects.filter(intent=OuterRef("pk"))
    return _delete_in_batches(
        Intent.objects.filter(created_at__lt=created_before).exclude(Exists(tokens))
    )


def _referenced_cards(issued_before: datetime) -> set[str]:
    """The rec_ids of old cards that a match token or a remaining session points at."""
    referenced: set[str] = set()
    for trace in MatchToken.objects.values_list("trace_ids", flat=True).iterator():
        if isinstance(trace, dict) and trace.get("rec_id"):
            referenced.add(str(trace["rec_id"]))
    # A card is issued with its session: only sessions as old as the cards can list them.
    sessions = MatchSession.objects.filter(created_at__lt=issued_before + timedelta(minutes=5))
    for rec_ids in sessions.values_list("card_rec_ids", flat=True).iterator():
        referenced.update(str(rec_id) for rec_id in rec_ids or ())
    return referenced


def cards_prune(*, issued_before: datetime) -> int:
    """Delete cards issued before the moment that no click, conversion, match token or session
    points at; how many went."""
    old = (
        Recommendation.objects.filter(created_at__lt=issued_before)
        .exclude(Exists(Click.objects.filter(recommendation=OuterRef("pk"))))
        .exclude(Exists(Conversion.objects.filter(recommendation=OuterRef("pk"))))
    )
    return _delete_in_batches(old, keep=_referenced_cards(issued_before))


def records_prune(*, now: datetime | None = None) -> Pruned:
    """Beat's hourly pruning: tokens the demand side did not confirm first (they no longer keep
    their sessions and intents), then sessions and intents (they no longer keep cards), then
    cards."""
    now = now or timezone.now()
    before = now - timedelta(days=settings.INTENT_RETENTION_DAYS)
    tokens = tokens_prune(issued_before=before)
    sessions = sessions_prune(created_before=before)
    intents = intents_prune(created_before=before)
    cards = cards_prune(issued_before=now - timedelta(days=settings.RECOMMENDATION_RETENTION_DAYS))
    return Pruned(tokens, sessions, intents, cards)
