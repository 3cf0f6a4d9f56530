"""Deleting many rows without holding a long lock: the prunes of every app's kept records."""

from typing import Any

from django.db.models import QuerySet

PRUNE_BATCH = 2000


def delete_in_batches(rows: QuerySet[Any]) -> int:
    """Delete `rows` PRUNE_BATCH at a time, so no long lock is held; returns how many went."""
    deleted = 0
    while batch := list(rows.values_list("pk", flat=True)[:PRUNE_BATCH]):
        rows.model.objects.filter(pk__in=batch).delete()
        deleted += len(batch)
    return deleted
