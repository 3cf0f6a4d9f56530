"""Benchmark of Intent.Surge delivery beside merchants that never answer (DESIGN.md section 11,
concurrency: with 16 merchants that never answer, a healthy merchant's Intent.Surge p95 <= 1 s
after the intent).

Every merchant subscribed to an intent's tags is sent the intent as it is created. A merchant
whose endpoint hangs must cost the others nothing: deliveries run on the Celery lanes, at most
one under way per merchant, and a merchant that stopped answering in time moves to the slow
lane (docs/failures.md, Intent.Surge: delivery isolation).

As `make run` runs it: the Procfile's `web` role (2 workers) and its `webhooks` and
`slow-webhooks` roles on the configured broker, on a scratch database with the 10k-product demo
catalog; HANGING_ON_TAG (16) merchants on one tag, each at a receiver on loopback of its own
that never answers, and a healthy one registered last. SURGES (20) intents on that tag are
created over HTTP, half a second apart; each one's time is from its POST /v1/intents answered to
the healthy merchant's receipt of it; p95. The reference is the bench's reference view over
HTTP, one client in turn, on the same server (bench/reference.py).

Runs alone (`python bench/surge_isolation.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing.
"""

import contextlib
import random
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson

from bench import common, loopback, reference
from bench.common import against, at_most, percentile
from bench.registering import register
from tests.support.receiver import Receiver
from tests.support.worker import Worker, purge

HANGING_ON_TAG = 16
SURGES = 20


def surges(port: int) -> list[float]:
    """Milliseconds from each intent's creation to the healthy merchant's receipt of it."""
    from gateway.celery import app

    purge(app.conf.broker_url)
    env = {"WEBHOOK_TIMEOUT_S": "10", "LOG_LEVEL": "WARNING"}
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as logs:
        healthy = stack.enter_context(Receiver())
        tag = f"surge{random.randrange(16**8):08x}"  # noqa: S311
        for n in range(HANGING_ON_TAG):  # each at an endpoint (an address and port) of its own
            hanging = stack.enter_context(Receiver())
            hanging.default = "hang:60"
            register(port, f"hangs-{tag}-{n}", hanging.url, [tag])
        register(port, f"healthy-{tag}", healthy.url, [tag])  # registered last
        lanes = [
            Worker(Path(logs), app.conf.broker_url, env=env, role=role).start()
            for role in ("webhooks", "slow-webhooks")
        ]
        try:
            common.wait_for(
                lambda: all(" ready." in worker.log() for worker in lanes), "the Celery lanes"
            )
            latencies = []
            for n in range(SURGES):
                body = orjson.dumps({"raw_query": f"surge {n}", "intent_tags": [tag]})
                assert loopback.post(port, "/v1/intents", body) == 201
                created = time.monotonic()
                healthy.wait_for(n + 1, timeout=60)
                latencies.append((healthy.received[n].at - created) * 1000)
                time.sleep(0.5)
        finally:
            stack.close()  # the hanging merchants let go, before the workers stop
            for worker in lanes:
                worker.stop()
    return latencies


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== Intent.Surge beside {HANGING_ON_TAG} hanging merchants on "
          f"{common.VENDORS[vendor]}")  # fmt: skip
    with loopback.web_server(common.gateway_env(database_url), workers=2) as port:
        ruler = reference.request(port)
        latencies = surges(port)
    figure = at_most(
        f"a healthy merchant's surge with {HANGING_ON_TAG} hanging merchants, p95",
        vendor,
        percentile(latencies, 0.95) / 1000,
        1,
        "s",
    )
    figure = replace(figure, note=f"{SURGES} intents, slowest {max(latencies):,.0f} ms")
    common.report([against(figure, ruler.at("p95") / 1000, f"{ruler.what}, p95")])


if __name__ == "__main__":
    common.per_database(run, "bench")
