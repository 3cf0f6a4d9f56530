"""Concurrency and cost (DESIGN.md section 11, the budgets added once the gateway was measured
with a slow engine and misbehaving merchants).

Everything runs as `make run` runs it: the Procfile's `web` role (2 workers) and, for the
surge, its Celery roles, on a scratch database with the 10k-product demo catalog; the intent
engine is the scripted server on loopback answering after ENGINE_DELAY_S (1.0 s, as a language
model does); merchants are receivers on loopback. Load comes from `wrk` (Debian package).

- 64 concurrent cold recommends (every intent distinct, so every one calls the engine):
  requests/s and p99, and the p99 of card lookups made meanwhile;
- a flood of health probes of merchants that never answer: card lookups and /healthz p99;
- a healthy merchant's Intent.Surge p95 while 16 merchants on the same tag never answer;
- the first recommend after start: its time beyond the engine's;
- a repeated-query mix (200 calls of 40 queries): how many calls went back to the engine;
- rows and bytes stored per recommend.

Runs alone (`python bench/concurrency.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import contextlib
import http.client
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import quote_plus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson

from bench import common, loopback
from bench.common import Figure, at_least, at_most, percentile, timed_ms
from tests.support.engine import ScriptedEngine, fallback_resolution
from tests.support.receiver import Receiver
from tests.support.worker import Worker, purge

ENGINE_DELAY_S = 1.0
CONCURRENT = 64
SECONDS = float(os.environ.get("CONCURRENCY_SECONDS", "15"))
CARD_PAUSE_S = 0.02  # between one sampler's card lookups: a steady trickle beside the load

# A shopper's intent made distinct by a number of its own (each wrk thread counts its own), so
# that every recommend calls the engine; the scripted engine answers it as the intent without
# its number.
RECOMMEND_SCRIPT = """
local intents = {%(intents)s}
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("id", threads)
end
function init(args)
  sent = 0
end
function request()
  sent = sent + 1
  local intent = intents[(sent %% #intents) + 1]
  local path = "/v1/recommend?limit=3&intent=" .. intent .. "+%(run)s" .. id .. "x" .. sent
  return wrk.format("GET", path, {["Host"] = "localhost"})
end
"""
NUMBERED = re.compile(r"\s+\S+x\d+$")


@dataclass
class Sampler:
    """Sequential GETs of `paths` on one kept-open connection, in a thread, until stopped."""

    port: int
    paths: list[str]
    latencies_ms: list[float] = field(default_factory=list)
    failed: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        rng = random.Random(7)  # noqa: S311
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                conn.request("GET", rng.choice(self.paths), headers={"Host": "localhost"})
                response = conn.getresponse()
                response.read()
                self.failed += response.status != 200
            except OSError:
                self.failed += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.latencies_ms.append((time.perf_counter() - started) * 1000)
            self._stop.wait(CARD_PAUSE_S)
        conn.close()

    def p99(self) -> float:
        return percentile(self.latencies_ms, 0.99) if self.latencies_ms else float("nan")


def resolver(intents: dict[str, dict[str, object]]) -> Callable[[str], dict[str, object]]:
    """The scripted engine's answer to a numbered intent: that of the intent without its number."""

    def resolve(text: str) -> dict[str, object]:
        return intents.get(NUMBERED.sub("", text)) or fallback_resolution(text)

    return resolve


def engine_env(engine: ScriptedEngine) -> dict[str, str]:
    return {
        "INTENT_ENGINE_MODEL": "openai/gpt-4o-mini",
        "INTENT_ENGINE_API_BASE": engine.api_base,
        "INTENT_ENGINE_API_KEY": "sk-bench",
    }


def concurrent_recommends(
    vendor: str, port: int, intents: list[str], card_paths: list[str]
) -> list[Figure]:
    script = RECOMMEND_SCRIPT % {
        "intents": ", ".join(f'"{quote_plus(text)}"' for text in intents),
        "run": f"r{random.randrange(16**8):08x}t",  # noqa: S311 - distinct from earlier runs'
    }
    with Sampler(port, card_paths) as cards:
        load = loopback.wrk(port, script, connections=CONCURRENT, seconds=SECONDS, timeout_s=10)
    rate = load.requests / load.seconds
    name = f"{CONCURRENT} concurrent cold recommends (engine {ENGINE_DELAY_S:g} s)"
    throughput = at_least(f"{name}, throughput", vendor, rate, 40, "req/s")
    return [
        Figure(
            throughput.name,
            vendor,
            throughput.value,
            throughput.budget,
            bool(throughput.met) and not load.failed,
            note=f"wrk, {load.requests:,} requests in {load.seconds:.1f} s, {load.failed} failed",
        ),
        at_most(f"{name}, p99", vendor, load.p99_ms / 1000, 2.5, "s"),
        at_most("card lookups during those recommends, p99", vendor, cards.p99(), 50),
    ]


HANGING_PROBED = 12
HANGING_ON_TAG = 16
SURGES = 20
MIX_QUERIES, MIX_CALLS = 40, 200

# Health probes of the hanging merchants, one after another round the list.
PROBE_SCRIPT = """
local ids = {%s}
local n = 0
function request()
  n = n + 1
  return wrk.format("GET", "/v1/merchant/" .. ids[(n %% #ids) + 1] .. "/health",
                    {["Host"] = "localhost"})
end
"""


def _register(port: int, merchant_id: str, endpoint: str, tags: list[str]) -> None:
    """Register a merchant, its endpoint's ownership taken as proven (what its echo of the
    challenge does; the verification itself is not what these figures measure)."""
    from django.db import connection
    from django.utils import timezone

    from merchants.models import MerchantAgent

    body = orjson.dumps(
        {"merchant_id": merchant_id, "agent_endpoint": endpoint, "subscription_tags": tags}
    )
    status = loopback.post(port, "/v1/merchant/register", body)
    assert status == 200, f"registering {merchant_id}: {status}"
    MerchantAgent.objects.filter(merchant_id=merchant_id).update(
        endpoint_verified_at=timezone.now(), next_verification_at=None
    )
    connection.close()  # no connection held while the gateway is measured


def probe_flood(vendor: str, port: int, card_paths: list[str]) -> list[Figure]:
    with Receiver() as hanging:
        hanging.default = "hang:60"
        ids = [f"probed-{random.randrange(16**8):08x}" for _ in range(HANGING_PROBED)]  # noqa: S311
        for merchant_id in ids:
            _register(port, merchant_id, f"{hanging.url}?m={merchant_id}", ["nothing"])
        script = PROBE_SCRIPT % ", ".join(f'"{merchant_id}"' for merchant_id in ids)
        with Sampler(port, card_paths) as cards, Sampler(port, ["/healthz"]) as health:
            load = loopback.wrk(port, script, connections=32, seconds=SECONDS, timeout_s=10)
        hanging.release.set()
    name = f"during a flood of probes of {HANGING_PROBED} hanging merchants"
    return [
        Figure(
            f"health probes {name}", vendor, f"{load.requests / load.seconds:,.0f} req/s",
            note="wrk, 32 connections",
        ),
        at_most(f"card lookups {name}, p99", vendor, cards.p99(), 50),
        at_most(f"/healthz {name}, p99", vendor, health.p99(), 50),
    ]  # fmt: skip


def surge_isolation(vendor: str, port: int, database_url: str) -> list[Figure]:
    from gateway.celery import app

    purge(app.conf.broker_url)
    env = {"WEBHOOK_TIMEOUT_S": "10", "LOG_LEVEL": "WARNING"}
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as logs:
        healthy = stack.enter_context(Receiver())
        tag = f"surge{random.randrange(16**8):08x}"  # noqa: S311
        for n in range(HANGING_ON_TAG):  # each at an endpoint (an address and port) of its own
            hanging = stack.enter_context(Receiver())
            hanging.default = "hang:60"
            _register(port, f"hangs-{tag}-{n}", hanging.url, [tag])
        _register(port, f"healthy-{tag}", healthy.url, [tag])  # registered last
        lanes = [
            Worker(Path(logs), app.conf.broker_url, env=env, role=role).start()
            for role in ("webhooks", "slow-webhooks")
        ]
        try:
            common.wait_for(
                lambda: all(" ready." in worker.log() for worker in lanes), "the Celery lanes"
            )
            latencies = []
            for n in range(SURGES):
                body = orjson.dumps({"raw_query": f"surge {n}", "intent_tags": [tag]})
                assert loopback.post(port, "/v1/intents", body) == 201
                created = time.monotonic()
                healthy.wait_for(n + 1, timeout=60)
                latencies.append((healthy.received[n].at - created) * 1000)
                time.sleep(0.5)
        finally:
            stack.close()  # the hanging merchants let go, before the workers stop
            for worker in lanes:
                worker.stop()
    figure = at_most(
        f"a healthy merchant's surge with {HANGING_ON_TAG} hanging merchants, p95",
        vendor,
        percentile(latencies, 0.95) / 1000,
        1,
        "s",
    )
    return [replace(figure, note=f"{SURGES} intents, slowest {max(latencies):,.0f} ms")]


def first_recommend(vendor: str, database_url: str, intents: list[str]) -> list[Figure]:
    """A freshly started web role's first recommend, and a later cold one, beyond the engine."""
    with ScriptedEngine(
        delay_s=ENGINE_DELAY_S, resolver=resolver(common.shopper_intents(40))
    ) as engine:
        env = common.gateway_env(database_url) | engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            run_id = random.randrange(16**8)  # noqa: S311
            first = timed_ms(lambda: _recommend(port, f"{intents[0]} f{run_id}x1"))
            later = timed_ms(lambda: _recommend(port, f"{intents[1]} f{run_id}x2"))
    engine_ms = ENGINE_DELAY_S * 1000
    return [
        at_most("first recommend after start, beyond the engine", vendor, first - engine_ms, 100),
        Figure("a later cold recommend, beyond the engine", vendor, f"{later - engine_ms:,.1f} ms"),
    ]


def _recommend(port: int, intent: str) -> None:
    status = loopback.get(port, f"/v1/recommend?limit=3&intent={quote_plus(intent)}")
    assert status == 200, status


def repeated_queries(vendor: str, database_url: str, intents: list[str]) -> list[Figure]:
    """A mix of MIX_CALLS recommends over MIX_QUERIES queries: how many went back to the engine
    beyond the first time each was asked."""
    run_id = f"{random.randrange(16**8):08x}"  # noqa: S311 - never cached by an earlier run
    queries = [f"{intent} m{run_id}x{n}" for n, intent in enumerate(intents[:MIX_QUERIES])]
    mix = queries + random.choices(queries, k=MIX_CALLS - len(queries))  # noqa: S311
    random.shuffle(mix)
    with ScriptedEngine(resolver=resolver(common.shopper_intents(40))) as engine:
        env = common.gateway_env(database_url) | engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            for query in mix:
                _recommend(port, query)
        again = engine.calls_count - len(queries)
    return [
        Figure(
            f"re-resolutions in {MIX_CALLS} recommends of {len(queries)} repeated queries",
            vendor,
            str(again),
            "0",
            again == 0,
        )
    ]


STORED_TABLES = (
    "matching_intent",
    "matching_intenttag",
    "catalog_recommendation",
    "matching_proposal",
    "matching_matchsession",
    "merchants_webhookevent",
    "merchants_webhookdelivery",
)


def _stored() -> dict[str, tuple[int, int]]:
    """Rows and on-disk bytes (tables, indexes, TOAST) of what recommends store."""
    from django.db import connection

    stored = {}
    with connection.cursor() as cursor:
        for table in STORED_TABLES:
            cursor.execute(f"SELECT COUNT(*) FROM {table}")  # noqa: S608 - constant names
            rows = cursor.fetchone()[0]
            size = 0
            if connection.vendor == "postgresql":
                cursor.execute("SELECT pg_total_relation_size(%s)", [table])
                size = cursor.fetchone()[0]
            stored[table] = (rows, size)
    return stored


def _vacuum() -> None:
    """VACUUM (PostgreSQL) what recommends store: autovacuum had once truncated a table while
    it was measured (a negative size per recommend)."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM {', '.join(STORED_TABLES)}")


def cost_per_recommend(vendor: str, intents: list[str]) -> list[Figure]:
    """Rows (and on PostgreSQL bytes) stored per recommend, over 200 cold recommends."""
    from django.test import Client

    count = 200
    client = Client(HTTP_HOST="localhost")
    run_id = f"{random.randrange(16**8):08x}"  # noqa: S311
    with ScriptedEngine(resolver=resolver(common.shopper_intents(40))) as engine:
        from django.conf import settings

        settings.INTENT_ENGINE_MODEL = "openai/gpt-4o-mini"
        settings.INTENT_ENGINE_API_BASE = engine.api_base
        settings.INTENT_ENGINE_API_KEY = "sk-bench"
        _vacuum()
        before = _stored()
        for n in range(count):
            text = f"{intents[n % len(intents)]} c{run_id}x{n}"
            assert client.get("/v1/recommend", {"intent": text}).status_code == 200
        after = _stored()
    rows = sum(after[t][0] - before[t][0] for t in STORED_TABLES) / count
    size = sum(after[t][1] - before[t][1] for t in STORED_TABLES) / count
    detail = ", ".join(
        f"{t.split('_', 1)[1]} {(after[t][0] - before[t][0]) / count:g}" for t in STORED_TABLES
    )
    figures = [Figure("rows stored per recommend (limit 3)", vendor, f"{rows:.1f}", note=detail)]
    if vendor == "postgresql":
        figures.append(
            Figure("bytes stored per recommend (limit 3, tables + indexes)", vendor,
                   f"{size / 1024:.1f} KB")
        )  # fmt: skip
    return figures


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    from bench.cards import issue_cards

    common.ensure_catalog()
    card_paths = [f"/v1/cards/{rec_id}" for rec_id in issue_cards()]
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== concurrency and cost on {common.VENDORS[vendor]}")
    intents = common.shopper_intents(40)
    with ScriptedEngine(delay_s=ENGINE_DELAY_S, resolver=resolver(intents)) as engine:
        env = common.gateway_env(database_url) | engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            common.report(concurrent_recommends(vendor, port, list(intents), card_paths))
            common.report(probe_flood(vendor, port, card_paths))
            common.report(surge_isolation(vendor, port, database_url))
    common.report(first_recommend(vendor, database_url, list(intents)))
    common.report(repeated_queries(vendor, database_url, list(intents)))
    common.report(cost_per_recommend(vendor, list(intents)))


if __name__ == "__main__":
    common.per_database(run, "bench")
