"""Load test of the running gateway: `make load`.

Starts the Procfile's `web` role (2 workers) on a free loopback port over a scratch
database with a 10k-product demo catalog, the scripted intent engine on loopback, and drives a
bounded mixed workload from client threads:

    recommend (warm: a few intents, resolved once, then cached)   40%
    GET /v1/cards/{rec_id}                                          25%
    POST /v1/intents                                                15%
    POST /v1/proposals (one registered merchant)                    10%
    POST /v1/match                                                  10%

It prints, per endpoint, requests/s, p50/p95/p99 and the share of unexpected answers, and the
count of 5xx (which must be 0). Everything stays on 127.0.0.1 and stops by itself after
LOAD_SECONDS. Throttling is off (THROTTLE_RATES=off): this measures the gateway, not its limits.

    make load                                       # SQLite, file cache
    LOAD_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \\
    REDIS_URL=redis://127.0.0.1:6379/12 make load   # a scratch gateway_load database + Redis
"""

import http.client
import os
import random
import statistics
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback
from tests.support.engine import ScriptedEngine

SECONDS = float(os.environ.get("LOAD_SECONDS", "20"))
CLIENTS = int(os.environ.get("LOAD_CLIENTS", "8"))
WORKERS = 2
INTENTS = [
    "trail running shoes under $120",
    "a quiet blender for smoothies",
    "waterproof hiking boots",
    "gift for a coffee lover",
    "wireless earbuds for the gym",
]
MIX = [("recommend", 40), ("card", 25), ("intent", 15), ("proposal", 10), ("match", 10)]


def scratch_database() -> str:
    url = os.environ.get("LOAD_DATABASE_URL", "")
    if common.vendor_of(url) != "postgresql":
        return f"sqlite:///{common.VAR / 'load.sqlite3'}"
    return common.scratch_postgres(url, "gateway_load")


class Gateway:
    """One keep-alive connection per client thread."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(
        self, method: str, path: str, body: object = None, token: str = ""
    ) -> tuple[int, bytes]:
        headers = {"Host": "localhost", "Content-Type": "application/json"}
        if token:
            headers["X-Merchant-Token"] = token
        payload = orjson.dumps(body) if body is not None else None
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, payload, headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (http.client.HTTPException, OSError):
                # The server may close an idle keep-alive connection: reconnect once.
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def run() -> None:
    with ScriptedEngine() as engine:
        database = scratch_database()
        settings = {
            "INTENT_ENGINE_MODEL": "openai/scripted",
            "INTENT_ENGINE_API_BASE": engine.api_base,
            "INTENT_ENGINE_API_KEY": "sk-load",
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
            "WEBHOOK_ALLOW_HTTP": "true",
            "LOG_LEVEL": "WARNING",
        }
        common.django_setup(database, **settings)
        from django.db import connection

        common.ensure_catalog()
        connection.close()
        vendor = common.VENDORS[common.vendor_of(database)]
        print(f"== load: {vendor}, {common.PRODUCTS:,} products, "
              f"{WORKERS} web workers, {CLIENTS} clients, {SECONDS:g} s")  # fmt: skip
        with loopback.web_server(common.gateway_env(database) | settings, workers=WORKERS) as port:
            drive(port)


def drive(port: int) -> None:
    setup = Gateway(port)
    merchant_id = f"load-shop-{random.randrange(10**9)}"  # noqa: S311
    status, body = setup.call(
        "POST",
        "/v1/merchant/register",
        {"merchant_id": merchant_id, "agent_endpoint": "http://127.0.0.1:9/hook",
         "subscription_tags": ["load-test-only"]},
    )  # fmt: skip
    assert status == 200, body
    token = orjson.loads(body)["registration_token"]
    rec_ids: list[str] = []
    product_ids: list[str] = []
    for text in INTENTS:  # resolve each once: the workload's recommends are warm
        status, body = setup.call("GET", f"/v1/recommend?intent={quote(text)}&limit=3")
        assert status == 200, body
        items = orjson.loads(body)["items"]
        rec_ids += [item["rec_id"] for item in items]
        product_ids += [item["product"]["id"] for item in items]
    status, body = setup.call(
        "POST", "/v1/intents", {"raw_query": "load intent", "intent_tags": ["x"]}
    )
    assert status == 201, body
    shared_intent = orjson.loads(body)["intent"]["intent_id"]

    samples: dict[str, list[float]] = defaultdict(list)
    unexpected: dict[str, int] = defaultdict(int)
    server_errors: dict[str, int] = defaultdict(int)
    first_unexpected: dict[str, str] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + SECONDS
    names = [name for name, weight in MIX for _ in range(weight)]

    def client(seed: int) -> None:
        rng = random.Random(seed)  # noqa: S311
        gateway = Gateway(port)
        intents: list[str] = [shared_intent]
        while time.monotonic() < stop_at:
            name = rng.choice(names)
            body: dict[str, object] | None = None
            call: tuple[str, str, dict[str, object] | None, int]
            if name == "recommend":
                text = quote(rng.choice(INTENTS))
                call = ("GET", f"/v1/recommend?intent={text}&limit=3", None, 200)
            elif name == "card":
                call = ("GET", f"/v1/cards/{rng.choice(rec_ids)}", None, 200)
            elif name == "intent":
                body = {"raw_query": "espresso machine", "intent_tags": ["coffee"]}
                call = ("POST", "/v1/intents", body, 201)
            elif name == "proposal":
                body = {
                    "merchant_agent_id": merchant_id,
                    "intent_id": rng.choice(intents),
                    "product_id": rng.choice(product_ids),
                    "price": round(10 + rng.random() * 90, 2),
                    "inventory_status": "in_stock",
                }
                call = ("POST", "/v1/proposals", body, 201)
            else:
                call = ("POST", "/v1/match", {"intent_id": rng.choice(intents), "limit": 3}, 201)
            method, path, body, expected = call
            started = time.perf_counter()
            status, answer = gateway.call(method, path, body, token if name == "proposal" else "")
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                samples[name].append(elapsed)
                if status != expected:
                    unexpected[name] += 1
                    first_unexpected.setdefault(name, f"{status} {answer[:300]!r}")
                if status >= 500:
                    server_errors[name] += 1
            if name == "intent" and status == 201:
                intents.append(orjson.loads(answer)["intent"]["intent_id"])
                del intents[:-20]

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    print(f"  {'endpoint':<10} {'requests':>8} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
          f"{'p99 ms':>7} {'unexpected':>10}")  # fmt: skip
    total = 0
    for name, _ in MIX:
        times = sorted(samples[name])
        if not times:
            continue
        total += len(times)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(f"  {name:<10} {len(times):>8} {len(times) / wall:>7.1f} "
              f"{statistics.median(times):>7.1f} {p95:>7.1f} {p99:>7.1f} "
              f"{unexpected[name] / len(times):>10.2%}")  # fmt: skip
    print(f"  all        {total:>8} {total / wall:>7.1f}   5xx: {sum(server_errors.values())}")
    for name, answer in first_unexpected.items():
        print(f"  first unexpected answer to {name}: {answer}")


if __name__ == "__main__":
    run()
