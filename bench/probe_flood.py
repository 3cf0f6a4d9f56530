"""Benchmark of a flood of health probes of merchants that never answer (DESIGN.md section 11,
concurrency: card lookups and `/healthz` p99 <= 50 ms meanwhile).

`GET /v1/merchant/{id}/health` asks the merchant's endpoint there and then. Anyone may call it,
and a merchant may hang for its whole timeout: probes must wait on their own threads, never on
those that serve requests, so that a flood of them leaves the rest of the gateway as fast as
before.

As `make run` runs it: the Procfile's `web` role (2 workers) on a scratch database with the
10k-product demo catalog; HANGING_PROBED (12) merchants registered at a receiver on loopback
that never answers. wrk keeps 32 connections probing them round the list for
CONCURRENCY_SECONDS (15), while two samplers look up cards and `/healthz`, one request at a
time each. The references, measured on the same server just before: the reference view's
throughput under wrk with the same connections, and a sampler's p99 of the reference view.

Runs alone (`python bench/probe_flood.py`) or as part of `make bench`; see bench/common.py for
the scratch databases. Prints figures; asserts nothing.
"""

import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, reference, sampler
from bench.common import against, at_most, shown
from bench.registering import register
from tests.support.receiver import Receiver

HANGING_PROBED = 12
CONNECTIONS = 32
SECONDS = float(os.environ.get("CONCURRENCY_SECONDS", "15"))
REFERENCE_SECONDS = 3.0

# Health probes of the hanging merchants, one after another round the list.
PROBE_SCRIPT = """
local ids = {%s}
local n = 0
function request()
  n = n + 1
  return wrk.format("GET", "/v1/merchant/" .. ids[(n %% #ids) + 1] .. "/health",
                    {["Host"] = "localhost"})
end
"""


def flood(vendor: str, port: int, card_paths: list[str]) -> list[common.Figure]:
    rate_ruler = reference.throughput(port, connections=CONNECTIONS, seconds=REFERENCE_SECONDS)
    p99_ruler = sampler.idle_p99(port, [reference.PATH], REFERENCE_SECONDS)
    with Receiver() as hanging:
        hanging.default = "hang:60"
        ids = [f"probed-{random.randrange(16**8):08x}" for _ in range(HANGING_PROBED)]  # noqa: S311
        for merchant_id in ids:
            register(port, merchant_id, f"{hanging.url}?m={merchant_id}", ["nothing"])
        script = PROBE_SCRIPT % ", ".join(f'"{merchant_id}"' for merchant_id in ids)
        with (
            sampler.Sampler(port, card_paths) as cards,
            sampler.Sampler(port, ["/healthz"]) as health,
        ):
            load = loopback.wrk(port, script, connections=CONNECTIONS, seconds=SECONDS)
        hanging.release.set()
    name = f"during a flood of probes of {HANGING_PROBED} hanging merchants"
    probes = shown(f"health probes {name}", vendor, load.requests / load.seconds, "req/s",
                   rate=True)  # fmt: skip
    idle = "reference view's p99, the same sampler, idle"
    return [
        against(probes, rate_ruler, f"reference view's throughput, wrk, {CONNECTIONS} connections"),
        against(at_most(f"card lookups {name}, p99", vendor, cards.p99(), 50), p99_ruler, idle),
        against(at_most(f"/healthz {name}, p99", vendor, health.p99(), 50), p99_ruler, idle),
    ]


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    from bench.cards import issue_cards

    common.ensure_catalog()
    card_paths = [f"/v1/cards/{rec_id}" for rec_id in issue_cards()]
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== a flood of probes of hanging merchants on {common.VENDORS[vendor]}")
    with loopback.web_server(common.gateway_env(database_url), workers=2) as port:
        common.report(flood(vendor, port, card_paths))


if __name__ == "__main__":
    common.per_database(run, "bench")
