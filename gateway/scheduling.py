"""Rows tried on a schedule: claimed, leased, retried on a schedule, swept.

A row that names work to try (a webhook delivery, an endpoint verification, an intent to resolve)
carries when its next attempt is due and how many were made. A worker claims a due row with one
conditional UPDATE that moves its due time a lease ahead: of two workers only one wins, and a
worker that dies mid-attempt leaves a row that comes due again when the lease lapses. A failed
attempt schedules the next one after the schedule's wait, or none after the last. A sweep, run by
beat, lists the due rows, the longest waiting first, whose tasks were lost or never sent
(healthchecks' `sendalerts` claims in the same way).
"""

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from django.db import models
from django.db.models import QuerySet

Row = TypeVar("Row", bound=models.Model)


@dataclass(frozen=True)
class RetrySchedule:
    """The waits after failed attempt 1, 2, ...; after the last wait's attempt, none more.
    `jitter` spreads each wait by that fraction either way, so retries do not come together."""

    waits: tuple[timedelta, ...]
    jitter: float = 0.0

    @property
    def attempts(self) -> int:
        return len(self.waits) + 1

    def next_at(self, failed: int, now: datetime) -> datetime | None:
        """When the attempt after failed attempt number `failed` (1-based) is due; None when
        that was the last."""
        if failed >= self.attempts:
            return None
        spread = random.uniform(1 - self.jitter, 1 + self.jitter)  # noqa: S311 - jitter
        return now + self.waits[failed - 1] * spread


@dataclass(frozen=True)
class Scheduled:
    """One model's rows tried on a schedule: `due` names the column of when the next attempt is
    due (NULL: none), `attempts` the column counting them, `lease` how long a claim holds (a
    function, for a lease that follows settings). Without a lease, a claim counts the attempt
    and holds until the next one's turn, as if it had failed (`after_failure`)."""

    due: str
    attempts: str
    schedule: RetrySchedule
    lease: Callable[[], timedelta] | None = None

    def due_in(self, rows: "QuerySet[Row]", now: datetime) -> "QuerySet[Row]":
        """The rows whose attempt is due (a lapsed claim's included)."""
        return rows.filter(**{f"{self.due}__lte": now})

    def claim(self, rows: "QuerySet[Row]", now: datetime, **changes: Any) -> bool:
        """Claim `rows` (a filter on one row in the state it was read in: due, or asked for now),
        making `changes` with the claim; whether this caller won it. The condition is in the
        UPDATE, so of two claims one wins."""
        if self.lease is not None:
            changes = {self.due: now + self.lease(), **changes}
        elif self.due not in changes:
            raise ValueError(f"a claim without a lease says when {self.due} is next")
        return bool(rows.update(**changes))

    def postpone(self, rows: "QuerySet[Row]", until: datetime, **changes: Any) -> int:
        """Make `rows` due at `until`, without an attempt (the destination had its fill)."""
        return rows.update(**{self.due: until}, **changes)

    def after_failure(self, failed: int, now: datetime) -> dict[str, Any]:
        """The columns after failed attempt number `failed`: the next attempt on the schedule,
        or none (NULL) after the last."""
        return {self.attempts: failed, self.due: self.schedule.next_at(failed, now)}

    def given_up(self, changes: dict[str, Any]) -> bool:
        """Whether the columns of `after_failure` give up (no attempt is scheduled)."""
        return changes[self.due] is None

    def sweep(self, rows: "QuerySet[Row]", now: datetime, *, batch: int) -> list[Any]:
        """The primary keys of the due ones of `rows`, the longest waiting first, at most
        `batch`: what beat's sweep sends or tries."""
        due = self.due_in(rows, now).order_by(self.due, "pk")
        return list(due.values_list("pk", flat=True)[:batch])
