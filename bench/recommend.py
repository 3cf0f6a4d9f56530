"""Benchmark of GET /v1/recommend and its retrieval tiers (DESIGN.md section 11).

On the 10k-product demo catalog, with the scripted intent engine on loopback, through the whole
Django stack:

- warm recommend (resolution cached): median and p95, through the ASGI handler the web role
  serves;
- cold recommend: the gateway's own time beyond the engine call (litellm included);
- retrieval per tier at 10k products (catalog.search.tier_ids), p95;
- the 503 of an unconfigured engine.

Runs alone (`python bench/recommend.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import asyncio
import logging
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common
from bench.common import RUNS, Figure, at_most, median, percentile, timed_ms
from tests.support.engine import ScriptedEngine

TIER_BUDGETS = {"raw_substring": 5.0, "strict": 5.0, "narrow": 5.0, "fuzzy": 20.0}


def recommend_figures(vendor: str, intents: list[str]) -> list[Figure]:
    """Through Django's ASGI handler, as the web role serves it (gateway.asgi): the WSGI test
    client would run each request's event loop in a thread of its own, a cost per request
    that production never pays."""
    return asyncio.run(_recommend_figures(vendor, intents))


async def _recommend_figures(vendor: str, intents: list[str]) -> list[Figure]:
    from django.test import AsyncClient

    from matching import engine

    client = AsyncClient(HTTP_HOST="localhost")

    async def timed_get(intent: str) -> float:
        started = time.perf_counter()
        response = await client.get("/v1/recommend", {"intent": intent, "limit": "3"})
        assert response.status_code == 200, response.content
        return (time.perf_counter() - started) * 1000

    # Cold: every intent once. The engine's own share is timed around the litellm call.
    engine_ms: list[float] = []
    call = engine._acall

    async def timed_call(messages: list[dict[str, str]]) -> str:
        started = time.perf_counter()
        try:
            return await call(messages)
        finally:
            engine_ms.append((time.perf_counter() - started) * 1000)

    engine._acall = timed_call
    await timed_get("bench warm-up: litellm import")
    engine_ms.clear()
    cold = [await timed_get(intent) for intent in intents]
    engine._acall = call
    overhead = [total - spent for total, spent in zip(cold, engine_ms, strict=True)]
    warm = [await timed_get(intents[n % len(intents)]) for n in range(RUNS)]
    print(f"  (cold recommend: total median {median(cold):.2f} ms, engine call median "
          f"{median(engine_ms):.2f} ms)")  # fmt: skip
    return [
        at_most("warm recommend (cached), median", vendor, median(warm), 10),
        at_most("warm recommend (cached), p95", vendor, percentile(warm, 0.95), 20),
        at_most("cold recommend, overhead beyond the engine, median", vendor, median(overhead), 15),
    ]


def retrieval_figures(vendor: str, sample: Sequence[Mapping[str, object]]) -> list[Figure]:
    from catalog import search

    plans = []
    for row in sample:
        words = common.title_words(str(row["title"]))
        typo = [word[:-2] + word[-1] + word[-2] if len(word) > 4 else word for word in words]
        category = [str(row["category_l2"])]
        plans.append(
            {
                "raw_substring": search.SearchQuery(" ".join(words), words, []),
                "strict": search.SearchQuery("", words, category, budget_max=150),
                "narrow": search.SearchQuery("", words, [], budget_max=150),
                "fuzzy": search.SearchQuery("", typo, [], budget_max=150),
                "broadened": search.SearchQuery("", [], category, budget_max=150),
            }
        )
    figures = []
    for tier in search.TIERS:
        samples = []
        for n in range(RUNS):
            plan = plans[n % len(plans)][tier]
            samples.append(timed_ms(lambda: search.tier_ids(tier, plan, 3)))  # noqa: B023
        name = f"retrieval at 10k, {tier}, p95"
        p95 = percentile(samples, 0.95)
        if tier in TIER_BUDGETS:
            figures.append(at_most(name, vendor, p95, TIER_BUDGETS[tier]))
        else:
            figures.append(Figure(name, vendor, f"{p95:,.2f} ms"))
    return figures


def unconfigured_figures(vendor: str, intent: str) -> list[Figure]:
    from django.conf import settings
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    settings.INTENT_ENGINE_MODEL = ""
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # 503s are the point here

    def call() -> None:
        assert client.get("/v1/recommend", {"intent": intent}).status_code == 503

    samples = [timed_ms(call) for _ in range(RUNS)]
    return [at_most("503 with the engine unconfigured, median", vendor, median(samples), 5)]


def run(database_url: str) -> None:
    with ScriptedEngine() as engine_server:
        common.django_setup(database_url, **common.engine_env(engine_server.api_base))
        from django.core.cache import caches

        from catalog.models import Product
        from gateway.cache import forget

        common.ensure_catalog()
        for name in ("default", "engine"):
            caches[name].clear()
        forget()  # this process's memory of the catalog
        vendor = common.vendor_of(database_url)
        print(f"\n== recommend on {common.VENDORS[vendor]}, {Product.objects.count():,} products")
        # Intents the catalog can answer, from its own titles and categories.
        sample = list(Product.objects.order_by("id").values("title", "category_l2")[:400:20])
        intents = common.shopper_intents(len(sample))
        for text, resolution in intents.items():
            engine_server.answer(text, **resolution)
        common.report(recommend_figures(vendor, list(intents)))
        common.report(retrieval_figures(vendor, sample))
        common.report(unconfigured_figures(vendor, next(iter(intents))))


if __name__ == "__main__":
    common.per_database(run, "bench")
