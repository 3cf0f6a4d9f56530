"""What `django.request` logs of the gateway's answers (gateway/logging_settings.py): a 503, the
gateway's answer by design when something it depends on is unavailable, is a WARNING; a 500 is a
bug and stays an ERROR; client errors are not logged."""

import logging

import pytest

pytestmark = [pytest.mark.urls("tests.gateway.urls"), pytest.mark.django_db]


def request_records(caplog) -> list[tuple[str, int, str]]:
    return [
        (record.levelname, record.status_code, record.getMessage())
        for record in caplog.records
        if record.name == "django.request"
    ]


def test_a_503_by_design_is_a_warning(client, settings, caplog):
    settings.INTENT_ENGINE_MODEL = ""  # no engine configured: recommend answers 503

    response = client.get("/v1/recommend", {"intent": "trail shoes"})

    assert response.status_code == 503
    assert response.json()["error"] == "intent_engine_unavailable"
    assert request_records(caplog) == [("WARNING", 503, "Service Unavailable: /v1/recommend")]


def test_a_503_is_left_out_where_only_errors_are_logged(client, settings, caplog):
    settings.INTENT_ENGINE_MODEL = ""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # LOG_LEVEL=ERROR
    try:
        assert client.get("/v1/recommend", {"intent": "trail shoes"}).status_code == 503
    finally:
        root.setLevel(level)

    assert request_records(caplog) == []


def test_a_500_is_still_an_error(client, caplog):
    client.raise_request_exception = False

    assert client.get("/boom").status_code == 500

    assert request_records(caplog) == [("ERROR", 500, "Internal Server Error: /boom")]


def test_client_errors_are_not_logged(client, caplog):
    assert client.get("/v1/no-such-thing").status_code == 404
    assert client.post("/echo", "{", content_type="application/json").status_code == 400

    assert request_records(caplog) == []
