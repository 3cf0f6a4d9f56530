"""Benchmark of GET /v1/cards/{rec_id} (DESIGN.md section 11: >= 1,000 requests/s from the
database with 2 web workers).

A card is what a shopper's link or an agent's answer opens: the most frequent request, served
from the database, and the one that must stay fast whatever else the gateway is doing.

Issues cards on the 10k-product demo catalog, starts the Procfile's `web` role (2 workers,
throttling off) on a free loopback port and drives it with a load generator for CARDS_SECONDS
(10), each request for a card picked at random, after a short warm-up: `wrk` when it is on PATH,
else Python processes each opening a fresh connection per request. BENCH_LOAD_GENERATOR=python
forces the latter. Prints requests/s and p50/p99 latency, and which generator measured them.
The reference is the bench's reference view driven the same way, by the same generator with
the same connections, on the same server just before (bench/reference.py).

Runs alone (`python bench/cards.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import http.client
import multiprocessing
import os
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, reference
from bench.common import against, at_least, median, percentile, shown
from bench.loopback import Load

SECONDS = float(os.environ.get("CARDS_SECONDS", "10"))
WARM_UP_SECONDS = 2.0
CARDS = 500
WORKERS = 2
CONNECTIONS = 16  # wrk's open connections
PROCESSES = 4  # the Python generator's client processes


def issue_cards() -> list[str]:
    """The rec_ids of CARDS new cards, as recommend would issue them."""
    from catalog import services
    from catalog.models import Product

    ids = list(Product.objects.order_by("?").values_list("id", flat=True)[:CARDS])
    products = list(services.products_with_videos().filter(id__in=ids))
    return [card["rec_id"] for card in services.cards_issue(products=products, channel="bench")]


WRK_SCRIPT = """
local paths = {%s}
request = function()
  return wrk.format("GET", paths[math.random(#paths)], {["Host"] = "localhost"})
end
"""


# --- Python processes --------------------------------------------------------------------------


def _client(port: int, paths: list[str], stop_at: float, seed: int) -> tuple[list[float], int]:
    import random

    rng = random.Random(seed)  # noqa: S311
    times, failed = [], 0
    while time.time() < stop_at:
        started = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", rng.choice(paths), headers={"Host": "localhost"})
            response = conn.getresponse()
            response.read()
            failed += response.status != 200
        except OSError:
            failed += 1
        finally:
            conn.close()
        times.append((time.perf_counter() - started) * 1000)
    return times, failed


def python_processes(port: int, paths: list[str], seconds: float) -> Load:
    stop_at = time.time() + seconds
    started = time.perf_counter()
    with multiprocessing.Pool(PROCESSES) as pool:
        results = pool.starmap(_client, [(port, paths, stop_at, n) for n in range(PROCESSES)])
    wall = time.perf_counter() - started
    times = [elapsed for result, _ in results for elapsed in result]
    failed = sum(count for _, count in results)
    generator = f"Python, {PROCESSES} processes"
    return Load(generator, len(times), wall, median(times), percentile(times, 0.99), failed)


def drive(port: int, paths: list[str], seconds: float) -> Load:
    if shutil.which("wrk") and os.environ.get("BENCH_LOAD_GENERATOR", "wrk") == "wrk":
        script = WRK_SCRIPT % ", ".join(f'"{path}"' for path in paths)
        return loopback.wrk(port, script, connections=CONNECTIONS, seconds=seconds)
    return python_processes(port, paths, seconds)


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    paths = [f"/v1/cards/{rec_id}" for rec_id in issue_cards()]
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== GET /v1/cards/{{rec_id}} on {common.VENDORS[vendor]}, {WORKERS} web workers")
    with loopback.web_server(common.gateway_env(database_url), workers=WORKERS) as port:
        drive(port, [reference.PATH], WARM_UP_SECONDS)
        ruler = drive(port, [reference.PATH], SECONDS)
        drive(port, paths, WARM_UP_SECONDS)
        load = drive(port, paths, SECONDS)
    rate = load.requests / load.seconds
    throughput = at_least("GET /v1/cards/{rec_id}, 2 web workers", vendor, rate, 1000, "req/s")
    summary = f"{load.generator}, {load.requests:,} requests in {load.seconds:.1f} s"
    same = f"reference view, {load.generator}"
    common.report(
        [
            # A failed request is no throughput: the budget is missed whatever the rate.
            against(replace(throughput, met=throughput.met and not load.failed,
                            note=f"generator: {summary}, {load.failed} failed"),
                    ruler.requests / ruler.seconds, f"{same}, throughput"),
            against(shown("GET /v1/cards/{rec_id}, latency p50", vendor, load.p50_ms),
                    ruler.p50_ms, f"{same}, p50"),
            against(shown("GET /v1/cards/{rec_id}, latency p99", vendor, load.p99_ms),
                    ruler.p99_ms, f"{same}, p99"),
        ]
    )  # fmt: skip


if __name__ == "__main__":
    common.per_database(run, "bench")
