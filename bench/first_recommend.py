"""Benchmark of the first recommend after start (DESIGN.md section 11, concurrency: it costs the
engine call plus <= 100 ms).

A web worker loads a great deal on first use (the URLconf, the engine's client in its own
process, the catalog's category names, database and cache connections). Loaded during the first
request, it made the first shopper after each deploy or restart wait seconds; each worker now
loads it before it takes a connection (docs/serving.md, warm workers), and this budget keeps
it so.

The Procfile's `web` role (2 workers) is started on a scratch database with the 10k-product
demo catalog and the scripted engine answering after ENGINE_DELAY_S (1.0 s); the first recommend
sent once it listens is timed, then a second cold one. Each figure is its time less the engine's
delay. The reference is the scripted engine's own round trip (no delay), median
(bench/reference.py).

Runs alone (`python bench/first_recommend.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing.
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, recommending, reference
from bench.common import against, at_most, shown, timed_ms
from tests.support.engine import ScriptedEngine

ENGINE_DELAY_S = 1.0


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== the first recommend after start on {common.VENDORS[vendor]}")
    intents = common.shopper_intents(40)
    first_intent, later_intent = list(intents)[:2]
    resolve = recommending.resolver(intents)
    with ScriptedEngine(delay_s=ENGINE_DELAY_S, resolver=resolve) as engine:
        env = common.gateway_env(database_url) | recommending.engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            run_id = random.randrange(16**8)  # noqa: S311
            first = timed_ms(lambda: recommending.recommend(port, f"{first_intent} f{run_id}x1"))
            later = timed_ms(lambda: recommending.recommend(port, f"{later_intent} f{run_id}x2"))
    ruler = reference.engine()
    engine_ms = ENGINE_DELAY_S * 1000
    what = f"{ruler.what}, median"
    name = "first recommend after start, beyond the engine"
    common.report(
        [
            against(at_most(name, vendor, first - engine_ms, 100), ruler.at("median"), what),
            against(shown("a later cold recommend, beyond the engine", vendor, later - engine_ms),
                    ruler.at("median"), what),
        ]
    )  # fmt: skip


if __name__ == "__main__":
    common.per_database(run, "bench")
