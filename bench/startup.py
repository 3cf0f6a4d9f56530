"""Benchmark of the gateway's start (DESIGN.md section 11): no network access at import time,
and `manage.py check` under 3 s.

In a fresh process, an audit hook watches every socket connection and name lookup while Django
is set up and every module of the gateway's apps is imported; any address that is not loopback
is network access. (PostgreSQL connections go through libpq, not Python sockets: the scratch
server is on loopback anyway.) Then `manage.py check` is timed in fresh processes, best of 3.
The reference is `python -m django --version` in a fresh process, best of 3
(bench/reference.py): what starting Python and Django costs on this machine today.

A gateway that reached the network as it was imported would hang or fail wherever the network
is closed (a build, a test run, a container starting); a slow `manage.py check` slows every
command and every deploy.

Runs alone (`python bench/startup.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import importlib
import ipaddress
import pkgutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, reference
from bench.common import Figure, against, at_most

APPS = ("gateway", "catalog", "merchants", "matching", "reporting")
LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}
CHECKS = 3


def is_loopback(host: object) -> bool:
    if not isinstance(host, str | bytes):
        return True  # AF_UNIX paths and the like
    name = host.decode() if isinstance(host, bytes) else host
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False  # a name to resolve: a lookup on the network


def watch_network(seen: list[str]) -> None:
    """Record in `seen` every connection to, or lookup of, a host that is not loopback."""

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "socket.connect":
            address = args[1]
            host = address[0] if isinstance(address, tuple) else address
            if not is_loopback(host):
                seen.append(f"connect {address!r}")
        elif event == "socket.getaddrinfo" and not is_loopback(args[0]):
            seen.append(f"lookup {args[0]!r}")

    sys.addaudithook(hook)


def import_everything() -> int:
    """Import every module of the gateway's apps (migrations included): how many."""
    count = 0
    for app in APPS:
        package = importlib.import_module(app)
        count += 1
        for module in pkgutil.walk_packages(package.__path__, f"{app}."):
            importlib.import_module(module.name)
            count += 1
    return count


def check_seconds(database_url: str) -> float:
    """The best of CHECKS runs of `manage.py check`, each in a fresh process."""
    env = common.gateway_env(database_url)
    times = []
    for _ in range(CHECKS):
        started = time.perf_counter()
        subprocess.run(  # noqa: S603
            [sys.executable, str(common.ROOT / "manage.py"), "check"],
            env=env,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - started)
    return min(times)


def run(database_url: str) -> None:
    seen: list[str] = []
    watch_network(seen)  # before anything of the gateway or Django is imported
    common.django_setup(database_url)
    modules = import_everything()
    vendor = common.vendor_of(database_url)
    print(f"\n== start-up on {common.VENDORS[vendor]}: {modules} modules imported")
    network = Figure(
        "no network access at import time",
        vendor,
        "ok" if not seen else f"FAIL ({len(seen)})",
        "loopback only",
        not seen,
        note="; ".join(seen[:3]),
    )
    check = at_most("manage.py check, best of 3", vendor, check_seconds(database_url), 3, "s")
    ruler = min(reference.fresh_process(common.gateway_env(database_url)).times_ms) / 1000
    common.report([network, against(check, ruler, "python -m django --version, best of 3")])


if __name__ == "__main__":
    common.per_database(run, "bench")
