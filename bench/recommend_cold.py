"""Benchmark of a cold recommend's overhead (DESIGN.md section 11: the gateway's time beyond the
engine call, median <= 15 ms).

A cold recommend is one whose intent the engine has not resolved yet: its time is the engine's
(seconds, for a language model) plus the gateway's own work around the call (litellm and the
engine's process, retrieval, ranking, the cards, the rows). The budget bounds the latter, which
is all the gateway can change.

On the 10k-product demo catalog, with the scripted engine on loopback (answering at once), the
Procfile's `web` role (2 workers) serves GET /v1/recommend; RUNS (200) recommends of distinct
intents (each calls the engine) are timed, one client in turn on a kept connection, after a
warm-up. The engine's share is its own round trip, asked directly by the same kind of client in
the same run (bench/reference.py); the overhead is each recommend's time less that round trip's
median, and the round trip is also the figure's reference.

Runs alone (`python bench/recommend_cold.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing.
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, recommending, reference
from bench.common import RUNS, against, at_most, median

SHOPPERS = 40


def run(database_url: str) -> None:
    from tests.support.engine import ScriptedEngine

    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    intents = list(common.shopper_intents(SHOPPERS))
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== cold recommend on {common.VENDORS[vendor]}, over HTTP, 2 web workers")
    run_id = f"{random.randrange(16**8):08x}"  # noqa: S311 - never resolved by an earlier run
    count = reference.WARM_UP + RUNS
    paths = [recommending.path(f"{intents[n % SHOPPERS]} c{run_id}x{n}") for n in range(count)]
    resolve = recommending.resolver(common.shopper_intents(SHOPPERS))
    with ScriptedEngine(resolver=resolve) as engine:
        env = common.gateway_env(database_url) | recommending.engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            cold = reference.get_in_turn(port, paths, RUNS)
            assert engine.calls_count >= count, "a cold recommend did not call the engine"
        ruler = reference.engine()
    engine_ms = ruler.at("median")
    overhead = median([total - engine_ms for total in cold])
    print(f"  (cold recommend: total median {median(cold):.2f} ms, the engine's own round trip "
          f"median {engine_ms:.2f} ms)")  # fmt: skip
    name = "cold recommend, overhead beyond the engine, median"
    common.report(
        [against(at_most(name, vendor, overhead, 15), engine_ms, f"{ruler.what}, median")]
    )


if __name__ == "__main__":
    common.per_database(run, "bench")
