"""Intents' resolution by the intent engine: at creation, then again on a schedule. (What the
engine reads and must answer, the prompt and the Resolution, is matching/engine/resolution.py.)

An intent created without tags is resolved at once when the engine answers. When it does not
(not configured, down, or failing on this intent), the intent is stored `unresolved` and beat's
sweep (every minute) tries it again, each intent on its own schedule (RETRY_SCHEDULE), at most
MAX_ATTEMPTS times, the longest-waiting first. One intent that keeps failing is given up, with
its last error, visible and filterable in the admin; it never delays another. An attempt the
engine could not even be asked about (not configured, or its breaker open) is not counted: the
sweep stops, and the intents wait for the engine. Intents older than HORIZON are given up: the
shopper has moved on.
"""

import logging
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from catalog.search import catalog_categories
from kernel.scheduling import RetrySchedule, Scheduled
from matching.engine import client as engine
from matching.engine.resolution import Resolution
from matching.models import Intent, IntentTag, ResolutionSource
from matching.serializers import IntentSerializer
from merchants.delivery import surge_publish

logger = logging.getLogger(__name__)

# The waits after failed attempt 1, 2, ...: then the intent is given up.
RETRY_SCHEDULE = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=15),
    timedelta(hours=1),
    timedelta(hours=4),
)
# An intent's attempts on their schedule, without a lease: a claim counts the attempt and holds
# until the next one's turn, so an attempt whose worker died counts as failed
# (kernel/scheduling.py).
RESOLVING = Scheduled(
    due="next_resolution_at", attempts="resolution_attempts", schedule=RetrySchedule(RETRY_SCHEDULE)
)
MAX_ATTEMPTS = RESOLVING.schedule.attempts
HORIZON = timedelta(days=1)
SWEEP_BATCH = 20
TOO_OLD = "Given up: the intent is more than a day old."


def resolved_fields(
    resolution: Resolution, cached: bool, *, kept: dict[str, Any]
) -> dict[str, Any]:
    """The intent's columns from an engine resolution; what the demand agent stated itself
    (`kept`: region, target_audience, budget_range, constraints) wins over the engine."""
    budget = asdict(resolution.budget)
    return {
        "normalized_query": resolution.normalized_query,
        "intent_tags": resolution.intent_tags,
        "region": kept.get("region") or resolution.region,
        "target_audience": kept.get("target_audience") or resolution.target_audience,
        "budget_range": kept.get("budget_range")
        # A currency with no amount is no budget.
        or (budget if budget["min"] is not None or budget["max"] is not None else None),
        "constraints": kept.get("constraints") or resolution.constraints,
        "resolution_source": ResolutionSource.ENGINE_CACHED if cached else ResolutionSource.ENGINE,
        "resolution_summary": resolution.summary,
        "next_resolution_at": None,
        "resolution_error": "",
    }


@dataclass(frozen=True)
class Attempt:
    """What asking the engine about an intent's words came to: a resolution (and whether it came
    from the cache), or the failure (None and None: the engine is not configured)."""

    resolved: tuple[Resolution, bool] | None = None
    failure: engine.EngineUnavailable | None = None


def attempt(text: str, region: str | None) -> Attempt:
    if not engine.is_configured():
        return Attempt()
    try:
        return Attempt(engine.resolve(text=text, region=region, categories=catalog_categories))
    except engine.EngineUnavailable as exc:
        return Attempt(failure=exc)


async def attempt_async(text: str, region: str | None) -> Attempt:
    """`attempt` for coroutine views: the engine is awaited holding no thread."""
    if not engine.is_configured():
        return Attempt()
    try:
        return Attempt(
            await engine.aresolve(text=text, region=region, categories=catalog_categories)
        )
    except engine.EngineUnavailable as exc:
        return Attempt(failure=exc)


def creation_fields(outcome: Attempt, *, kept: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A new intent's resolution columns after the attempt made as it was created."""
    if outcome.resolved is not None:
        return resolved_fields(*outcome.resolved, kept=kept)
    fields: dict[str, Any] = {
        "resolution_source": ResolutionSource.UNRESOLVED,
        "next_resolution_at": now,
    }
    failure = outcome.failure
    if failure is not None and failure.asked:
        fields.update(RESOLVING.after_failure(1, now), resolution_error=failure.message[:300])
    return fields


def intent_resolve(*, intent_id: str) -> bool:
    """Make the next attempt at resolving an unresolved intent that is due and announce it when
    resolved; whether it was resolved.

    Raises EngineUnavailable when the engine fails; an attempt it could not be asked about is
    given back. Idempotent: the attempt is claimed with a conditional update, so two sweeps
    never make the same one.
    """
    if not engine.is_configured():
        return False
    now = timezone.now()
    pending = Intent.objects.filter(
        intent_id=intent_id, resolution_source=ResolutionSource.UNRESOLVED
    )
    asked = RESOLVING.due_in(pending, now)
    intent = asked.first()
    if intent is None:
        return False
    attempts = intent.resolution_attempts + 1
    claimed = RESOLVING.claim(
        asked.filter(resolution_attempts=intent.resolution_attempts),
        now,
        **RESOLVING.after_failure(attempts, now),
        updated_at=now,
    )
    if not claimed:
        return False
    try:
        resolution, cached = engine.resolve(
            text=intent.raw_query, region=intent.region, categories=catalog_categories
        )
    except engine.EngineUnavailable as exc:
        if exc.asked:
            pending.filter(resolution_attempts=attempts).update(resolution_error=exc.message[:300])
        else:  # not this intent's doing: the attempt is given back
            RESOLVING.postpone(
                pending.filter(resolution_attempts=attempts),
                now + timedelta(seconds=exc.retry_after or 0),
                resolution_attempts=attempts - 1,
            )
        raise
    return _resolved(intent, resolution, cached, now)


def _resolved(intent: Intent, resolution: Resolution, cached: bool, now: datetime) -> bool:

    kept = {
        "region": intent.region,
        "target_audience": intent.target_audience,
        "budget_range": intent.budget_range,
        "constraints": intent.constraints,
    }
    fields = resolved_fields(resolution, cached, kept=kept)
    with transaction.atomic():
        updated = Intent.objects.filter(
            intent_id=intent.intent_id, resolution_source=ResolutionSource.UNRESOLVED
        ).update(**fields, updated_at=now)
        if not updated:
            return False
        intent.refresh_from_db()
        IntentTag.objects.bulk_create(
            (IntentTag(intent=intent, tag=tag) for tag in intent.intent_tags),
            ignore_conflicts=True,
        )
        surge_publish(intent=IntentSerializer(intent).data)
    return True


@dataclass(frozen=True)
class Sweep:
    resolved: int = 0
    failed: int = 0
    too_old: int = 0
    waiting_for_engine: bool = False


def intents_due(*, limit: int) -> list[str]:
    """The unresolved intents due for another attempt, the longest-waiting first."""
    now = timezone.now()
    unresolved = Intent.objects.filter(
        resolution_source=ResolutionSource.UNRESOLVED, created_at__gte=now - HORIZON
    )
    return RESOLVING.sweep(unresolved, now, batch=limit)


def intents_sweep() -> Sweep:
    """Beat's sweep: one attempt at each due intent, until the engine cannot be asked."""
    if not engine.is_configured():
        return Sweep()
    too_old = Intent.objects.filter(
        resolution_source=ResolutionSource.UNRESOLVED,
        next_resolution_at__isnull=False,
        created_at__lt=timezone.now() - HORIZON,
    ).update(next_resolution_at=None, resolution_error=TOO_OLD)
    resolved = failed = 0
    waiting = False
    for intent_id in intents_due(limit=SWEEP_BATCH):
        try:
            resolved += intent_resolve(intent_id=intent_id)
        except engine.EngineUnavailable as exc:
            if not exc.asked:
                waiting = True
                break
            failed += 1
    sweep = Sweep(resolved, failed, too_old, waiting)
    if resolved or failed or too_old:
        logger.info(
            "intent sweep: %d resolved, %d failed again, %d given up as too old%s",
            resolved,
            failed,
            too_old,
            "; the engine cannot be asked now" if waiting else "",
        )
    return sweep
