"""`make bench-scale`: the gateway at 10k, 100k and 1M products (DESIGN.md section 11, "Scale").

For each size, on a fresh scratch database (`gateway_scale` on PostgreSQL + Redis, up to 1M;
var/scale.sqlite3 on the embedded default, up to 100k): a catalog of variants of the shared
real catalog (bench/scale_catalog.py) is imported with `manage.py import_catalog`, the
Procfile's web role is started (two workers) with the scripted engine on loopback, and it prints
the import rate, the database's and the search index's size, start to first answer, the web
workers' memory, recommend p50/p95/p99 over distinct queries (each one the engine resolves
once), the tiers' retrieval p50/p95/p99 (timed in this process), card lookups, and the worst
recommend of four steady clients with and without a catalog edit (one product re-imported).
Then a table of every size against the 10k figures.

BENCH_SCALE_SIZES (e.g. `10000,100000`) picks the sizes; PostgreSQL is measured when
DATABASE_URL or BENCH_POSTGRES_URL names a server (its Redis: REDIS_URL). Prints figures;
asserts nothing. The catalog files and results stay under var/.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, scale_catalog
from bench.common import percentile
from bench.loopback import free_port, get, listeners, procfile_command

SIZES = {"postgresql": (10_000, 100_000, 1_000_000), "sqlite": (10_000, 100_000)}
RESULTS = common.VAR / "bench-scale.json"
CLIENTS = 4
STEADY_S = 15.0
EDIT_AT_S = 5.0
CARDS = 300
WORD_TIERS = ("raw_substring", "strict", "narrow")


def sizes(vendor: str) -> tuple[int, ...]:
    if chosen := os.environ.get("BENCH_SCALE_SIZES"):
        wanted = tuple(int(size) for size in chosen.split(","))
        return tuple(size for size in wanted if vendor == "postgresql" or size <= 100_000)
    return SIZES[vendor]


def fresh_database(vendor: str) -> str:
    """The scratch database, emptied."""
    if vendor == "postgresql":
        server = common.postgres_server()
        assert server
        return common.scratch_postgres(server, "gateway_scale", fresh=True)
    return common.scratch_databases("scale", fresh=True)[0]


def import_catalog(env: dict[str, str], path: Path) -> tuple[float, str]:
    """Import `path` with the management command: its products/s and its summary."""
    done = subprocess.run(  # noqa: S603 - the project's own command
        [sys.executable, "manage.py", "import_catalog", str(path)],
        cwd=common.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    summary = done.stdout.strip().splitlines()[0]
    rate = re.search(r"([\d,]+) products/s", summary)
    assert rate, summary
    return float(rate.group(1).replace(",", "")), summary


def sizes_on_disk() -> tuple[float, float]:
    """The database's size and its search index's, in MB."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE")
            cursor.execute(
                "SELECT pg_database_size(current_database()), "
                "pg_relation_size('catalog_product_search') "
                "+ pg_total_relation_size('catalog_searchword')"
            )
            database, index = cursor.fetchone()
        else:
            cursor.execute("PRAGMA page_count")
            pages = cursor.fetchone()[0]
            cursor.execute("PRAGMA page_size")
            database = pages * cursor.fetchone()[0]
            index = 0
            for table in ("catalog_product_fts_data", "catalog_searchword_grams_data"):
                cursor.execute(f"SELECT SUM(length(block)) FROM {table}")  # noqa: S608
                index += cursor.fetchone()[0] or 0
    return database / 2**20, index / 2**20


def worker_memory(master: int) -> list[float]:
    """Resident memory (MB) of each web worker of the gunicorn `master`."""
    sizes_mb = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(status.split("PPid:")[1].split()[0])
        if parent == master and b"gunicorn" in command:
            rss = int(status.split("VmRSS:")[1].split()[0])
            sizes_mb.append(rss / 1024)
    return sizes_mb


def recommend(port: int, query: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    import http.client

    path = f"/v1/recommend?intent={quote_plus(query['text'])}&limit=5&region={query['region']}"
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("GET", path, headers={"Host": "localhost"})
        response = conn.getresponse()
        body = response.read()
    finally:
        conn.close()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status != 200:
        raise SystemExit(f"recommend answered {response.status}: {body[:300]!r}")
    return elapsed, json.loads(body)


def card_ms(port: int, rec_id: str) -> float:
    return common.timed_ms(lambda: get(port, f"/v1/cards/{rec_id}"))


def steady(port: int, queries: list[dict[str, Any]], edit: Any = None) -> float:
    """The worst recommend (ms) of CLIENTS clients asking one after another for STEADY_S;
    `edit`, when given, runs EDIT_AT_S seconds in."""
    worst = [0.0] * CLIENTS
    stop = time.monotonic() + STEADY_S

    def client(number: int) -> None:
        at = number
        while time.monotonic() < stop:
            elapsed, _ = recommend(port, queries[at % len(queries)])
            worst[number] = max(worst[number], elapsed)
            at += CLIENTS

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    if edit is not None:
        time.sleep(EDIT_AT_S)
        edit()
    for thread in threads:
        thread.join()
    return max(worst)


def measure_retrieval(queries: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Each tier's time (ms) for every query, in this process, on the scratch database."""
    from catalog import search
    from matching.engine.resolution import normalize

    samples: dict[str, list[float]] = {
        "word": [],
        "fuzzy": [],
        "partial": [],
        "semantic": [],
        "retrieve": [],
    }
    for query in queries:
        resolution = query["resolution"]
        budget = resolution.get("budget") or {}
        plan = search.SearchQuery(
            text=normalize(query["text"]),
            keywords=resolution["keywords"],
            categories=resolution.get("categories", []),
            region=query["region"],
            budget_min=budget.get("min"),
            budget_max=budget.get("max"),
        )
        for tier in WORD_TIERS:
            samples["word"].append(common.timed_ms(lambda: search.tier_ids(tier, plan, 5)))  # noqa: B023
        for tier in ("fuzzy", "partial", "semantic"):
            samples[tier].append(common.timed_ms(lambda: search.tier_ids(tier, plan, 5)))  # noqa: B023
        samples["retrieve"].append(common.timed_ms(lambda: search.retrieve(plan, 5)))  # noqa: B023
    return samples


def spread(samples: list[float]) -> str:
    return " / ".join(f"{percentile(samples, share):,.1f}" for share in (0.5, 0.95, 0.99))


def run(vendor: str, size: int) -> None:
    from tests.support.engine import ScriptedEngine

    queries = scale_catalog.shopper_queries()
    url = fresh_database(vendor)
    path = scale_catalog.catalog_file(size, common.VAR)
    with ScriptedEngine() as engine:
        for query in queries:
            engine.answer(query["text"], **query["resolution"])
        env = common.gateway_env(url) | common.engine_env(engine.api_base)
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=common.ROOT,
            env=env,
            check=True,
        )
        rate, summary = import_catalog(env, path)
        print(f"\n== {size:,} products on {common.VENDORS[vendor]}\n  import: {summary}")
        common.django_setup(url)
        from django.core.cache import caches

        from catalog.importer import catalog_import
        from kernel.cache import forget

        for alias in ("default", "engine"):  # as `make relevance`: every query cold
            caches[alias].clear()
        forget()  # this process's memory of the catalog
        database_mb, index_mb = sizes_on_disk()
        port = free_port()
        web_env = {
            **env,
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "WEB_CONCURRENCY": "2",
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        }
        started = time.monotonic()
        server = subprocess.Popen(  # noqa: S603 - the Procfile's own command line
            ["/bin/sh", "-c", "exec " + procfile_command("web")],
            cwd=common.ROOT,
            env=web_env,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            first = ""
            while not first:
                try:
                    if get(port, "/healthz", timeout=5) == 200:
                        recommend(port, queries[0])
                        first = "answered"
                except OSError:
                    time.sleep(0.05)
                if server.poll() is not None or time.monotonic() - started > 600:
                    raise SystemExit("the web server did not answer")
            first_s = time.monotonic() - started
            common.wait_for(lambda: listeners(port) >= 2, "both workers")
            latencies: list[float] = []
            rec_ids: list[str] = []
            for query in queries[1:]:
                elapsed, body = recommend(port, query)
                latencies.append(elapsed)
                rec_ids.extend(item["rec_id"] for item in body["items"])
            cards = [card_ms(port, rec_id) for rec_id in rec_ids[:CARDS]]
            memory = worker_memory(server.pid)
            quiet = steady(port, queries)
            edited = dict(next(scale_catalog.generate(1)), title="Lloyd 2 Ton 5 Star Inverter AC")
            # Re-imported by this process (set up on the scratch database), through the importer
            # the command uses: the figure is the edit's, not a new process's start-up.
            line = json.dumps(edited).encode()
            during = steady(port, queries, lambda: catalog_import(lines=[line]))
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        retrieval = measure_retrieval(queries)
    figures = {
        "vendor": vendor,
        "products": size,
        "import_per_s": rate,
        "database_mb": database_mb,
        "index_mb": index_mb,
        "first_answer_s": first_s,
        "worker_mb": max(memory),
        "recommend_ms": [percentile(latencies, share) for share in (0.5, 0.95, 0.99)],
        "word_ms": [percentile(retrieval["word"], share) for share in (0.5, 0.95, 0.99)],
        "fuzzy_ms": [percentile(retrieval["fuzzy"], share) for share in (0.5, 0.95, 0.99)],
        "partial_ms": [percentile(retrieval["partial"], share) for share in (0.5, 0.95, 0.99)],
        "semantic_ms": [percentile(retrieval["semantic"], share) for share in (0.5, 0.95, 0.99)],
        "retrieve_ms": [percentile(retrieval["retrieve"], share) for share in (0.5, 0.95, 0.99)],
        "cards_ms": [percentile(cards, share) for share in (0.5, 0.95, 0.99)],
        "steady_worst_ms": quiet,
        "edit_worst_ms": during,
        "queries": len(queries),
    }
    workers = ", ".join(f"{mb:.0f}" for mb in memory)
    print(
        f"  database {database_mb:,.1f} MB, search index {index_mb:,.1f} MB\n"
        f"  start to first answer {first_s:.1f} s; web workers {workers} MB\n"
        f"  recommend p50/p95/p99 {spread(latencies)} ms over {len(latencies)} distinct queries\n"
        f"  retrieval p50/p95/p99, word tiers {spread(retrieval['word'])} ms; "
        f"fuzzy {spread(retrieval['fuzzy'])} ms; partial {spread(retrieval['partial'])} ms; "
        f"semantic {spread(retrieval['semantic'])} ms; "
        f"all tiers {spread(retrieval['retrieve'])} ms\n"
        f"  card lookups {spread(cards)} ms\n"
        f"  worst recommend of {CLIENTS} steady clients: {quiet:,.0f} ms; "
        f"during an edit {during:,.0f} ms"
    )
    with RESULTS.open("a") as results:
        results.write(json.dumps(figures) + "\n")


def table() -> None:
    """Every size measured this run beside the 10k figures, and the budgets' verdicts."""
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]
    print(
        "\n| database | products | import /s | DB / index MB | start to first answer | "
        "worker MB | recommend p50/p95/p99 ms | word tiers p95 | fuzzy p95 | partial p95 | "
        "semantic p95 | cards p99 | "
        "worst steady / during edit ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {common.VENDORS[row['vendor']]} | {row['products']:,} | "
            f"{row['import_per_s']:,.0f} | "
            f"{row['database_mb']:,.0f} / {row['index_mb']:,.0f} | {row['first_answer_s']:.1f} s | "
            f"{row['worker_mb']:.0f} | {' / '.join(f'{v:.1f}' for v in row['recommend_ms'])} | "
            f"{row['word_ms'][1]:.1f} | {row['fuzzy_ms'][1]:.1f} | "
            f"{row.get('partial_ms', [0, 0])[1]:.1f} | {row.get('semantic_ms', [0, 0])[1]:.1f} | "
            f"{row['cards_ms'][2]:.1f} | "
            f"{row['steady_worst_ms']:.0f} / {row['edit_worst_ms']:.0f} |"
        )
    print()
    for vendor in ("postgresql", "sqlite"):
        mine = {row["products"]: row for row in rows if row["vendor"] == vendor}
        base = mine.get(10_000)
        for size, row in sorted(mine.items()):
            checks = [
                ("import >= 3,000/s", row["import_per_s"] >= 3000),
                ("word tiers p95 <= 25 ms", row["word_ms"][1] <= 25),
                ("fuzzy p95 <= 60 ms", row["fuzzy_ms"][1] <= 60),
                ("partial p95 <= 60 ms", row.get("partial_ms", [0, 0])[1] <= 60),
                ("semantic p95 <= 60 ms", row.get("semantic_ms", [0, 0])[1] <= 60),
                (
                    "worst during an edit <= 1.5x steady",
                    row["edit_worst_ms"] <= 1.5 * row["steady_worst_ms"],
                ),
            ]
            if base and size != 10_000:
                checks += [
                    (
                        "worker memory within 50 MB of 10k",
                        row["worker_mb"] <= base["worker_mb"] + 50,
                    ),
                    (
                        "first answer within 2 s of 10k",
                        row["first_answer_s"] <= base["first_answer_s"] + 2,
                    ),
                    (
                        "recommend p95 <= 2x 10k",
                        row["recommend_ms"][1] <= 2 * base["recommend_ms"][1],
                    ),
                ]
            verdict = ", ".join(f"{name}: {'met' if met else 'MISSED'}" for name, met in checks)
            print(f"  {common.VENDORS[vendor]} {size:,}: {verdict}")


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--run":
        run(sys.argv[2], int(sys.argv[3]))
        return
    common.VAR.mkdir(exist_ok=True)
    RESULTS.unlink(missing_ok=True)
    vendors = ["sqlite"] + (["postgresql"] if common.postgres_server() else [])
    for vendor in vendors:
        for size in sizes(vendor):
            subprocess.run([sys.executable, __file__, "--run", vendor, str(size)], check=True)  # noqa: S603
    table()


if __name__ == "__main__":
    main()
