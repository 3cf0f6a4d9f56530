"""The references every throughput and latency figure of `make bench` is stated against.

The development machine's speed varies two to three times from one day to the next, and with it
every figure in milliseconds or requests a second; a figure divided by a reference measured in
the same run, on the same machine, served the same way, varies far less. So each such figure is
also reported as a ratio (`Figure.ratio`), and bench/budgets.py checks it against the budget's
ratio (bench/ratio_budgets.json, calibrated once on an idle machine: docs/benchmarks.md).

The references, each measured by the scenario that uses it, just before its own figures:

- for a request over HTTP: the bench's reference view (bench/urls.py: a Django view answering a
  small JSON document, no database, no cache) through the same web role, by the same client
  (one client in turn on a kept connection, or wrk with the same connections). It is the
  bench's own view rather than `/healthz` so that the ruler cannot change with the product:
  `/healthz` is a DRF view that its owners may give a check or a throttle, and it is itself a
  measured figure (during a probe flood);
- for a recommend: the scripted engine's own round trip (a chat completion asked of it directly
  by the same kind of client), what the machine takes to serve one small HTTP exchange in
  Python; the recommend's own figures are that plus the gateway's work;
- for a figure measured in-process (retrieval, scoring, the import): the reference view through
  Django's test client in the same process;
- for a fresh process (`manage.py check`): `python -m django --version` in a fresh process.
"""

import http.client
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from bench.common import RUNS, median, percentile

PATH = "/bench/reference"
WARM_UP = 20


@dataclass(frozen=True)
class Samples:
    """Latencies of one reference, in milliseconds, and what was measured."""

    what: str
    times_ms: list[float]

    def at(self, statistic: str) -> float:
        """The median ("median") or a percentile ("p95", "p99") of the samples."""
        if statistic == "median":
            return median(self.times_ms)
        return percentile(self.times_ms, int(statistic.removeprefix("p")) / 100)

    def rate(self) -> float:
        """Requests a second of one client in turn."""
        return 1000 / median(self.times_ms)


def in_turn(
    port: int, request: Callable[[http.client.HTTPConnection], None], count: int
) -> list[float]:
    """`count` requests made one after another on one kept connection, after a warm-up."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    try:
        for n in range(WARM_UP + count):
            started = time.perf_counter()
            request(conn)
            if n >= WARM_UP:
                times.append((time.perf_counter() - started) * 1000)
    finally:
        conn.close()
    return times


def get_in_turn(port: int, paths: list[str], count: int = RUNS) -> list[float]:
    """GETs of `paths` (round the list) made in turn on one kept connection after a warm-up of
    WARM_UP of them: each measured one's milliseconds. Every answer must be 200."""
    sent = iter(range(WARM_UP + count))

    def get(conn: http.client.HTTPConnection) -> None:
        path = paths[next(sent) % len(paths)]
        conn.request("GET", path, headers={"Host": "localhost"})
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, (path, response.status, body[:300])

    return in_turn(port, get, count)


def request(port: int, count: int = RUNS) -> Samples:
    """The reference view over HTTP, one client in turn on a kept connection."""
    return Samples("reference view over HTTP", get_in_turn(port, [PATH], count))


def engine(count: int = RUNS) -> Samples:
    """The scripted engine's own round trip: a chat completion asked of a scripted engine of
    its own (no delay) by one client in turn on a kept connection."""
    from tests.support.engine import ScriptedEngine

    body = orjson.dumps(
        {
            "model": "scripted",
            "messages": [{"role": "user", "content": "<intent>trail running shoes</intent>"}],
        }
    )

    def ask(conn: http.client.HTTPConnection) -> None:
        headers = {"Host": "localhost", "Content-Type": "application/json"}
        conn.request("POST", "/v1/chat/completions", body, headers=headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status

    with ScriptedEngine() as server:
        return Samples("scripted engine's own round trip", in_turn(server.port, ask, count))


def in_process(count: int = RUNS) -> Samples:
    """The reference view through Django's test client in this process (Django set up)."""
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    times = []
    for n in range(WARM_UP + count):
        started = time.perf_counter()
        assert client.get(PATH).status_code == 200
        if n >= WARM_UP:
            times.append((time.perf_counter() - started) * 1000)
    return Samples("reference view in-process (test client)", times)


def fresh_process(env: dict[str, str], runs: int = 3) -> Samples:
    """`python -m django --version` in a fresh process, `runs` times."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "django", "--version"], env=env, check=True, capture_output=True
        )
        times.append((time.perf_counter() - started) * 1000)
    return Samples("python -m django --version, fresh process", times)


REFERENCE_SCRIPT = f"""
request = function()
  return wrk.format("GET", "{PATH}", {{["Host"] = "localhost"}})
end
"""


def throughput(port: int, *, connections: int, seconds: float) -> float:
    """Requests a second of the reference view under wrk with `connections` connections."""
    from bench import loopback

    load = loopback.wrk(port, REFERENCE_SCRIPT, connections=connections, seconds=seconds)
    assert not load.failed, f"{load.failed} reference requests failed"
    return load.requests / load.seconds
