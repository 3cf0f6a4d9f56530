"""The breaker's canary (matching/engine/breaker.py): a timeout or a 5xx counts toward an outage
only when a tiny fixed question fails too. Words the engine chokes on, however many distinct
ones, never open the breaker while the engine answers others; an engine that answers nobody
still opens it. Through litellm's real HTTP path to the scripted engine on loopback."""

import pytest
from django.core.cache import caches

from catalog.search import catalog_categories
from matching.engine import breaker
from matching.engine import client as engine_module

pytestmark = pytest.mark.django_db


def recommend(client, intent):
    return client.get("/v1/recommend", {"intent": intent})


def canaries(engine):
    return [call for call in engine.calls if call.body["messages"] == engine_module.CANARY_MESSAGES]


@pytest.fixture
def quick(settings):
    """Timeouts short enough for a test: a call's, and the canary's, which an answering engine
    meets even on a loaded machine (a canary timed out by the load alone opened the breaker);
    both shorter than the scripted hang."""
    settings.INTENT_ENGINE_TIMEOUT_S = 0.5
    settings.INTENT_ENGINE_CANARY_TIMEOUT_S = 2.0


@pytest.mark.parametrize(("mode", "intents"), [("hang:3", 8), ("503", 6), ("500", 6)])
def test_distinct_intents_that_fail_do_not_open_the_breaker_while_the_engine_answers_others(
    client, shelf, engine, quick, mode, intents
):
    choking = [f"words that choke the engine {n}" for n in range(intents)]
    for text in choking:
        engine.fail(text, mode)

    failed = [recommend(client, text) for text in choking]
    others = [recommend(client, f"trail running shoes {n}") for n in range(5)]

    assert [answer.status_code for answer in failed] == [503] * intents
    assert [answer.status_code for answer in others] == [200] * 5  # the breaker stayed closed
    assert not any(
        answer.json()["message"].startswith("The intent engine is failing") for answer in failed
    )
    # Every third intent in a row would have opened it: the canary was asked, and answered.
    assert len(canaries(engine)) == intents // 3
    assert caches["engine"].get(breaker.OPEN_UNTIL_KEY) is None


def test_an_intent_the_canary_cleared_is_remembered_as_bad(client, shelf, engine, quick):
    choking = [f"words that choke the engine {n}" for n in range(3)]
    for text in choking:
        engine.fail(text, "503")
    for text in choking:
        assert recommend(client, text).status_code == 503
    asked = engine.calls_count

    again = recommend(client, choking[-1])  # the one whose failure the canary cleared

    assert again.status_code == 503
    assert 1 <= int(again["Retry-After"]) <= 60
    assert engine.calls_count == asked  # not asked again: each call is paid
    assert recommend(client, choking[0]).status_code == 503  # the others are asked again
    assert engine.calls_count == asked + 1


def test_an_engine_that_answers_nobody_still_opens_the_breaker(client, shelf, engine, quick):
    engine.script("hang:3", "hang:3", "hang:3", "hang:3")  # three intents, then the canary

    failed = [recommend(client, f"intent {n}") for n in range(3)]
    response = recommend(client, "hiking socks")

    assert [answer.status_code for answer in failed] == [503] * 3
    assert response.status_code == 503
    assert response.json()["message"].startswith("The intent engine is failing")
    assert len(canaries(engine)) == 1
    assert engine.calls_count == 4  # the fourth intent never reached it


def test_the_synchronous_door_asks_the_canary_too(shelf, engine, quick):
    choking = [f"words that choke the engine {n}" for n in range(8)]
    for text in choking:
        engine.fail(text, "hang:3")

    for text in choking:
        with pytest.raises(engine_module.EngineUnavailable):
            engine_module.resolve(text=text, region=None, categories=catalog_categories)
    resolution, cached = engine_module.resolve(
        text="trail running shoes", region=None, categories=catalog_categories
    )

    assert (resolution.normalized_query, cached) == ("trail running shoes", False)
    assert len(canaries(engine)) == 2


def test_answers_are_capped_and_the_canary_is_tiny(client, shelf, engine, settings):
    settings.INTENT_ENGINE_MAX_TOKENS = 300
    engine.script("503", "503", "503")
    for n in range(3):
        recommend(client, f"intent {n}")

    intent_call, canary = engine.calls[0].body, canaries(engine)[0].body

    assert intent_call["max_tokens"] == 300
    assert canary["max_tokens"] == engine_module.CANARY_MAX_TOKENS == 16
    assert not {"tools", "functions", "tool_choice"} & set(canary)
