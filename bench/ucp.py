"""Benchmark of UCP's catalog search (agents/ucp/catalog.py): what it costs beyond the REST
recommend it is built on (budget: <= 5 ms).

On the 10k-product demo catalog, with the scripted intent engine on loopback, the Procfile's
`web` role (1 worker) answers warm searches (resolution cached) two ways, in turns, ROUNDS times
each, for the same shoppers' words and page size: GET /v1/recommend, and POST
/ucp/catalog/search. Both run the engine's cached resolution, the tiers, the cards and the rows;
the search adds its request's validation, one product more retrieved (to say whether a next
page follows), its signed cursor and UCP's product shape. The overhead is the search's median
round trip less recommend's. Its reference: the bench's reference view, asked in the same turns
by the same client (bench/reference.py).

Runs alone (`python bench/ucp.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, reference
from bench.common import against, at_most, median
from tests.support.engine import ScriptedEngine

ROUNDS = 200
WARM_UP = 20
LIMIT = 3


def _measure(base: str, intents: list[str]) -> dict[str, list[float]]:
    import httpx

    samples: dict[str, list[float]] = {}
    with httpx.Client(timeout=30) as http:

        def rest(intent: str) -> None:
            answer = http.get(f"{base}/v1/recommend", params={"intent": intent, "limit": LIMIT})
            assert answer.status_code == 200, answer.text

        def ucp(intent: str) -> None:
            body = {"query": intent, "pagination": {"limit": LIMIT}}
            answer = http.post(f"{base}/ucp/catalog/search", json=body)
            assert answer.status_code == 200, answer.text
            assert answer.json()["products"], "a search found nothing to shape"

        def reference_view(intent: str) -> None:
            assert http.get(f"{base}{reference.PATH}").status_code == 200

        ways = {"reference": reference_view, "REST": rest, "UCP": ucp}
        for n in range(WARM_UP + ROUNDS):
            for name, way in ways.items():
                started = time.perf_counter()
                way(intents[n % len(intents)])
                if n >= WARM_UP:
                    samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)
    return samples


def run(database_url: str) -> None:
    with ScriptedEngine() as engine_server:
        env = common.engine_env(engine_server.api_base)
        common.django_setup(database_url, **env)
        from django.db import connection

        common.ensure_catalog()
        intents = common.shopper_intents(20)
        for text, resolution in intents.items():
            engine_server.answer(text, **resolution)
        connection.close()
        vendor = common.vendor_of(database_url)
        print(f"\n== UCP catalog search on {common.VENDORS[vendor]}, warm, 1 web worker")
        port = loopback.free_port()
        web_env = common.gateway_env(database_url) | env
        with loopback.web_server(web_env, workers=1, port=port):
            samples = _measure(f"http://127.0.0.1:{port}", list(intents))
    view = median(samples["reference"])
    rest, ucp = median(samples["REST"]), median(samples["UCP"])
    print(f"  (recommend over REST median {rest:.2f} ms, UCP search median {ucp:.2f} ms)")
    name = "UCP search, overhead beyond a REST recommend, median"
    common.report(
        [against(at_most(name, vendor, ucp - rest, 5), view, "reference view over HTTP, median")]
    )


if __name__ == "__main__":
    common.per_database(run, "bench")
