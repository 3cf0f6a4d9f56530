"""Benchmark of what watching the gateway costs (DESIGN.md section 11: metrics on, the budgets
still met): warm recommends and card lookups with metrics and traces off, with metrics on, and
with metrics and traces on.

Metrics are on when METRICS_TOKEN is set (every process writes prometheus_client's
multiprocess files, docs/alerts.md "Metrics"); traces when OTEL_EXPORTER_OTLP_ENDPOINT is
set (every span exported over OTLP/HTTP, here to a loopback sink that accepts and drops them,
docs/alerts.md "Traces"). For each of the three, the Procfile's `web` role (2 workers) is
started afresh on the 10k-product demo catalog with the scripted engine: RUNS (200) warm
recommends of 20 shoppers' intents, one client in turn on a kept connection, as
bench/recommend_warm.py measures them; then card lookups driven for OBSERVED_CARDS_SECONDS (5)
as bench/cards.py drives them. The budgets of warm recommends and cards apply with metrics on
(and are shown with traces on as well); the figures with everything off are the baseline each
is compared with. A scrape of /metrics after the recommends checks that metrics were on.

Runs alone (`python bench/observability.py`) or as part of `make bench`; see bench/common.py
for the scratch databases. Prints figures; asserts nothing but that each mode is what it says.
"""

import http.client
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import cards, common, loopback, recommending, reference
from bench.common import RUNS, against, at_least, at_most, shown
from tests.support.engine import ScriptedEngine

SHOPPERS = 20
SECONDS = float(os.environ.get("OBSERVED_CARDS_SECONDS", "5"))


class _Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that accepts every export and keeps nothing."""

    received = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        type(self).received += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def otlp_sink() -> Iterator[tuple[str, type[_Sink]]]:
    """An OTLP endpoint on loopback, and the handler class that counts its exports."""
    handler = type("Sink", (_Sink,), {"received": 0})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", handler
    finally:
        server.shutdown()
        server.server_close()


def _scrape(port: int, token: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/metrics", headers={"Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _measure(env: dict[str, str], intents: list[str], card_paths: list[str]) -> dict[str, float]:
    with loopback.web_server(env, workers=2) as port:
        paths = [recommending.path(intent) for intent in intents]
        for path in paths:  # each resolved once: what follows is warm
            assert loopback.get(port, path) == 200
        warm = reference.Samples("", reference.get_in_turn(port, paths, RUNS))
        token = env.get("METRICS_TOKEN", "")
        scraped = _scrape(port, token or "none")
        assert scraped == (200 if token else 404), f"/metrics answered {scraped}"
        cards.drive(port, card_paths, cards.WARM_UP_SECONDS)
        load = cards.drive(port, card_paths, SECONDS)
    assert not load.failed, f"{load.failed} card lookups failed"
    return {
        "median": warm.at("median"),
        "p95": warm.at("p95"),
        "cards": load.requests / load.seconds,
    }


def run(database_url: str) -> None:
    common.django_setup(database_url)
    from django.db import connection

    common.ensure_catalog()
    intents = common.shopper_intents(SHOPPERS)
    card_paths = [f"/v1/cards/{rec_id}" for rec_id in cards.issue_cards()]
    connection.close()
    vendor = common.vendor_of(database_url)
    print(f"\n== watching the gateway on {common.VENDORS[vendor]}: metrics and traces off and on")
    token = secrets.token_urlsafe(32)
    figures = {}
    with (
        ScriptedEngine(resolver=recommending.resolver(intents)) as engine,
        otlp_sink() as (endpoint, sink),
        tempfile.TemporaryDirectory(prefix="bench-metrics-") as metrics_dir,
    ):
        base = common.gateway_env(database_url) | recommending.engine_env(engine)
        for name in ("METRICS_TOKEN", "OTEL_EXPORTER_OTLP_ENDPOINT"):
            base.pop(name, None)
        metrics = base | {"METRICS_TOKEN": token, "METRICS_DIR": metrics_dir}
        modes = {
            "off": base,
            "metrics on": metrics,
            "metrics and traces on": metrics | {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint},
        }
        for mode, env in modes.items():
            figures[mode] = _measure(env, list(intents), card_paths)
        assert sink.received > 0, "no trace was exported with traces on"
        ruler = reference.engine()
    off = figures["off"]
    rows = []
    for mode, measured in figures.items():
        watched = mode != "off"
        median_row = f"warm recommend (cached), median, {mode}"
        p95_row = f"warm recommend (cached), p95, {mode}"
        cards_row = f"GET /v1/cards/{{rec_id}}, 2 web workers, {mode}"
        rows += [
            against(at_most(median_row, vendor, measured["median"], 10) if watched
                    else shown(median_row, vendor, measured["median"]),
                    ruler.at("median"), f"{ruler.what}, median"),
            against(at_most(p95_row, vendor, measured["p95"], 20) if watched
                    else shown(p95_row, vendor, measured["p95"]),
                    ruler.at("p95"), f"{ruler.what}, p95"),
            replace(at_least(cards_row, vendor, measured["cards"], 1000, "req/s") if watched
                    else shown(cards_row, vendor, measured["cards"], "req/s", rate=True),
                    note=f"{measured['cards'] / off['cards']:.0%} of the throughput with both off"),
        ]  # fmt: skip
    common.report(rows)


if __name__ == "__main__":
    common.per_database(run, "bench")
