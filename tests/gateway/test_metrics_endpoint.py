"""`GET /metrics`: off (no METRICS_TOKEN) it does not exist and nothing is measured; on, it
answers only the bearer of the token, never echoing it or anything a request carried."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from gateway import metrics, metrics_settings
from tests.gateway.test_settings import ROOT
from tests.support.metrics import auth, scrape, value

pytestmark = pytest.mark.django_db


def test_no_token_no_metrics_path(client, settings):
    settings.METRICS_TOKEN = ""

    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer anything-at-all")

    assert response.status_code == 404
    assert response.json() == {
        "error": "not found",
        "message": "The requested resource does not exist.",
    }


@pytest.mark.parametrize(
    "authorization",
    [None, "", "Bearer", "Bearer wrong-token-0123456789abcdef0123", "Basic dXNlcjpwYXNz"],
)
def test_a_missing_or_wrong_token_is_401_bearer(client, authorization):
    headers = {} if authorization is None else {"HTTP_AUTHORIZATION": authorization}

    response = client.get("/metrics", **headers)

    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert response.json() == {
        "error": "unauthorized",
        "message": "Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.",
    }
    assert settings.METRICS_TOKEN not in response.content.decode()


def test_the_token_as_another_scheme_or_with_more_is_refused(client):
    for authorization in (
        f"Basic {settings.METRICS_TOKEN}",
        f"Bearer {settings.METRICS_TOKEN}x",
        f"Bearer {settings.METRICS_TOKEN[:-1]}",
    ):
        assert client.get("/metrics", HTTP_AUTHORIZATION=authorization).status_code == 401


def test_the_right_token_reads_the_metrics_in_prometheus_text_format(client):
    response = client.get("/metrics", **auth())

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert response["Cache-Control"] == "no-store"
    text = response.content.decode()
    assert "# TYPE django_http_requests_latency_seconds_by_view_method histogram" in text


def test_a_process_starting_up_leaves_the_scrape_whole(client):
    """A process creates its file of metrics empty and sizes it a moment later: a scrape in
    that moment reads the other processes' metrics, not a 500."""
    directory = settings.METRICS_DIR
    assert directory is not None
    starting = directory / "counter_99999999.db"
    starting.write_bytes(b"")
    try:
        text = scrape(client)
        readable = metrics.written_files(directory)
    finally:
        starting.unlink(missing_ok=True)  # a starting test process may clear it first

    assert "# TYPE django_http_requests_latency_seconds_by_view_method histogram" in text
    assert str(starting) not in readable
    assert readable  # this process's own files


def test_only_get_is_served(client):
    response = client.post("/metrics", **auth())

    assert response.status_code == 405
    assert response.json()["error"] == "method_not_allowed"


def test_requests_are_counted_by_view_and_status_never_by_their_words(client, shelf):
    secret_words = "my-secret-intent-words-xyzzy"
    client.get(f"/v1/cards/{secret_words}")
    client.get("/v1/recommend", {"intent": secret_words})
    client.get(f"/no/such/{secret_words}")

    text = scrape(client)

    assert secret_words not in text
    assert settings.METRICS_TOKEN not in text
    assert value(
        text,
        "django_http_responses_total_by_status_view_method_total",
        view="card-detail",
        status="404",
    )
    assert value(
        text,
        "django_http_requests_latency_seconds_by_view_method_count",
        view="recommend-list",
        method="GET",
    )


def test_the_metrics_path_is_no_operation_of_the_contract(client):
    paths = client.get("/openapi.json").json()["paths"]

    assert not [path for path in paths if "metrics" in path]


def test_a_short_or_spaced_token_is_refused_at_start():
    for raw in ("short", "a" * 31, "with a space " + "a" * 32):
        with pytest.raises(ImproperlyConfigured, match="METRICS_TOKEN"):
            metrics_settings.metrics_token(raw)
    assert metrics_settings.metrics_token(" " + "a" * 32 + " ") == "a" * 32


def _settings_of_a_process(**env: str) -> str:
    """What a process started with `env` makes of the settings: its middleware and whether it
    imported prometheus_client."""
    program = (
        "import sys, gateway.settings as s; "
        "print(s.MIDDLEWARE[0], s.MIDDLEWARE[-1], s.METRICS_DIR, "
        "'prometheus_client' in sys.modules)"
    )
    clean = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    done = subprocess.run(  # noqa: S603 - this interpreter, with a program of the test's own
        [sys.executable, "-c", program],
        cwd=ROOT / "docs",  # not tests/, whose own gateway package would shadow the real one
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.processes
def test_off_means_no_middleware_and_no_prometheus_client(tmp_path):
    off = _settings_of_a_process(METRICS_TOKEN="")
    on = _settings_of_a_process(METRICS_TOKEN="t" * 32, METRICS_DIR=str(tmp_path))

    assert off == (
        "gateway.middleware.RequestIdMiddleware gateway.middleware.LoginLockoutMiddleware "
        "None False"
    )
    assert on == (
        "gateway.metrics_middleware.PrometheusBeforeMiddleware "
        f"gateway.metrics_middleware.PrometheusAfterMiddleware {tmp_path} False"
    )
