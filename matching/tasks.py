"""Celery tasks of intent matching: resolving the intents the engine could not resolve at once."""

from celery import shared_task

from matching import intent_resolution


@shared_task(acks_late=True, soft_time_limit=240, time_limit=300, ignore_result=True)
def resolve_pending_intents() -> None:
    """Beat's sweep: one attempt at each unresolved intent that is due. Idempotent: every
    attempt is claimed first."""
    intent_resolution.intents_sweep()
