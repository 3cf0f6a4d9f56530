"""Log lines (gateway/logging_settings.py, gateway/log_context.py). With LOG_FORMAT=json, one
JSON object a line, with the request id of the request that wrote it, the Celery task that wrote
it, and never a credential a client sent; a Celery worker's lines, its Python warnings included,
are JSON too (but the one Celery writes past logging as it stops). In either format the web role
writes no access line (so never a query string), and what an anonymous client's malformed input
makes a library log as an error is a WARNING without a traceback. The web role writing JSON
lines, with their trace ids, is tested in tests/gateway/test_tracing.py."""

import io
import logging
import logging.config
import os
from collections.abc import Iterator

import orjson
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from gateway.celery import app
from gateway.logging_settings import log_format, logging_config
from tests.protocol import register
from tests.support.web import WebServer
from tests.support.worker import Worker, wait_until

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


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("form", ["text", "json"])
def test_the_web_role_writes_no_access_line_and_no_query_string(form, tmp_path, django_db_blocker):
    env = {"LOG_FORMAT": form, "INTENT_ENGINE_MODEL": ""}  # a recommend answers 503: a warning
    with django_db_blocker.unblock(), WebServer(tmp_path, env=env) as web:
        first = web.get("/v1/recommend?intent=quiet+shopper+words&region=US")
        web.get("/v1/recommend?intent=other")
        # Each 503 is a WARNING of django.request, written after the access line would be.
        warned = "Service Unavailable: /v1/recommend"
        wait_until(lambda: web.log().count(warned) == 2, what="the requests' warnings")
        log = web.log()

    assert first.status == 503
    assert "quiet" not in log  # neither the shopper's words
    assert "GET /v1/recommend" not in log  # nor an access line ("GET /v1/... HTTP/1.1" 503)
    assert "/healthz" not in log
    assert "\x1b[" not in log  # no colour
    if form == "json":
        assert all(line.startswith("{") for line in log.splitlines())
        assert all(orjson.loads(line)["level"] for line in log.splitlines())
        # Nor colour escaped into JSON: uvicorn's lines carry the message again, coloured.
        assert "Started server process" in log
        assert "\\u001b" not in log
        assert not any("color_message" in orjson.loads(line) for line in log.splitlines())


def test_refused_anonymous_input_is_a_warning_without_a_traceback(
    client, json_lines, django_user_model
):
    host = client.get("/healthz", HTTP_HOST="attacker.example")
    staff = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw")
    client.force_login(staff)
    lookup = client.get(
        reverse("admin:merchants_merchantagent_changelist"), {"token_hash__startswith": "a" * 5000}
    )

    assert (host.status_code, lookup.status_code) == (400, 400)
    refused = [line for line in lines(json_lines) if line["logger"].startswith("django.security")]
    assert [(line["logger"], line["level"]) for line in refused] == [
        ("django.security.DisallowedHost", "WARNING"),
        ("django.security.DisallowedModelAdminLookup", "WARNING"),
    ]
    assert refused[0]["message"].startswith("Invalid HTTP_HOST header: 'attacker.example'.")
    assert all(len(line["message"]) <= 200 for line in refused)  # it quotes the input, cut
    assert "exc_info" not in json_lines.getvalue()
    assert "ERROR" not in json_lines.getvalue()


@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_role_writes_only_json_lines(tmp_path):
    worker = Worker(tmp_path, app.conf.broker_url, env={"LOG_FORMAT": "json"}, role="worker")
    worker.start()
    try:
        wait_until(lambda: " ready." in worker.log(), what="the worker to be ready")
    finally:
        worker.stop()
    log = worker.log()

    # Celery writes this one line to stdout from its signal handler, past logging, and has no
    # setting for it (docs/alerts.md#json-lines): every other line is one object.
    lines = [line for line in log.splitlines() if line.strip()]
    plain = [line for line in lines if not line.startswith("{")]
    assert plain == ["worker: Warm shutdown (MainProcess)"]
    written = [orjson.loads(line) for line in lines if line not in plain]
    assert "\x1b[" not in log
    assert any(line["message"].endswith(" ready.") for line in written)
    if os.geteuid() == 0:  # the Procfile's workers leave out Celery's warning about root
        assert not any("superuser privileges" in line["message"] for line in written)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(os.geteuid() != 0, reason="Celery warns only a worker run as root")
def test_celery_s_warning_about_root_is_a_json_line_outside_the_procfile(tmp_path):
    # The command as production runs it, without the Procfile's filter: the warning stays.
    worker = Worker(tmp_path, app.conf.broker_url, env={"LOG_FORMAT": "json"})
    worker.start()
    try:
        wait_until(lambda: " ready." in worker.log(), what="the worker to be ready")
    finally:
        worker.stop()
    written = [orjson.loads(line) for line in worker.log().splitlines() if line.startswith("{")]

    (warning,) = [line for line in written if "superuser privileges" in line["message"]]
    assert "SecurityWarning: You're running the worker with superuser" in warning["message"]
    assert (warning["logger"], warning["level"]) == ("py.warnings", "WARNING")
