"""Celery tasks of reporting: the retention of what recommends and intents store."""

import logging

from celery import shared_task

from reporting import retention

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660, ignore_result=True)
def prune_records() -> None:
    """Delete old intents and cards nothing references any more. Idempotent: it only deletes."""
    pruned = retention.records_prune()
    if pruned.intents or pruned.cards:
        logger.info("pruned %d intents and %d cards", pruned.intents, pruned.cards)
