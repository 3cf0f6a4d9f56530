"""PostgreSQL stopped under the real web role: requests are answered 503 `service_unavailable`
with Retry-After, not 500, and answered again once it is back (kernel/outages.py).

It stops the server every client of it shares, so it runs only where
GATEWAY_FAULTS_RESTART_DB=1 says the server is the test run's own (`.ci/run` sets it in its
PostgreSQL pass); tests/kernel/test_outages.py covers the same answer on any database."""

import subprocess

import pytest
from django.db import connection

from tests.faults.conftest import database_answers, own_cluster
from tests.support.web import WebServer
from tests.support.worker import wait_until

pytestmark = [pytest.mark.fault, pytest.mark.alone, pytest.mark.django_db(transaction=True)]


def test_a_stopped_database_is_503_with_retry_after_then_answers_again(tmp_path):
    cluster = own_cluster("stops")
    with WebServer(tmp_path) as web:
        created = web.post_json("/v1/intents", {"raw_query": "trail running shoes"})
        assert created.status == 201, created.body
        path = f"/v1/intents/{created.json()['intent']['intent_id']}"
        try:
            subprocess.run([*cluster, "stop", "-m", "fast"], check=True, timeout=60)  # noqa: S603
            connection.close()  # this process's connection died with the server
            answers = [web.get(path) for _ in range(5)]
            ready = web.get("/readyz")
        finally:
            subprocess.run([*cluster, "start"], check=True, timeout=60)  # noqa: S603
        wait_until(database_answers, timeout=60, what="PostgreSQL to answer again")
        wait_until(lambda: web.get(path).status == 200, timeout=30, what="the web role again")
        print(web.log())
    assert [answer.status for answer in answers] == [503] * 5
    for answer in answers:
        assert answer.json()["error"] == "service_unavailable"
        assert int(answer.headers["retry-after"]) >= 1
        assert "database" in answer.json()["message"]
    assert ready.status == 503
