"""Unresolved intents are tried again on their own schedule (matching/intent_resolution.py): a
failing intent waits its turn and is given up, never holding back the others; what the engine
could not even be asked about is not counted. The last test runs the sweep in a real Celery
worker."""

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.core.cache import caches
from django.utils import timezone

from gateway.celery import app
from matching import intent_resolution
from matching.engine import breaker
from matching.models import Intent, ResolutionSource
from matching.tasks import resolve_pending_intents
from tests.protocol import create_intent
from tests.support.engine import ScriptedEngine
from tests.support.worker import Worker, purge, wait_until

POISON = "words the engine cannot read"


def _due_now(intent_id: str) -> None:
    """As if its wait had passed."""
    Intent.objects.filter(intent_id=intent_id).update(next_resolution_at=timezone.now())


@pytest.mark.django_db
def test_a_failing_intent_waits_its_turn_then_is_given_up(client, shelf, engine, settings):
    settings.INTENT_ENGINE_BAD_INPUT_S = 0  # every attempt reaches the engine
    engine.answer(POISON, answer="not a resolution")
    intent_id = create_intent(client, raw_query=POISON)["intent_id"]
    created = Intent.objects.get(intent_id=intent_id)
    assert (created.resolution_attempts, created.resolution_source) == (1, "unresolved")
    assert created.next_resolution_at is not None
    waited = created.next_resolution_at - created.updated_at
    assert intent_resolution.RETRY_SCHEDULE[0] - timedelta(seconds=1) < waited

    resolve_pending_intents()  # not due yet: the engine is not asked
    assert engine.calls_count == 1
    for attempt in range(2, intent_resolution.MAX_ATTEMPTS + 1):
        _due_now(intent_id)
        resolve_pending_intents()
        assert Intent.objects.get(intent_id=intent_id).resolution_attempts == attempt

    given_up = Intent.objects.get(intent_id=intent_id)
    assert given_up.resolution_given_up
    assert given_up.next_resolution_at is None
    assert given_up.resolution_error == (
        "The intent engine answered something that is not a resolution of the intent."
    )
    assert given_up.resolution_source == "unresolved"
    resolve_pending_intents()
    assert engine.calls_count == intent_resolution.MAX_ATTEMPTS  # never asked again


@pytest.mark.django_db
def test_a_failing_intent_never_holds_back_the_intents_due_after_it(
    client, shelf, engine, settings
):
    settings.INTENT_ENGINE_BAD_INPUT_S = 0
    engine.answer(POISON, answer="not a resolution")  # wrong schema, every time
    poison = create_intent(client, raw_query=POISON)["intent_id"]
    settings.INTENT_ENGINE_MODEL = ""  # these wait for the engine, due at once
    later = [create_intent(client, raw_query=f"trail shoes {n}")["intent_id"] for n in range(3)]
    settings.INTENT_ENGINE_MODEL = "openai/scripted"
    Intent.objects.filter(intent_id=poison).update(  # first in line
        next_resolution_at=timezone.now() - timedelta(hours=1)
    )

    resolve_pending_intents()

    states = dict(Intent.objects.values_list("intent_id", "resolution_source"))
    assert states[poison] == "unresolved"
    assert [states[intent_id] for intent_id in later] == ["engine"] * 3


@pytest.mark.django_db
def test_an_attempt_the_engine_cannot_be_asked_about_is_not_counted(
    client, shelf, engine, settings
):
    settings.INTENT_ENGINE_MODEL = ""
    intent_id = create_intent(client, raw_query="trail shoes")["intent_id"]
    settings.INTENT_ENGINE_MODEL = "openai/scripted"
    Intent.objects.filter(intent_id=intent_id).update(resolution_attempts=2)
    caches["engine"].set(breaker.OPEN_UNTIL_KEY, timezone.now().timestamp() + 30, timeout=None)

    resolve_pending_intents()

    waiting = Intent.objects.get(intent_id=intent_id)
    assert waiting.resolution_attempts == 2
    assert waiting.next_resolution_at is not None
    assert waiting.next_resolution_at > timezone.now() + timedelta(seconds=20)  # after the breaker
    assert engine.calls_count == 0


@pytest.mark.django_db
def test_intents_older_than_a_day_are_given_up_unasked(client, shelf, engine, settings):
    settings.INTENT_ENGINE_MODEL = ""
    intent_id = create_intent(client, raw_query="trail shoes")["intent_id"]
    settings.INTENT_ENGINE_MODEL = "openai/scripted"
    Intent.objects.filter(intent_id=intent_id).update(
        created_at=timezone.now() - intent_resolution.HORIZON - timedelta(minutes=1)
    )

    resolve_pending_intents()

    old = Intent.objects.get(intent_id=intent_id)
    assert (old.resolution_given_up, old.resolution_error) == (True, intent_resolution.TOO_OLD)
    assert engine.calls_count == 0


@pytest.fixture
def poisoned_engine() -> Iterator[ScriptedEngine]:
    with ScriptedEngine() as scripted:
        scripted.answer(POISON, answer="not a resolution")  # wrong schema, every time
        yield scripted


@pytest.mark.django_db(transaction=True)
def test_a_worker_resolves_the_intents_behind_a_poison_intent(
    client, shelf, poisoned_engine, tmp_path, settings
):
    settings.INTENT_ENGINE_MODEL = ""  # the gateway stores them all unresolved, due at once
    poison = create_intent(client, raw_query=POISON)["intent_id"]
    later = [create_intent(client, raw_query=f"trail shoes {n}")["intent_id"] for n in range(3)]
    purge(app.conf.broker_url)
    engine_env = {
        "INTENT_ENGINE_MODEL": "openai/scripted",
        "INTENT_ENGINE_API_BASE": poisoned_engine.api_base,
        "INTENT_ENGINE_API_KEY": "sk-test",
    }
    worker = Worker(tmp_path, app.conf.broker_url, env=engine_env).start()
    try:
        wait_until(
            lambda: (
                Intent.objects.filter(
                    intent_id__in=later, resolution_source=ResolutionSource.ENGINE
                ).count()
                == 3
            ),
            timeout=60,
            what="the sweep to resolve the intents after the poison one",
        )
    finally:
        worker.stop()
        print(worker.log())
    stuck = Intent.objects.get(intent_id=poison)
    assert (stuck.resolution_source, stuck.resolution_attempts) == ("unresolved", 1)
    assert stuck.next_resolution_at is not None  # its next turn is scheduled, not forgotten
