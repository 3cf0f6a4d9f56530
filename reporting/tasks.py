"""Celery tasks of reporting: the retention of what recommends and intents store."""

import logging

from celery import shared_task

from reporting import retention

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, soft_time_limit=600, time_limit=660, ignore_result=True)
def prune_records() -> None:
    """Delete old tokens never confirmed, and old sessions, intents and cards nothing references
    any more. Idempotent: it only deletes."""
    pruned = retention.records_prune()
    if pruned:
        logger.info(
            "pruned %d unconfirmed match tokens, %d match sessions, %d intents and %d cards",
            pruned.tokens,
            pruned.sessions,
            pruned.intents,
            pruned.cards,
        )
