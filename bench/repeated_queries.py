"""Benchmark of repeated queries (DESIGN.md section 11, cost: repeated queries within the cache
lifetime never reach the engine again, on the embedded default too).

Each engine call is paid for. A query asked again within the engine cache's lifetime must be
answered from the cache, however many other entries (catalog pages, search hits) were written
meanwhile: on the embedded default those share files under var/cache/, and once evicted the
resolutions to make room for them (docs/data.md, caches).

The Procfile's `web` role (2 workers), with the scripted engine on loopback, on a scratch
database with the 10k-product demo catalog, answers MIX_CALLS (200) recommends over HTTP, each
on a fresh connection, of MIX_QUERIES (40) queries in random order (each asked at least once);
the figure is the engine's calls beyond one per query. A count, not a speed: no reference.

Runs alone (`python bench/repeated_queries.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing.
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, recommending
from bench.common import Figure
from tests.support.engine import ScriptedEngine

MIX_QUERIES, MIX_CALLS = 40, 200


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== repeated queries on {common.VENDORS[vendor]}")
    intents = common.shopper_intents(MIX_QUERIES)
    run_id = f"{random.randrange(16**8):08x}"  # noqa: S311 - never cached by an earlier run
    queries = [f"{intent} m{run_id}x{n}" for n, intent in enumerate(intents)]
    mix = queries + random.choices(queries, k=MIX_CALLS - len(queries))  # noqa: S311
    random.shuffle(mix)
    with ScriptedEngine(resolver=recommending.resolver(intents)) as engine:
        env = common.gateway_env(database_url) | recommending.engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            for query in mix:
                recommending.recommend(port, query)
        again = engine.calls_count - len(queries)
    name = f"re-resolutions in {MIX_CALLS} recommends of {len(queries)} repeated queries"
    common.report([Figure(name, vendor, str(again), "0", again == 0)])


if __name__ == "__main__":
    common.per_database(run, "bench")
