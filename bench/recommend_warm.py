"""Benchmark of a warm recommend (DESIGN.md section 11: median <= 10 ms, p95 <= 20 ms).

A warm recommend is one whose intent the engine has resolved before: the resolution comes from
the engine cache, and the request costs the gateway's own work alone (retrieval, ranking, the
cards, the rows it writes). It is what most recommends cost once shoppers repeat themselves, so
its budget is the gateway's speed as a shopper feels it.

On the 10k-product demo catalog, with the scripted engine on loopback, the Procfile's `web`
role (gunicorn with the gateway's uvicorn worker, 2 workers) serves GET /v1/recommend; each of
20 shoppers' intents is asked once (resolved by the engine), then RUNS (200) warm recommends
are timed, one client in turn on a kept connection, as a shopper's browser or agent sends them.
The reference (bench/reference.py) is the scripted engine's own round trip, measured by the same
kind of client in the same run.

Runs alone (`python bench/recommend_warm.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, recommending, reference
from bench.common import RUNS, against, at_most
from tests.support.engine import ScriptedEngine

SHOPPERS = 20


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    intents = common.shopper_intents(SHOPPERS)
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== warm recommend on {common.VENDORS[vendor]}, over HTTP, 2 web workers")
    with ScriptedEngine(resolver=recommending.resolver(intents)) as engine:
        env = common.gateway_env(database_url) | recommending.engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            paths = [recommending.path(intent) for intent in intents]
            for path in paths:  # each resolved once: what follows is warm
                assert loopback.get(port, path) == 200
            warm = reference.Samples("", reference.get_in_turn(port, paths, RUNS))
            ruler = reference.engine()
    what = ruler.what
    common.report(
        [
            against(at_most("warm recommend (cached), median", vendor, warm.at("median"), 10),
                    ruler.at("median"), f"{what}, median"),
            against(at_most("warm recommend (cached), p95", vendor, warm.at("p95"), 20),
                    ruler.at("p95"), f"{what}, p95"),
        ]
    )  # fmt: skip


if __name__ == "__main__":
    common.per_database(run, "bench")
