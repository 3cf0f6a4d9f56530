"""Benchmark of GET /v1/recommend and its retrieval tiers (DESIGN.md section 11): `make bench`.

Loads a 10k-product demo catalog into a scratch database, starts the scripted intent engine on
loopback (the one the tests use) and measures through the whole Django stack:

- warm recommend (resolution cached): median and p95;
- cold recommend: the gateway's own time beyond the engine call (litellm included);
- retrieval per tier at 10k products (catalog.search.tier_ids), p95;
- the 503 of an unconfigured engine.

It runs on SQLite (a scratch file under var/) and, when DATABASE_URL or BENCH_POSTGRES_URL
points to PostgreSQL, on a scratch database `gateway_bench` of that server; never on the
gateway's own data. Prints figures; asserts nothing.
"""

import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PRODUCTS = 10_000
RUNS = 200


def percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(samples: list[float]) -> str:
    return f"median {statistics.median(samples):6.2f} ms, p95 {percentile(samples, 0.95):6.2f} ms"


def scratch_postgres() -> str | None:
    url = os.environ.get("BENCH_POSTGRES_URL") or os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return None
    import psycopg

    parts = urlsplit(url)
    admin = urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'gateway_bench'").fetchone():
            conn.execute('CREATE DATABASE "gateway_bench"')
    return urlunsplit((parts.scheme, parts.netloc, "/gateway_bench", "", ""))


def main() -> None:
    databases = [f"sqlite:///{ROOT / 'var' / 'bench-recommend.sqlite3'}"]
    if postgres := scratch_postgres():
        databases.append(postgres)
    for url in databases:
        # Django is set up once per process: one process per database.
        subprocess.run([sys.executable, __file__, "--run", url], check=True)  # noqa: S603


def run(database_url: str) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support.engine import ScriptedEngine

    engine_server = ScriptedEngine().__enter__()
    os.environ.update(
        DATABASE_URL=database_url,
        THROTTLE_RATES="off",
        INTENT_ENGINE_MODEL="openai/scripted",
        INTENT_ENGINE_API_BASE=engine_server.api_base,
        INTENT_ENGINE_API_KEY="sk-bench",
        LOG_LEVEL="ERROR",
    )
    if database_url.startswith("sqlite"):
        os.environ.pop("REDIS_URL", None)  # the embedded default: file cache
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gateway.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from catalog import search
    from catalog.models import Product
    from matching import engine

    call_command("migrate", verbosity=0)
    if Product.objects.count() != PRODUCTS:
        call_command("flush", interactive=False, verbosity=0)
        call_command(
            "seed_demo", products=PRODUCTS, output=str(ROOT / "var" / "bench_catalog.jsonl")
        )
    cache.clear()
    vendor = connection.vendor
    print(f"\n== recommend on {vendor}, {Product.objects.count():,} products")

    # Intents the catalog can answer, one per tier, from its own titles and categories.
    sample = list(Product.objects.order_by("id").values("title", "category_l2")[:400:20])
    intents = []
    for n, row in enumerate(sample):
        words = [w.lower() for w in row["title"].split() if len(w) > 3][:2] or ["gift"]
        text = f"bench intent {n}: {' '.join(words)} please"
        engine_server.answer(
            text,
            normalized_query=" ".join(words),
            keywords=words,
            categories=[row["category_l2"]],
            intent_tags=words,
            budget={"min": None, "max": 150, "currency": "USD"},
        )
        intents.append(text)

    client = Client(HTTP_HOST="localhost")

    def get(intent: str) -> float:
        started = time.perf_counter()
        response = client.get("/v1/recommend", {"intent": intent, "limit": "3"})
        elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.content
        return elapsed

    # Cold: every intent once. The engine's own share is timed around the litellm call.
    engine_ms: list[float] = []
    call = engine._call

    def timed_call(messages: list[dict[str, str]]) -> str:
        started = time.perf_counter()
        try:
            return call(messages)
        finally:
            engine_ms.append((time.perf_counter() - started) * 1000)

    engine._call = timed_call
    get("bench warm-up: litellm import")
    engine_ms.clear()
    cold = [get(intent) for intent in intents]
    overhead = [total - spent for total, spent in zip(cold, engine_ms, strict=True)]
    warm = [get(intents[n % len(intents)]) for n in range(RUNS)]
    print(f"  warm recommend (cached):     {figures(warm)}   (budget: median <= 10, p95 <= 20)")
    print(f"  cold recommend, total:       {figures(cold)}")
    print(f"    engine call (litellm+HTTP): {figures(engine_ms)}")
    print(f"    gateway overhead:          {figures(overhead)}   (budget: median <= 15)")

    # Retrieval per tier at this size.
    plans = []
    for row in sample:
        words = [w.lower() for w in row["title"].split() if len(w) > 3][:2] or ["gift"]
        typo = [word[:-2] + word[-1] + word[-2] if len(word) > 4 else word for word in words]
        plans.append(
            {
                "raw_substring": search.SearchQuery(" ".join(words), words, []),
                "strict": search.SearchQuery("", words, [str(row["category_l2"])], budget_max=150),
                "narrow": search.SearchQuery("", words, [], budget_max=150),
                "fuzzy": search.SearchQuery("", typo, [], budget_max=150),
                "broadened": search.SearchQuery("", [], [str(row["category_l2"])], budget_max=150),
            }
        )
    for tier in search.TIERS:
        samples = []
        for n in range(RUNS):
            plan = plans[n % len(plans)][tier]
            started = time.perf_counter()
            search.tier_ids(tier, plan, 3)
            samples.append((time.perf_counter() - started) * 1000)
        print(f"  retrieval {tier:<14}    {figures(samples)}")
    budgets = "(budget: all-words p95 <= 5, fuzzy p95 <= 20)"
    print(f"  {budgets}")

    settings.INTENT_ENGINE_MODEL = ""
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # 503s are the point here
    unavailable = []
    for _ in range(RUNS):
        started = time.perf_counter()
        response = client.get("/v1/recommend", {"intent": intents[0]})
        unavailable.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 503
    print(f"  503, engine not configured:  {figures(unavailable)}   (budget: <= 5)")
    engine_server.close()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--run":
        run(sys.argv[2])
    else:
        main()
