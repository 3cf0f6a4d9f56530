"""LOG_FORMAT=json (gateway/logging_settings.py, gateway/log_context.py): one JSON object a line,
with the request id of the request that wrote it, the Celery task that wrote it, and never a
credential a client sent. The web role writing such lines, with their trace ids, is tested in
tests/gateway/test_tracing.py."""

import io
import logging
import logging.config
from collections.abc import Iterator

import orjson
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from gateway.celery import app
from gateway.logging_settings import log_format, logging_config
from tests.protocol import register

pytestmark = [pytest.mark.urls("tests.gateway.urls"), pytest.mark.django_db]

SECRETS = ("supply-key-never-logged-1", "bearer-never-logged-2", "sk-engine-never-logged-3")


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """The gateway's logging as LOG_FORMAT=json configures it (settings.LOGGING's handler, its
    formatter and filters), writing into a buffer rather than to stderr."""
    config = logging_config(level="INFO", quiet_tasks=[], form="json")
    config["handlers"]["console"]["stream"] = written = io.StringIO()
    root = logging.getLogger()
    kept, level = root.handlers[:], root.level
    logging.config.dictConfig(config)
    try:
        yield written
    finally:
        logging.config.dictConfig(settings.LOGGING)
        root.handlers[:] = kept  # pytest's own capture among them
        root.setLevel(level)


def lines(written: io.StringIO) -> list[dict]:
    return [orjson.loads(line) for line in written.getvalue().splitlines()]


def test_a_request_carrying_secrets_logs_its_id_and_none_of_them(client, json_lines, settings):
    settings.SUPPLY_API_KEYS = []  # the report answers 503: Django logs a warning
    shop = register(client, "shop", subscription_tags=["trail"])

    answer = client.get(
        "/v1/report/attribution",
        HTTP_X_SUPPLY_KEY=SECRETS[0],
        HTTP_AUTHORIZATION=f"Bearer {SECRETS[1]}",
        HTTP_X_MERCHANT_TOKEN=shop.token,
    )
    client.raise_request_exception = False
    boom = client.get("/boom", HTTP_AUTHORIZATION=f"Bearer {SECRETS[1]}")

    assert answer.status_code == 503
    assert boom.status_code == 500
    written = lines(json_lines)
    unavailable, error = (line for line in written if line["logger"] == "django.request")
    assert {key: unavailable[key] for key in ("level", "message", "status_code")} == {
        "level": "WARNING",
        "message": "Service Unavailable: /v1/report/attribution",
        "status_code": 503,
    }
    assert unavailable["request_id"] == answer["X-Request-ID"]
    assert error["request_id"] == boom["X-Request-ID"]
    assert error["level"] == "ERROR"
    assert "Traceback" in error["exc_info"]
    assert {"timestamp", "level", "logger", "message"} <= set(unavailable)
    assert "request" not in unavailable  # Django's request object, headers and all
    assert "trace_id" not in unavailable  # tracing is off
    text = json_lines.getvalue()
    for secret in (*SECRETS[:2], shop.token, shop.webhook_secret):
        assert secret not in text


def test_an_engine_failure_logs_its_cause_without_the_key(client, json_lines, engine, settings):
    settings.INTENT_ENGINE_API_KEY = SECRETS[2]
    engine.script("500")

    answer = client.get("/v1/recommend", {"intent": "trail running shoes"})

    assert answer.status_code == 503
    (failure,) = [line for line in lines(json_lines) if line["logger"].startswith("matching")]
    assert failure["message"].startswith("intent engine call 1 failed (outage): HTTP 500 from")
    assert failure["request_id"] == answer["X-Request-ID"]
    assert SECRETS[2] not in json_lines.getvalue()
    assert "running" not in json_lines.getvalue()  # nor the shopper's words


def test_a_task_names_itself_in_its_lines(json_lines):
    @app.task(name="tests.log_something", shared=False)
    def log_something() -> None:
        logging.getLogger("tests.task").warning("inside the task")

    log_something.apply(task_id="task-log-1")
    logging.getLogger("tests.task").warning("after the task")

    inside, after = (line for line in lines(json_lines) if line["logger"] == "tests.task")
    assert (inside["task_id"], inside["task"]) == ("task-log-1", "tests.log_something")
    assert "task_id" not in after


@pytest.mark.parametrize("raw", ["xml", "JSON lines", ""])
def test_a_log_format_other_than_text_or_json_is_refused(raw):
    with pytest.raises(ImproperlyConfigured, match="LOG_FORMAT"):
        log_format(raw)


def test_text_stays_the_default():
    assert settings.LOG_FORMAT == "text"
    assert settings.LOGGING["handlers"]["console"]["formatter"] == "text"
