"""Real Celery workers for the tests: `celery -A gateway worker -B` as a process of its own,
on the test database and the configured broker (the filesystem broker on the embedded default,
Redis when REDIS_URL is set), with beat embedded so the delivery sweeper runs."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.db import connection

from gateway.celery import app

ROOT = Path(__file__).resolve().parents[2]
QUEUES = ("celery", "webhooks", "webhooks-slow", "probes")


def database_url() -> str:
    """The test database, as a DATABASE_URL another process can open."""
    config: dict[str, Any] = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{config['NAME']}"
    auth = config["USER"] + (f":{config['PASSWORD']}" if config["PASSWORD"] else "")
    return f"postgres://{auth}@{config['HOST']}:{config['PORT'] or 5432}/{config['NAME']}"


def purge(broker_url: str) -> None:
    """Drop messages left on the queues by earlier tests (tasks for rows that are gone)."""
    with app.connection_for_write(broker_url) as conn:
        for queue in QUEUES:
            # A queue that was never declared has nothing to purge.
            with contextlib.suppress(Exception):
                conn.default_channel.queue_purge(queue)  # type: ignore[attr-defined]


def procfile_command(role: str) -> str:
    """The command line of a role of the Procfile, as honcho runs it for `make run`."""
    for line in (ROOT / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == role:
            return command.strip()
    raise KeyError(role)


class Worker:
    """One worker process and the log it writes: every queue with beat embedded, or one role of
    the Procfile as `make run` starts it (`role`)."""

    def __init__(
        self,
        tmp_path: Path,
        broker_url: str,
        name: str = "worker",
        env: dict[str, str] | None = None,
        role: str | None = None,
    ) -> None:
        self.log_path = tmp_path / f"{role or name}.log"
        self.broker_url = broker_url
        self.extra_env = env or {}
        self.role = role
        self.schedule = tmp_path / f"{name}-beat-schedule"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> "Worker":
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": self.broker_url,
            "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
            "WEBHOOK_ALLOW_HTTP": "true",
            "WEBHOOK_TIMEOUT_S": "1",
            "WEBHOOK_SWEEP_INTERVAL_S": "1",
            "MERCHANT_PROBE_INTERVAL_S": "86400",
            "INTENT_SWEEP_INTERVAL_S": "1",
            **self.extra_env,
        }
        # The Procfile's commands are found where this interpreter's are.
        env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"
        command = (
            ["/bin/sh", "-c", "exec " + procfile_command(self.role)]
            if self.role
            else self._all_queues()
        )
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - our own command line
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return self

    def _all_queues(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "gateway",
            "worker",
            "--beat",
            "--schedule",
            str(self.schedule),
            "--queues",
            ",".join(QUEUES),
            "--concurrency",
            "2",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"{self.log_path.stem}-{os.getpid()}@%h",
            "--loglevel",
            "INFO",
        ]

    def kill(self) -> None:
        """SIGKILL the worker, its pool children and its beat: no chance to clean up."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # a warm shutdown: the worker stops its pool and beat
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def wait_until(condition: Any, timeout: float = 60, what: str = "the condition") -> None:
    """Poll `condition()` until it is true; fail after `timeout` seconds (generous: on two
    parallel test workers a Celery worker shares the cores with both)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
