"""The fault suite's harness: real workers, a Redis of the test's own, and the tally every
fault test prints: what was created, delivered, duplicated and lost."""

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import OperationalError, close_old_connections, connection

from gateway.celery import app
from merchants.models import DeliveryStatus, WebhookDelivery
from tests.support.network import free_port
from tests.support.receiver import Receiver
from tests.support.worker import purge

FAULTS = Path(__file__).resolve().parent
TALLY = "fault tally"  # the user property a fault test's tally travels in, from any worker
_tallies: list[str] = []  # the run's tallies, printed at its end (pytest_terminal_summary)


@pytest.fixture(autouse=True)
def _apart(request: pytest.FixtureRequest) -> None:
    """The fault suite holds workers to deadlines and stops servers: it never runs beside the
    rest of the suite (`make test` runs it in a pytest of its own, two fault tests at a time),
    and a test that stops the PostgreSQL server every test shares, or holds roles to a deadline
    another test's load would break (marked `alone`), runs with no test beside it at all."""
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) <= 1:
        return
    if request.node.get_closest_marker("alone") is not None:
        pytest.skip("runs with no test beside it: `pytest -m alone tests/faults`")
    if any(not Path(item.path).is_relative_to(FAULTS) for item in request.session.items):
        pytest.skip("the fault suite runs apart from the rest: `pytest tests/faults`")


@pytest.fixture
def broker_url() -> str:
    url: str = app.conf.broker_url
    purge(url)
    return url


class RedisServer:
    """A Redis of the test's own on a free port, so stopping it disturbs nothing else."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603 - a fixed command line
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)


def use_broker(url: str) -> None:
    """Send this process's tasks to `url`, dropping connections pooled for the previous one."""
    app.conf["broker_url"] = url
    app._pool = None  # type: ignore[attr-defined]
    app.amqp._producer_pool = None  # type: ignore[attr-defined]


@pytest.fixture
def private_redis(settings) -> Iterator[RedisServer]:
    """The gateway's cache and broker pointed at a Redis the test can stop and start."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server on PATH (apt-get install redis-server)")
    server = RedisServer()
    server.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": server.url,
        }
    }
    configured = app.conf.broker_url
    use_broker(server.url)
    yield server
    server.stop()
    use_broker(configured)


@dataclass(frozen=True)
class Tally:
    created: int  # deliveries the intents called for (one per fitting merchant and intent)
    delivered: int  # of those, answered 2xx at least once
    duplicated: int  # requests beyond the first of a delivered event (same webhook-id)
    lost: int  # called for, but without a row, or a row neither delivered nor accounted for


def tally(merchants: dict[str, Receiver], intent_ids: set[str]) -> Tally:
    """Count what the merchants on loopback received against what the intents called for.

    A delivery is accounted for when it succeeded, waits for a scheduled retry, or failed for
    a reason it records (410, attempts exhausted): only an event with none of these is lost.
    """
    rows = {
        (row.merchant.merchant_id, row.event.intent_id): row
        for row in WebhookDelivery.objects.select_related("merchant", "event")
    }
    created = delivered = duplicated = lost = 0
    for merchant_id, receiver in merchants.items():
        seen: dict[str, int] = {}
        for request in receiver.received:
            seen[request.headers["webhook-id"]] = seen.get(request.headers["webhook-id"], 0) + 1
        for intent_id in intent_ids:
            created += 1
            row = rows.get((merchant_id, intent_id))
            if row is None:
                lost += 1
            elif row.status == DeliveryStatus.SUCCEEDED:
                delivered += 1
                duplicated += seen.get(row.event_id, 0) - 1
            elif row.status == DeliveryStatus.FAILED and row.last_error:
                pass  # given up on, with its reason: the merchant asked for it (410) or is gone
            elif row.status == DeliveryStatus.PENDING and row.attempt_count >= 1:
                pass  # waiting for its next retry
            else:
                lost += 1
    return Tally(created, delivered, duplicated, lost)


@pytest.fixture
def report(request: pytest.FixtureRequest) -> Callable[[str, Tally], None]:
    """Keep a fault test's tally for the end of the run, passed or not (pytest_terminal_summary
    prints it, on parallel workers too)."""

    def keep(name: str, counted: Tally) -> None:
        request.node.user_properties.append(
            (
                TALLY,
                f"fault: {name}: created {counted.created}, delivered {counted.delivered}, "
                f"duplicated {counted.duplicated} (same webhook-id), lost {counted.lost}",
            )
        )

    return keep


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":  # the last report of a test: it holds all it kept
        _tallies.extend(str(line) for name, line in report.user_properties if name == TALLY)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _tallies:
        terminalreporter.section("fault tallies")
        for line in _tallies:
            terminalreporter.write_line(line)


def own_cluster(does: str) -> list[str]:
    """The pg_ctlcluster command of the local PostgreSQL server, for a test that stops or
    restarts it (`does`): skipped unless the database is PostgreSQL, the server is the test
    run's own (GATEWAY_FAULTS_RESTART_DB=1, as `.ci/run` sets) and is the one local cluster."""
    if connection.vendor != "postgresql" or os.environ.get("GATEWAY_FAULTS_RESTART_DB") != "1":
        pytest.skip(
            f"{does} the PostgreSQL server: only on PostgreSQL with GATEWAY_FAULTS_RESTART_DB=1"
        )
    pg_ctlcluster = shutil.which("pg_ctlcluster")
    versions = sorted(os.listdir("/etc/postgresql")) if Path("/etc/postgresql").is_dir() else []
    if pg_ctlcluster is None or len(versions) != 1:
        pytest.skip("no single local PostgreSQL cluster")
    return [pg_ctlcluster, "--skip-systemctl-redirect", versions[0], "main"]


def database_answers() -> bool:
    close_old_connections()
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True
    except OperationalError:
        connection.close()
        return False
