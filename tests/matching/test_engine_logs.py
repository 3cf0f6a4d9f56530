"""What an engine failure leaves in the logs: one WARNING naming its cause (where, how long, which
status), the 503 it becomes as a WARNING too, and nothing else: no litellm banner on the
terminal, never the key or the shopper's words. Through litellm's real HTTP path to the scripted
engine on loopback, or to a port nothing listens on."""

import logging

import pytest

from tests.support.network import free_port

pytestmark = pytest.mark.django_db

SHOPPER = "waterproof trail shoes for my sister"
# What litellm prints on a failure unless told not to.
BANNERS = ("Give Feedback", "Get Help", "LiteLLM.Info", "Provider List", "_turn_on_debug")


def recommend(client):
    return client.get("/v1/recommend", {"intent": SHOPPER})


def engine_records(caplog) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "matching.engine.client"]


def assert_quiet_and_discreet(caplog, capfd) -> None:
    """No record above WARNING, no banner, no secret and no shopper's words anywhere."""
    assert [record.levelname for record in caplog.records if record.levelno > logging.WARNING] == []
    out, err = capfd.readouterr()
    for text in (out, err, caplog.text):
        assert not [banner for banner in BANNERS if banner in text]
        assert "sk-test-secret" not in text
        assert SHOPPER not in text


@pytest.mark.parametrize(
    ("mode", "cause"),
    [
        ("500", "HTTP 500 from {api_base}"),
        ("503", "HTTP 503 from {api_base}"),
        ("401", "HTTP 401 (key refused) from {api_base}"),
        ("429", "HTTP 429 (rate limited) from {api_base}"),
        ("garbage", "unreadable answer: the answer is not JSON"),
    ],
)
def test_an_engine_failure_is_one_warning_naming_its_cause(
    client, shelf, engine, caplog, capfd, mode, cause
):
    engine.script(mode)

    assert recommend(client).status_code == 503

    (record,) = engine_records(caplog)
    assert record.levelname == "WARNING"
    assert record.getMessage().endswith(": " + cause.format(api_base=engine.api_base))
    assert_quiet_and_discreet(caplog, capfd)


@pytest.mark.parametrize(
    ("base", "cause"),
    [
        ("http://127.0.0.1:{port}/v1", "connection refused"),
        ("http://127.0.0.1:{port}/v1?api-key=hunter2", "connection refused"),
        # The client refuses such an address before it connects.
        ("http://user:hunter2@127.0.0.1:{port}/v1", "connection failed"),
    ],
)
def test_a_connection_failure_names_the_address_without_its_credentials(
    client, shelf, engine, settings, caplog, capfd, base, cause
):
    port = free_port()  # nothing listens there
    settings.INTENT_ENGINE_API_BASE = base.format(port=port)

    assert recommend(client).status_code == 503

    (record,) = engine_records(caplog)
    assert record.levelname == "WARNING"
    assert record.getMessage() == (
        f"intent engine call 1 failed (outage): {cause} to http://127.0.0.1:{port}/v1"
    )
    assert "hunter2" not in caplog.text
    assert_quiet_and_discreet(caplog, capfd)


def test_a_timeout_names_the_deadline(client, shelf, engine, settings, caplog, capfd):
    settings.INTENT_ENGINE_TIMEOUT_S = 1.0
    engine.script("hang:20")

    assert recommend(client).status_code == 503

    (record,) = engine_records(caplog)
    assert record.levelname == "WARNING"
    assert record.getMessage() == "intent engine call 1 failed (outage): timed out after 1.0 s"
    assert_quiet_and_discreet(caplog, capfd)


def test_each_attempt_is_logged_once_when_a_retry_also_fails(
    client, shelf, engine, settings, caplog, capfd
):
    settings.INTENT_ENGINE_RETRIES = 1
    engine.script("500", "503")

    assert recommend(client).status_code == 503

    assert [record.getMessage() for record in engine_records(caplog)] == [
        f"intent engine call 1 failed (outage): HTTP 500 from {engine.api_base}",
        f"intent engine call 2 failed (outage): HTTP 503 from {engine.api_base}",
    ]
    assert_quiet_and_discreet(caplog, capfd)


def test_the_503_a_failure_becomes_is_a_warning_of_django_request(
    client, shelf, engine, caplog, capfd
):
    engine.script("500")

    assert recommend(client).status_code == 503

    (record,) = [record for record in caplog.records if record.name == "django.request"]
    assert (record.levelname, record.status_code) == ("WARNING", 503)
    assert record.getMessage() == "Service Unavailable: /v1/recommend"
    assert_quiet_and_discreet(caplog, capfd)
