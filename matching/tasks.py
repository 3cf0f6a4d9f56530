"""Celery tasks of intent matching: resolving intents the engine could not resolve at once."""

import logging

from celery import shared_task

from matching import engine, services

logger = logging.getLogger(__name__)

SWEEP_BATCH = 20


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90, ignore_result=True)
def resolve_intent(intent_id: str) -> None:
    """Resolve one unresolved intent. Idempotent: only a still-unresolved intent is updated."""
    try:
        services.intent_resolve(intent_id=intent_id)
    except engine.EngineUnavailable as exc:
        logger.info("intent %s stays unresolved for now: %s", intent_id, exc.message)


@shared_task(acks_late=True, soft_time_limit=240, time_limit=300, ignore_result=True)
def resolve_pending_intents() -> None:
    """Resolve the last day's unresolved intents, oldest first, until the engine fails.
    Idempotent, as resolve_intent."""
    if not engine.is_configured():
        return
    for intent_id in services.intents_unresolved(limit=SWEEP_BATCH):
        try:
            services.intent_resolve(intent_id=intent_id)
        except engine.EngineUnavailable as exc:
            logger.info("unresolved intents wait for the engine: %s", exc.message)
            return
