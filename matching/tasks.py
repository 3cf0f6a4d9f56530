"""Celery tasks of intent matching: resolving the intents the engine could not resolve at once."""

import contextlib

from celery import shared_task

from matching import resolving
from matching.engine import client as engine


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90, ignore_result=True)
def resolve_intent(intent_id: str) -> None:
    """Resolve one unresolved intent now, whatever its schedule (staff's "resolve now").
    Idempotent: only a still-unresolved intent is updated."""
    # A failure is recorded on the intent, which keeps its place on the schedule.
    with contextlib.suppress(engine.EngineUnavailable):
        resolving.intent_resolve(intent_id=intent_id, due_only=False)


@shared_task(acks_late=True, soft_time_limit=240, time_limit=300, ignore_result=True)
def resolve_pending_intents() -> None:
    """Beat's sweep: one attempt at each unresolved intent that is due. Idempotent: every
    attempt is claimed first."""
    resolving.intents_sweep()
