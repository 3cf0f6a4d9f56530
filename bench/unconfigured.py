"""Benchmark of the 503 a recommend gets when no intent engine is configured (DESIGN.md section
11: median <= 5 ms).

A gateway started without an engine (a fresh `make run` before docs/engine.md's steps) must say
so at once rather than fail slowly: GET /v1/recommend answers 503 `engine_unconfigured` without
touching the catalog. The budget keeps that answer as cheap as any small error.

On the 10k-product demo catalog, the Procfile's `web` role (2 workers) started with
INTENT_ENGINE_MODEL empty answers RUNS (200) recommends, one client in turn on a kept
connection; median. The reference is the bench's reference view over HTTP, by the same client
on the same server (bench/reference.py).

Runs alone (`python bench/unconfigured.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import http.client
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, recommending, reference
from bench.common import RUNS, against, at_most, median


def unavailable_in_turn(port: int, path: str) -> list[float]:
    def get(conn: http.client.HTTPConnection) -> None:
        conn.request("GET", path, headers={"Host": "localhost"})
        response = conn.getresponse()
        response.read()
        assert response.status == 503, response.status

    return reference.in_turn(port, get, RUNS)


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== recommend without an engine on {common.VENDORS[vendor]}, over HTTP")
    intent = next(iter(common.shopper_intents(1)))
    env = common.gateway_env(database_url) | {"INTENT_ENGINE_MODEL": ""}
    with loopback.web_server(env, workers=2) as port:
        samples = unavailable_in_turn(port, recommending.path(intent))
        ruler = reference.request(port)
    figure = at_most("503 with the engine unconfigured, median", vendor, median(samples), 5)
    common.report([against(figure, ruler.at("median"), f"{ruler.what}, median")])


if __name__ == "__main__":
    common.per_database(run, "bench")
