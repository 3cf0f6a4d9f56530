"""The gateway on loopback, as its Procfile runs it, and load sent to it with wrk."""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.common import ROOT
from tests.support.network import free_port


@dataclass(frozen=True)
class Load:
    generator: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    failed: int  # answers other than 2xx, timeouts and socket errors


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _wrk_ms(output: str, label: str) -> float:
    found = re.search(rf"^\s*{label}\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
    return float(found[1]) * _UNITS[found[2]] if found else float("nan")


def wrk(port: int, script: str, *, connections: int, seconds: float, timeout_s: int = 10) -> Load:
    """Drive 127.0.0.1:`port` with wrk (Debian package `wrk`) for `seconds`, `connections`
    connections kept open, each request made by the Lua `script`."""
    executable = shutil.which("wrk")
    if executable is None:
        raise SystemExit("wrk is not installed: apt-get install wrk")
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as lua:
        lua.write(script)
        lua.flush()
        output = subprocess.run(  # noqa: S603
            [executable, "-t2", f"-c{connections}", f"-d{seconds:g}s", f"--timeout={timeout_s}s",
             "--latency", "-s", lua.name, f"http://127.0.0.1:{port}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout  # fmt: skip
    done = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s)", output)
    assert done, output
    failed = sum(
        int(n) for n in re.findall(r"(?:Non-2xx or 3xx responses|timeout):? (\d+)", output)
    )
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+)", output)
    failed += sum(int(n) for n in errors.groups()) if errors else 0
    return Load(
        "wrk",
        int(done[1]),
        float(done[2]) * _UNITS[done[3]] / 1000,
        _wrk_ms(output, "50%"),
        _wrk_ms(output, "99%"),
        failed,
    )


def listeners(port: int) -> int:
    """How many sockets listen on TCP `port` (Linux's /proc/net tables: nothing connects)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            next(rows)  # the header
            for row in rows:
                fields = row.split()  # sl, local address:port (hex), remote, state, ...
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # LISTEN
                    count += 1
    return count


def post(port: int, path: str, body: bytes, timeout: float = 30) -> int:
    """The status of one JSON POST on a fresh connection."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(
            "POST", path, body, headers={"Host": "localhost", "Content-Type": "application/json"}
        )
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def get(port: int, path: str, timeout: float = 30) -> int:
    """The status of one GET on a fresh connection."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Host": "localhost"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def procfile_command(role: str) -> str:
    """The command line of a role of the Procfile, as honcho runs it for `make run`."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == role:
            return command.strip()
    raise KeyError(f"no {role!r} role in the Procfile")


@contextlib.contextmanager
def web_server(env: dict[str, str], *, workers: int = 2, port: int = 0) -> Iterator[int]:
    """The Procfile's `web` role (what `make run` serves) on loopback `port` (a free one if 0)
    with `workers` workers: yields the port once every worker listens and it answers /healthz,
    and stops it afterwards.

    Each worker listens on a socket of its own once warm (gateway/web_config.py); load sent
    when only the first is warm would stay on it for good (wrk keeps its connections open), and
    measure one worker, not the role."""
    port = port or free_port()
    env = {
        **env,
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "WEB_CONCURRENCY": str(workers),
        "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}",
    }
    server = subprocess.Popen(  # noqa: S603 - the Procfile's own command line
        ["/bin/sh", "-c", "exec " + procfile_command("web")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,  # the access log
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(OSError):
                if listeners(port) >= workers and get(port, "/healthz", timeout=5) == 200:
                    break
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the web server did not start")
            time.sleep(0.2)
        yield port
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
