"""The serving model (gateway/asgi.py), through the Procfile's `web` role on loopback: requests
that wait on the engine hold no thread, so a worker with two threads still answers everything
else; bodies past the limit are refused as they arrive; both middleware chains answer with the
same headers; workers are warm before their first request, commands and Celery never load the
engine client; a SQLite writer waits for the write lock a bounded time."""

import http.client
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import orjson
import pytest
import redis
from django.conf import settings
from django.db import OperationalError, connection, connections, transaction

from catalog.services import cards_issue, products_with_videos
from matching.models import Intent
from tests.support.engine import ScriptedEngine
from tests.support.web import WebServer
from tests.support.worker import ROOT, database_url, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

WEB_THREADS = 2


@pytest.fixture(scope="module")
def scripted_engine():
    with ScriptedEngine() as engine:
        yield engine


@pytest.fixture(scope="module")
def web(tmp_path_factory, scripted_engine, django_db_setup):
    env = {
        "INTENT_ENGINE_MODEL": "openai/scripted",
        "INTENT_ENGINE_API_BASE": scripted_engine.api_base,
        "INTENT_ENGINE_API_KEY": "sk-test",
        "INTENT_ENGINE_TIMEOUT_S": "60",
        "WEB_THREADS": str(WEB_THREADS),
    }
    with WebServer(tmp_path_factory.mktemp("web"), env=env) as server:
        yield server


@pytest.fixture
def scripted(scripted_engine):
    scripted_engine.reset()
    yield scripted_engine
    scripted_engine.reset()


def test_recommends_waiting_on_the_engine_hold_no_thread(web, scripted, shelf):
    rec_id = cards_issue(products=[products_with_videos().get(id=2001)], channel=None)[0]["rec_id"]
    waiting = 6 * WEB_THREADS
    scripted.hold()
    with ThreadPoolExecutor(waiting) as pool:
        recommends = [
            pool.submit(web.get, f"/v1/recommend?intent=trail+running+shoes+{n}", 60)
            for n in range(waiting)
        ]
        # All of them wait on the engine at once: none holds one of the two threads.
        wait_until(lambda: scripted.calls_count == waiting, what="every recommend at the engine")

        card = web.get(f"/v1/cards/{rec_id}")
        health = web.get("/healthz")

        assert (card.status, card.json()["rec_id"], health.status) == (200, rec_id, 200)
        assert not any(recommend.done() for recommend in recommends)  # still waiting
        scripted.release()
        answers = [recommend.result() for recommend in recommends]

    # On SQLite the writers waited for the lock: every recommend recorded its intent, none
    # "database is locked".
    assert [answer.status for answer in answers] == [200] * waiting
    assert Intent.objects.count() == waiting


def test_a_recommend_whose_client_hangs_up_is_dropped_and_records_nothing(web, scripted, shelf):
    scripted.hold()
    leaving = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
    leaving.request(
        "GET", "/v1/recommend?intent=trail+running+shoes+left", headers={"Host": "localhost"}
    )
    wait_until(lambda: scripted.calls_count == 1, what="the recommend at the engine")
    leaving.close()  # the client hangs up while the view waits on the engine
    time.sleep(1)  # the worker hears of it at once, on loopback
    scripted.release()

    stayed = web.get("/v1/recommend?intent=trail+running+shoes+stayed")
    time.sleep(1)  # time enough for a view that was not dropped to record its intent

    assert stayed.status == 200
    assert list(Intent.objects.values_list("raw_query", flat=True)) == [
        "trail running shoes stayed"
    ]


def test_a_body_past_the_limit_is_refused_before_it_is_read_whole(web):
    body = b'{"raw_query": "' + b"x" * 300_000 + b'"}'

    answer = web.request("POST", "/v1/intents", body, {"Content-Type": "application/json"})

    assert answer.status == 413
    assert answer.json() == {
        "error": "payload_too_large",
        "message": "The request body is larger than 256 KB.",
    }
    assert not Intent.objects.exists()


def test_a_chunked_body_is_read_whole_on_both_chains(web, shelf):
    def chunked(path: str, body: bytes) -> tuple[int, dict]:
        conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
        try:
            halves = iter([body[:10], body[10:]])
            headers = {"Host": "localhost", "Content-Type": "application/json"}
            conn.request("POST", path, body=halves, encode_chunked=True, headers=headers)
            response = conn.getresponse()
            return response.status, orjson.loads(response.read())
        finally:
            conn.close()

    intent = chunked(
        "/v1/intents", orjson.dumps({"raw_query": "trail shoes", "intent_tags": ["x"]})
    )
    mandate = chunked("/v1/intent-mandates/verify", orjson.dumps({"mandate": {}}))

    assert intent[0] == 201  # a coroutine view
    assert intent[1]["intent"]["raw_query"] == "trail shoes"
    assert mandate[0] in (200, 400)  # a synchronous view: it read the body it was sent
    assert mandate[1].get("error") != "missing_fields"


def test_a_long_request_line_is_answered_in_the_envelope_up_to_the_documented_limit(web):
    long = web.get("/v1/cards/rec_" + "a" * 40_000)
    past = web.get("/v1/cards/rec_" + "a" * 70_000)  # docs/serving.md: 64 KB, the server's

    assert (long.status, long.json()["error"]) == (404, "not found")
    assert past.status == 414


def test_both_chains_answer_with_the_request_id_and_the_security_headers(web, scripted, shelf):
    page = web.get("/admin/login/")  # a synchronous view: sessions, CSRF, the whole chain
    api = web.get("/v1/recommend?intent=trail+running+shoes")  # a coroutine view

    assert (page.status, api.status) == (200, 200)
    for answer in (page, api):
        assert answer.headers["x-request-id"].startswith("req_")
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert answer.headers["referrer-policy"] == "same-origin"
    assert "csrftoken=" in page.headers["set-cookie"]
    assert "set-cookie" not in api.headers  # no session or CSRF cookie on the API


@pytest.mark.skipif(
    not settings.REDIS_URL, reason="needs REDIS_URL (the embedded default keeps its cache in files)"
)
def test_requests_reuse_the_workers_connections_to_redis(web, scripted, shelf):
    server = redis.Redis.from_url(settings.REDIS_URL)
    web.get("/v1/recommend?intent=trail+running+shoes")  # every worker thread is warm
    opened = server.info("stats")["total_connections_received"]

    for n in range(20):  # each reads and writes the engine's cache, reads the subscriptions'
        assert web.get(f"/v1/recommend?intent=trail+running+shoes+{n}").status == 200

    # Django keeps a cache object per async context: each recommend opened two connections
    # (40 here) before the workers shared one pool.
    assert server.info("stats")["total_connections_received"] - opened < 10


def _python(code: str, **env: str) -> str:
    result = subprocess.run(  # noqa: S603 - our own interpreter and code
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SECRET_KEY": "test", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout.strip()


def test_a_web_worker_starts_its_engine_process_before_its_first_request(shelf):
    started = _python(
        "import asyncio\n"
        "import gateway.asgi as web\n"
        "from matching.engine import process as engine_process\n"
        "before = engine_process._child is not None\n"
        "messages = iter([{'type': 'lifespan.startup'}, {'type': 'lifespan.shutdown'}])\n"
        "async def receive():\n"
        "    return next(messages)\n"
        "async def send(message):\n"
        "    if message['type'] == 'lifespan.startup.complete':\n"
        "        child = engine_process._child\n"
        "        print(before, child.alive, child.process.poll() is None, message['type'])\n"
        "asyncio.run(web.application({'type': 'lifespan'}, receive, send))\n",
        DATABASE_URL=database_url(),
        INTENT_ENGINE_MODEL="openai/scripted",
        INTENT_ENGINE_API_BASE="http://127.0.0.1:9/v1",
    )

    assert started == "False True True lifespan.startup.complete"


def test_commands_and_celery_never_load_the_engine_client():
    loaded = _python(
        "import sys, django\n"
        "django.setup()\n"
        "from django.core.management import call_command\n"
        "call_command('check', verbosity=0)\n"
        "import gateway.celery, matching.tasks, merchants.tasks\n"
        "import matching.views, matching.recommend.pipeline\n"
        "print('litellm' in sys.modules)\n",
        DJANGO_SETTINGS_MODULE="gateway.settings",
        DATABASE_URL=database_url(),
        INTENT_ENGINE_MODEL="openai/scripted",
    )

    assert loaded.splitlines()[-1] == "False"  # after check's own report


@pytest.mark.skipif(
    connection.vendor != "sqlite",
    reason="on SQLite only (no DATABASE_URL): SQLite's one writer at a time",
)
def test_a_writer_that_cannot_take_the_write_lock_in_time_fails_as_locked():
    outcome: list[str] = []

    def write_meanwhile() -> None:
        # This thread's connection, waiting at most 0.3 s for the lock.
        other = connections.create_connection("default")
        options = {**other.settings_dict["OPTIONS"], "timeout": 0.3}
        other.settings_dict = {**other.settings_dict, "OPTIONS": options}
        connections["default"] = other
        try:
            with transaction.atomic():
                Intent.objects.create(intent_id="int_" + "2" * 24, raw_query="waited")
            outcome.append("written")
        except OperationalError as exc:
            outcome.append(str(exc))
        finally:
            other.close()

    with transaction.atomic():
        Intent.objects.create(intent_id="int_" + "0" * 24, raw_query="holding the lock")
        thread = threading.Thread(target=write_meanwhile)
        thread.start()
        thread.join()

    assert outcome == ["database is locked"]
    with transaction.atomic():  # the lock is free again with the commit
        Intent.objects.create(intent_id="int_" + "1" * 24, raw_query="the next writer")
    assert sorted(Intent.objects.values_list("raw_query", flat=True)) == [
        "holding the lock",
        "the next writer",
    ]
