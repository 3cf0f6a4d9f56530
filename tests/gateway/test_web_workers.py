"""The web role spreads connections over its workers.

Each worker listens on a socket of its own in one SO_REUSEPORT group (gunicorn's
`--reuse-port`), so the kernel picks the worker of each new connection by a hash of its
addresses. With one shared socket, the worker that woke first accepted most of a burst of
connections and kept them (64 connecting together: 43 to 64 of them on one of two workers).
A worker's socket listens only once the worker is warm, and a port shared that way would let
a second server share it too: the web role refuses to start instead.
"""

import http.client
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.web import WebServer
from tests.support.worker import ROOT, procfile_command, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

CONNECTIONS = 64
WORKERS = 2
# Hashing 64 connections over two workers gives each 32 +- 4: fewer than 16 happens once in
# 30,000 bursts. With one shared socket, a burst left a worker 0 to 21 of them.
FEWEST = 16


def _workers(arbiter: int) -> list[int]:
    """The pids of the processes whose parent is `arbiter`."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # a process that ended meanwhile
            continue
        if int(fields[1]) == arbiter:
            children.append(int(stat.parent.name))
    return children


def _connections(port: int, state: str) -> set[str]:
    """The socket inodes of the TCP sockets on local `port` in `state` ("01" established,
    "0A" listening), from /proc/net/tcp."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == state and int(fields[1].rsplit(":", 1)[1], 16) == port:
            inodes.add(fields[9])
    return inodes


def _held(pid: int, inodes: set[str]) -> int:
    """How many of the sockets `inodes` the process `pid` has open."""
    held = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        held += target.startswith("socket:[") and target[8:-1] in inodes
    return held


def test_a_burst_of_connections_is_spread_over_the_workers(tmp_path):
    with WebServer(tmp_path, env={"WEB_CONCURRENCY": str(WORKERS)}) as web:
        assert web.process is not None
        workers = _workers(web.process.pid)
        assert len(workers) == WORKERS
        # A socket each, not one shared, once both workers are warm.
        wait_until(lambda: len(_connections(web.port, "0A")) == WORKERS, timeout=60)
        listening = _connections(web.port, "0A")
        assert [_held(worker, listening) for worker in workers] == [1] * WORKERS

        for _burst in range(3):
            clients = [
                http.client.HTTPConnection("127.0.0.1", web.port, timeout=90)
                for _ in range(CONNECTIONS)
            ]
            for client in clients:
                client.connect()
            for client in clients:
                client.request("GET", "/healthz", headers={"Host": "localhost"})
            for client in clients:
                response = client.getresponse()
                response.read()
                assert response.status == 200
            established = _connections(web.port, "01")
            held = sorted(_held(worker, established) for worker in workers)
            for client in clients:
                client.close()

            assert sum(held) == CONNECTIONS
            assert held[0] >= FEWEST, held


def test_a_second_server_on_the_same_port_is_refused_rather_than_sharing_it(tmp_path):
    with WebServer(tmp_path) as web:
        second = subprocess.run(  # noqa: S603 - the Procfile's own command line
            ["/bin/sh", "-c", "exec " + procfile_command("web")],
            cwd=ROOT,
            env=web.env,
            capture_output=True,
            text=True,
            timeout=60,
        )

        assert second.returncode == 1
        assert f"Cannot serve on 127.0.0.1:{web.port}: Address already in use." in second.stderr
        assert web.get("/healthz").status == 200


def test_a_worker_takes_connections_only_once_it_is_warm(tmp_path):
    """A worker started in place of one that died listens once its start-up is over: until
    then every connection goes to the workers already serving."""
    with WebServer(tmp_path, env={"WEB_CONCURRENCY": str(WORKERS)}) as web:
        assert web.process is not None
        arbiter = web.process.pid
        wait_until(lambda: len(_connections(web.port, "0A")) == WORKERS, timeout=60)
        first = set(_workers(arbiter))
        dead = min(first)
        os.kill(dead, signal.SIGKILL)
        wait_until(lambda: len(set(_workers(arbiter)) - first) == 1, timeout=30)
        (new,) = set(_workers(arbiter)) - first
        before_started = {
            "listening": _held(new, _connections(web.port, "0A")),
            "answered": [web.get("/healthz").status for _ in range(20)],
        }
        started = f"[{new}] [INFO] Application startup complete."
        assert started not in web.log()  # the new worker was still starting meanwhile
        wait_until(lambda: started in web.log(), timeout=90)
        wait_until(lambda: _held(new, _connections(web.port, "0A")) == 1, timeout=10)

        assert before_started == {"listening": 0, "answered": [200] * 20}
