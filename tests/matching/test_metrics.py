"""The intent engine's and the recommends' metrics move when their events happen: through the
whole stack (Django's test client, litellm to the scripted engine on loopback), read back from
`GET /metrics`."""

import pytest

from tests.matching.test_recommend import SHOES, recommend
from tests.support.metrics import Scrapes

pytestmark = pytest.mark.django_db

GEN_AI = {"gen_ai_operation_name": "chat", "gen_ai_request_model": "openai/scripted"}


def test_a_recommend_the_engine_resolves_then_one_from_the_cache(client, shelf, engine):
    engine.answer("trail running shoes", **SHOES)
    scrapes = Scrapes(client)

    first = recommend(client, "trail running shoes").json()
    second = recommend(client, "trail running shoes").json()

    tier, note = first["match_tier"], first["note"] or "none"
    assert scrapes.moved("gateway_recommends_total", match_tier=tier, note=note) == 2
    assert scrapes.moved("gateway_engine_lookups_total", result="miss") == 1
    assert scrapes.moved("gateway_engine_lookups_total", result="hit") == 1
    assert scrapes.moved("gateway_engine_calls_total", outcome="answered") == 1
    duration = "gen_ai_client_operation_duration_seconds_count"
    assert scrapes.moved(duration, **GEN_AI, gen_ai_provider_name="openai", error_type="") == 1
    # The scripted engine reports 10 tokens read and 20 written.
    tokens = "gen_ai_client_token_usage_sum"
    assert scrapes.moved(tokens, **GEN_AI, gen_ai_token_type="input") == 10
    assert scrapes.moved(tokens, **GEN_AI, gen_ai_token_type="output") == 20
    overhead = "gateway_recommend_overhead_seconds_count"
    assert scrapes.moved(overhead, resolution="engine") == 1
    assert scrapes.moved(overhead, resolution="cache") == 1
    assert scrapes.moved("gateway_retrieval_duration_seconds_count", match_tier=tier) == 1
    assert second["intent_id"] != first["intent_id"]


@pytest.mark.parametrize(
    ("mode", "outcome"),
    [("500", "server_error"), ("429", "refused"), ("400", "refused"), ("garbage", "bad_answer")],
)
def test_a_failed_engine_call_is_counted_by_outcome(client, shelf, engine, mode, outcome):
    engine.script(mode)
    scrapes = Scrapes(client)

    assert recommend(client, "hiking socks").status_code == 503

    assert scrapes.moved("gateway_engine_calls_total", outcome=outcome) == 1
    assert scrapes.moved("gateway_engine_calls_total", outcome="answered") == 0
    assert scrapes.moved("gateway_recommends_total") == 0
    error_type = "" if outcome == "bad_answer" else outcome  # a bad answer is an answer
    duration = "gen_ai_client_operation_duration_seconds_count"
    assert scrapes.moved(duration, **GEN_AI, error_type=error_type) == 1


def test_an_engine_that_answers_nobody_opens_the_breaker_and_its_gauge(
    client, shelf, engine, settings
):
    settings.INTENT_ENGINE_CANARY_TIMEOUT_S = 2.0
    engine.script("503", "503", "503", "503")  # three intents, then the canary
    scrapes = Scrapes(client)
    assert "gateway_engine_breaker_open 0.0" in scrapes.before

    for n in range(3):
        assert recommend(client, f"intent {n}").status_code == 503
    refused = recommend(client, "hiking socks")

    assert refused.json()["message"].startswith("The intent engine is failing")
    assert scrapes.moved("gateway_engine_breaker_openings_total") == 1
    assert scrapes.moved("gateway_engine_breaker_open") == 1
    assert scrapes.moved("gateway_engine_lookups_total", result="breaker_open") == 1
    assert scrapes.moved("gateway_engine_calls_total", outcome="server_error") == 3
