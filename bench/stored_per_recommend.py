"""Benchmark of what a recommend stores (DESIGN.md section 11, cost: rows and bytes stored per
recommend measured and bounded by retention settings).

A recommend records what it answered (the intent and its tags, a card and a catalog proposal
per product, the match session, the surge event when a merchant subscribes), so that a later
click, match or sale can be credited. That is the gateway's largest write load and its storage
growth; retention (reporting/retention.py) bounds how long it stays. This figure is what the
retention settings multiply.

The Procfile's `web` role (2 workers), with the scripted engine on loopback, on a scratch
database with the 10k-product demo catalog, answers COUNT (200) cold recommends (limit 3) over
HTTP; rows of each table that recommends write are counted before and after (on PostgreSQL,
after a VACUUM, with the tables' bytes, indexes and TOAST included). A count, not a speed: no
reference.

Runs alone (`python bench/stored_per_recommend.py`) or as part of `make bench`; see
bench/common.py for the scratch databases. Prints figures; asserts nothing.
"""

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, recommending
from bench.common import Figure
from tests.support.engine import ScriptedEngine

COUNT = 200
STORED_TABLES = (
    "matching_intent",
    "matching_intenttag",
    "catalog_recommendation",
    "matching_proposal",
    "matching_matchsession",
    "merchants_webhookevent",
    "merchants_webhookdelivery",
)


def stored() -> dict[str, tuple[int, int]]:
    """Rows and on-disk bytes (tables, indexes, TOAST) of what recommends store."""
    from django.db import connection

    counts = {}
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # autovacuum had once truncated a table while it was measured (a negative size).
            cursor.execute(f"VACUUM {', '.join(STORED_TABLES)}")
        for table in STORED_TABLES:
            cursor.execute(f"SELECT COUNT(*) FROM {table}")  # noqa: S608 - constant names
            rows = cursor.fetchone()[0]
            size = 0
            if connection.vendor == "postgresql":
                cursor.execute("SELECT pg_total_relation_size(%s)", [table])
                size = cursor.fetchone()[0]
            counts[table] = (rows, size)
    connection.close()  # no connection held while the gateway is measured
    return counts


def run(database_url: str) -> None:
    common.django_setup(database_url)
    common.ensure_catalog()
    vendor = common.vendor_of(database_url)
    print(f"\n== what a recommend stores on {common.VENDORS[vendor]}")
    intents = common.shopper_intents(40)
    texts = list(intents)
    run_id = f"{random.randrange(16**8):08x}"  # noqa: S311
    with ScriptedEngine(resolver=recommending.resolver(intents)) as engine:
        env = common.gateway_env(database_url) | recommending.engine_env(engine)
        with loopback.web_server(env, workers=2) as port:
            before = stored()
            for n in range(COUNT):
                recommending.recommend(port, f"{texts[n % len(texts)]} c{run_id}x{n}")
            after = stored()
    rows = {t: (after[t][0] - before[t][0]) / COUNT for t in STORED_TABLES}
    size = sum(after[t][1] - before[t][1] for t in STORED_TABLES) / COUNT
    detail = ", ".join(f"{t.split('_', 1)[1]} {rows[t]:g}" for t in STORED_TABLES)
    figures = [
        Figure("rows stored per recommend (limit 3)", vendor, f"{sum(rows.values()):.1f}",
               note=detail)
    ]  # fmt: skip
    if vendor == "postgresql":
        figures.append(
            Figure("bytes stored per recommend (limit 3, tables + indexes)", vendor,
                   f"{size / 1024:.1f} KB")
        )  # fmt: skip
    common.report(figures)


if __name__ == "__main__":
    common.per_database(run, "bench")
