"""Requests made beside a load, to see what the load does to them."""

import http.client
import random
import threading
import time
from dataclasses import dataclass, field

from bench.common import percentile

PAUSE_S = 0.02  # between one sampler's requests: a steady trickle beside the load


@dataclass
class Sampler:
    """Sequential GETs of `paths` on one kept-open connection, in a thread, until stopped."""

    port: int
    paths: list[str]
    latencies_ms: list[float] = field(default_factory=list)
    failed: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        rng = random.Random(7)  # noqa: S311
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                conn.request("GET", rng.choice(self.paths), headers={"Host": "localhost"})
                response = conn.getresponse()
                response.read()
                self.failed += response.status != 200
            except OSError:
                self.failed += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.latencies_ms.append((time.perf_counter() - started) * 1000)
            self._stop.wait(PAUSE_S)
        conn.close()

    def p99(self) -> float:
        return percentile(self.latencies_ms, 0.99) if self.latencies_ms else float("nan")


def idle_p99(port: int, paths: list[str], seconds: float) -> float:
    """The p99 a Sampler of `paths` sees for `seconds` with nothing else sent: a reference."""
    with Sampler(port, paths) as sampler:
        time.sleep(seconds)
    return sampler.p99()
