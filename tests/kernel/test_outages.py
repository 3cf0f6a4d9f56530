"""A store that does not answer is an outage, not a bug: 503 `service_unavailable` with
Retry-After through the real handler, counted apart from the 500s (kernel/outages.py)."""

import html
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection

from tests.protocol import create_intent
from tests.support.accept import BROWSER
from tests.support.network import free_port


@contextmanager
def unreachable_database(tmp_path: Path) -> Iterator[None]:
    """The database connection pointed where no database answers: a closed port on
    PostgreSQL, a file in a directory that does not exist on SQLite (unable to open it)."""
    config = connection.settings_dict
    saved = dict(config)
    connection.close()
    if connection.vendor == "sqlite":
        config["NAME"] = str(tmp_path / "gone" / "gateway.sqlite3")
    else:
        config["HOST"], config["PORT"] = "127.0.0.1", str(free_port())
    try:
        yield
    finally:
        connection.close()
        config.clear()
        config.update(saved)


@pytest.mark.django_db(transaction=True)
def test_a_database_that_does_not_answer_is_503_with_retry_after(client, tmp_path, caplog):
    intent_id = create_intent(client)["intent_id"]
    client.raise_request_exception = False

    with unreachable_database(tmp_path), caplog.at_level(logging.WARNING, "kernel.outages"):
        response = client.get(f"/v1/intents/{intent_id}")

    assert response.status_code == 503
    assert response.json() == {
        "error": "service_unavailable",
        "message": "The gateway's database did not answer; retry after `Retry-After` seconds.",
    }
    assert int(response["Retry-After"]) >= 1
    assert [r.getMessage() for r in caplog.records if r.name == "kernel.outages"] == [
        "the database did not answer (OperationalError): 503"
    ]
    # Back once the database answers again.
    assert client.get(f"/v1/intents/{intent_id}").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_readiness_agrees_with_the_503_while_the_database_is_out(client, tmp_path):
    intent_id = create_intent(client)["intent_id"]
    client.raise_request_exception = False

    with unreachable_database(tmp_path):
        ready = client.get("/readyz")
        listed = client.get(f"/v1/intents/{intent_id}")

    assert ready.status_code == 503
    assert listed.status_code == 503
    assert listed.json()["error"] == "service_unavailable"


@pytest.mark.django_db(transaction=True)
def test_staff_meet_an_outage_as_a_page_that_says_when_to_try_again(client, tmp_path):
    client.raise_request_exception = False
    client.cookies["sessionid"] = "a-session-the-database-would-hold"

    with unreachable_database(tmp_path):
        response = client.get("/admin/", HTTP_ACCEPT=BROWSER)

    page = html.unescape(response.content.decode())
    assert response.status_code == 503
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "The gateway's database did not answer" in page
    assert f"Try again in {response['Retry-After']} seconds." in page
