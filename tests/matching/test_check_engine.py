"""`manage.py check_engine`: what a newcomer runs to see whether the configured engine works,
against the scripted engine on loopback through litellm."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.support.engine import ScriptedEngine
from tests.support.network import free_port

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("check_engine", *args, stdout=out)
    return out.getvalue()


def test_a_working_engine_shows_its_answer_and_what_the_gateway_reads(engine, trail_shoe):
    engine.answer(
        "waterproof trail running shoes under $120",
        normalized_query="waterproof trail running shoes",
        keywords=["trail running shoes", "waterproof"],
        categories=["Running Shoes", "Not A Category"],
        intent_tags=["trail", "running"],
        budget={"min": None, "max": 120, "currency": "USD"},
    )

    out = run()

    assert "Engine: openai/scripted" in out
    assert "key: set" in out
    assert "sk-test-secret" not in out
    assert "Asking: 'waterproof trail running shoes under $120'" in out
    assert '"Not A Category"' in out  # the engine's own answer, as it came
    read = out.split("The gateway reads it as:")[1]
    assert '"Not A Category"' not in read  # kept only what the catalog has
    assert '"trail running shoes"' in read
    assert "The engine works" in out
    assert engine.intent_texts == ["waterproof trail running shoes under $120"]


def test_an_answer_that_is_not_a_resolution_says_what_the_model_must_return(engine):
    engine.script("garbage")

    with pytest.raises(
        CommandError, match=r"not a resolution .the answer is not JSON.*docs/engine.md"
    ):
        run("--intent", "red shoes")


def test_a_server_that_is_not_there_is_named_with_a_hint(settings, engine):
    settings.INTENT_ENGINE_API_BASE = f"http://127.0.0.1:{free_port()}/v1"

    with pytest.raises(CommandError, match=r"did not answer: connection refused.*ends in /v1"):
        run()


def test_a_refused_key_is_named(engine):
    engine.script("401")

    with pytest.raises(CommandError, match=r"HTTP 401.*INTENT_ENGINE_API_KEY"):
        run()


def test_no_engine_configured_says_which_settings(settings):
    settings.INTENT_ENGINE_MODEL = ""

    with pytest.raises(CommandError, match="set INTENT_ENGINE_MODEL"):
        run()


def test_the_time_reported_is_the_engines_round_trip_with_loading_reported_apart(settings):
    with ScriptedEngine(delay_s=0.3) as slow:  # a model that takes 0.3 s to answer
        settings.INTENT_ENGINE_MODEL = "openai/scripted"
        settings.INTENT_ENGINE_API_BASE = slow.api_base
        settings.INTENT_ENGINE_API_KEY = "sk-test"
        settings.INTENT_ENGINE_TIMEOUT_S = 5.0
        settings.INTENT_ENGINE_RETRIES = 0

        out = run()

        assert slow.calls_count == 1  # the rehearsal that loads litellm never reaches the engine
    loaded = re.search(r"^litellm loaded in (\d+\.\d\d) s$", out, flags=re.MULTILINE)
    answered = re.search(r"^The engine answered in (\d+\.\d\d) s:$", out, flags=re.MULTILINE)
    assert loaded is not None, out
    assert answered is not None, out
    assert loaded.start() < answered.start()
    assert 0.3 <= float(answered.group(1)) < 0.3 + 1.0
