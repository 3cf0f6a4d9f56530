"""Benchmark of POST /v1/match over 1,000 proposals (DESIGN.md section 11: p95 <= 50 ms).

A match session reads every live proposal of an intent, ranks them and records the session
with its ranking: the request a shopper's agent makes once merchants have answered, and the one
whose cost grows with them.

On the 10k-product demo catalog, an intent with 1,000 live proposals (bench/proposals.py); the
Procfile's `web` role (2 workers) serves POST /v1/match for it (limit 10), RUNS (200) times, one
client in turn on a kept connection, after a warm-up; p95. The reference is the bench's
reference view over HTTP, by the same client on the same server (bench/reference.py).

Runs alone (`python bench/match.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import http.client
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson

from bench import common, loopback, proposals, reference
from bench.common import RUNS, against, at_most, median, percentile


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    intent_id = proposals.intent_with_proposals()
    connection.close()
    vendor = common.vendor_of(database_url)
    count = proposals.PROPOSALS
    print(f"\n== POST /v1/match over {count:,} proposals on {common.VENDORS[vendor]}, over HTTP")
    body = orjson.dumps({"intent_id": intent_id, "limit": 10})

    def match(conn: http.client.HTTPConnection) -> None:
        headers = {"Host": "localhost", "Content-Type": "application/json"}
        conn.request("POST", "/v1/match", body, headers=headers)
        response = conn.getresponse()
        answer = response.read()
        assert response.status == 201, (response.status, answer[:300])

    with loopback.web_server(common.gateway_env(database_url), workers=2) as port:
        samples = reference.in_turn(port, match, RUNS)
        ruler = reference.request(port)
    print(f"  (POST /v1/match median {median(samples):.2f} ms, "
          f"p99 {percentile(samples, 0.99):.2f} ms)")  # fmt: skip
    name = f"POST /v1/match ({count:,} proposals), p95"
    figure = at_most(name, vendor, percentile(samples, 0.95), 50)
    common.report([against(figure, ruler.at("p95"), f"{ruler.what}, p95")])


if __name__ == "__main__":
    common.per_database(run, "bench")
