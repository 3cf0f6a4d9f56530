"""The one scheduler of rows tried on a schedule (kernel/scheduling.py), on a real table: the
claim, its lease, the retry schedule and the sweep."""

from datetime import timedelta

import pytest
from django.utils import timezone

from kernel.scheduling import RetrySchedule, Scheduled
from matching.models import Intent

pytestmark = pytest.mark.django_db

LEASE = timedelta(minutes=2)
TRYING = Scheduled(
    due="next_resolution_at",
    attempts="resolution_attempts",
    schedule=RetrySchedule((timedelta(minutes=1), timedelta(minutes=5)), jitter=0.1),
    lease=lambda: LEASE,
)


def _intent(intent_id: str, due_in: timedelta | None) -> Intent:
    due = None if due_in is None else timezone.now() + due_in
    return Intent.objects.create(intent_id=intent_id, raw_query="boots", next_resolution_at=due)


def test_of_two_claims_of_one_due_row_one_wins_and_holds_it_for_the_lease():
    _intent("int_a", timedelta(seconds=-1))
    now = timezone.now()
    due = TRYING.due_in(Intent.objects.filter(intent_id="int_a"), now)

    assert TRYING.claim(due, now, resolution_attempts=1) is True
    assert TRYING.claim(due, now, resolution_attempts=1) is False  # no longer due
    claimed = Intent.objects.get(intent_id="int_a")
    assert (claimed.next_resolution_at, claimed.resolution_attempts) == (now + LEASE, 1)
    assert TRYING.sweep(Intent.objects.all(), now, batch=10) == []
    # A worker that died holding it: the row comes due again when the lease lapses.
    assert TRYING.sweep(Intent.objects.all(), now + LEASE, batch=10) == ["int_a"]


def test_a_claim_without_a_lease_must_say_when_the_row_is_due_next():
    counted = Scheduled(
        due="next_resolution_at", attempts="resolution_attempts", schedule=TRYING.schedule
    )

    with pytest.raises(ValueError, match="next_resolution_at"):
        counted.claim(Intent.objects.none(), timezone.now(), resolution_attempts=1)


def test_failed_attempts_wait_on_the_schedule_with_jitter_then_give_up():
    now = timezone.now()

    first = TRYING.after_failure(1, now)
    second = TRYING.after_failure(2, now)
    last = TRYING.after_failure(3, now)

    assert first["resolution_attempts"] == 1
    assert timedelta(seconds=54) <= first["next_resolution_at"] - now <= timedelta(seconds=66)
    assert timedelta(minutes=4.5) <= second["next_resolution_at"] - now <= timedelta(minutes=5.5)
    assert last == {"resolution_attempts": 3, "next_resolution_at": None}
    assert (TRYING.given_up(second), TRYING.given_up(last)) == (False, True)


def test_the_sweep_lists_due_rows_the_longest_waiting_first_within_its_batch():
    _intent("int_new", timedelta(seconds=-1))
    _intent("int_old", timedelta(minutes=-10))
    _intent("int_mid", timedelta(minutes=-5))
    _intent("int_later", timedelta(minutes=5))
    _intent("int_given_up", None)

    swept = TRYING.sweep(Intent.objects.all(), timezone.now(), batch=2)

    assert swept == ["int_old", "int_mid"]
