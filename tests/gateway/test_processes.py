"""The Procfile's roles under honcho, as `make run` starts them: on Ctrl-C every process stops by
itself (honcho kills whatever still runs 5 s after the first one stopped), while they run the
sweeps beat sends every second leave no line in the output, and the links `make run` prints
beside honcho (gateway/web_banner.py) come once the web role has started, not before."""

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from gateway.celery import app
from tests.support.network import free_port
from tests.support.worker import ROOT, database_url, purge, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

ROLES = ("web", "worker", "webhooks", "slow-webhooks", "probes", "beat")
READY = (
    "default@",
    "webhooks@",
    "slow-webhooks@",
    "probes@",
)


def procfile(tmp_path: Path) -> Path:
    """The Procfile as it is, but for beat's schedule file: in tmp_path rather than var/."""
    lines = [
        f"{line} --schedule {tmp_path / 'beat-schedule'}" if line.startswith("beat:") else line
        for line in (ROOT / "Procfile").read_text().splitlines()
    ]
    path = tmp_path / "Procfile"
    path.write_text("\n".join(lines) + "\n")
    return path


def started(output: str) -> bool:
    """Every worker ready, beat started, the web worker's application up."""
    lines = output.splitlines()
    workers = all(any(f"{name}" in line and "ready." in line for line in lines) for name in READY)
    return workers and "beat: Starting" in output and "Application startup complete" in output


def children(output: str) -> list[int]:
    """The process groups honcho started (each role runs in a session of its own)."""
    return [
        int(line.rsplit("pid=", 1)[1].rstrip(")"))
        for line in output.splitlines()
        if "started (pid=" in line
    ]


def make_run(tmp_path: Path) -> tuple[subprocess.Popen[bytes], subprocess.Popen[bytes], Path, str]:
    """The Procfile's roles under honcho and the banner beside them, as `make run` starts them
    (with fewer threads): their output goes to the file returned, with the web role's URL."""
    purge(app.conf.broker_url)
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": app.conf.broker_url,
        "HOST": "127.0.0.1",
        "PORT": str(free_port()),
        "WEB_CONCURRENCY": "1",
        "WEBHOOK_THREADS": "2",
        "SLOW_WEBHOOK_THREADS": "1",
        "PROBE_THREADS": "1",
        "WEBHOOK_SWEEP_INTERVAL_S": "1",
        "INTENT_SWEEP_INTERVAL_S": "1",
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
    }
    log_path = tmp_path / "honcho.log"
    with log_path.open("ab") as log:
        banner = subprocess.Popen(  # noqa: S603 - as `make run` starts it, into the same output
            [sys.executable, ROOT / "gateway" / "web_banner.py", "--base", "http://gw.example",
             "--url", f"http://127.0.0.1:{env['PORT']}"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        honcho = subprocess.Popen(  # noqa: S603 - the Procfile's own roles
            [Path(sys.executable).parent / "honcho", "-f", procfile(tmp_path), "-d", ROOT, "start"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return honcho, banner, log_path, f"http://127.0.0.1:{env['PORT']}"


def stop_all(honcho: subprocess.Popen[bytes], banner: subprocess.Popen[bytes], log: Path) -> None:
    """Kill whatever is left of `make run` (only if the test failed: never leave them)."""
    for pid in [honcho.pid, *children(log.read_text())]:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    honcho.wait(timeout=10)
    banner.kill()


@pytest.mark.processes
def test_every_role_stops_by_itself_when_make_run_is_interrupted(tmp_path):
    honcho, banner, log_path, _ = make_run(tmp_path)
    try:
        wait_until(lambda: started(log_path.read_text()), timeout=120, what="every role to start")
        assert banner.wait(timeout=60) == 0

        honcho.send_signal(signal.SIGINT)  # what Ctrl-C sends it
        returncode = honcho.wait(timeout=60)
    finally:
        stop_all(honcho, banner, log_path)
    output = log_path.read_text()
    print(output)  # shown when the test failed

    links = output.index("Gateway on http://gw.example ")
    assert output.index("Application startup complete") < links  # the web role answers then
    assert returncode == 130  # honcho's exit on SIGINT, which `make run` takes as no error
    for role in ROLES:
        assert f"{role}.1 stopped" in output
    assert "SIGKILL" not in output
    assert "ERROR" not in output  # e.g. a pool process killed by the SIGTERM meant for its parent
    assert "Sending due task" not in output
    assert ".sweep_deliveries[" not in output
    if os.geteuid() == 0:  # the Procfile's workers leave out Celery's warning about root
        assert "superuser privileges" not in output


def role_pid(output: str, role: str) -> int:
    """The process group honcho started for `role`: the role's supervisor (gateway/supervise.py)
    or, for web, gunicorn."""
    line = next(
        line for line in output.splitlines() if f"{role}.1" in line and "started (pid=" in line
    )
    return int(line.rsplit("pid=", 1)[1].rstrip(")"))


def ready_count(log: Path) -> int:
    """How many times the worker role said it was ready."""
    return sum("default@" in line and "ready." in line for line in log.read_text().splitlines())


def descendants(pid: int) -> list[int]:
    found = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [*found, *(grandchild for child in found for grandchild in descendants(child))]


def command_of(group: int) -> int:
    """The role's own Celery process, under its supervisor (gateway/supervise.py)."""
    found = [
        pid
        for pid in descendants(group)
        if (arguments := Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"))
        and b"gateway.supervise" not in arguments
        and any(argument.endswith(b"celery") for argument in arguments)
    ]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.processes
def test_a_role_that_ends_comes_back_and_the_others_run_on_under_make_run(tmp_path):
    honcho, banner, log_path, url = make_run(tmp_path)
    try:
        wait_until(lambda: started(log_path.read_text()), timeout=120, what="every role to start")
        supervisor = role_pid(log_path.read_text(), "worker")
        first = command_of(supervisor)

        os.kill(first, signal.SIGKILL)  # the worker role's Celery process ends, unannounced

        wait_until(lambda: ready_count(log_path) == 2, timeout=60, what="the worker role again")
        assert honcho.poll() is None  # honcho stopped nothing
        assert command_of(supervisor) != first
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:  # noqa: S310
            assert answer.status == 200
    finally:
        stop_all(honcho, banner, log_path)
    output = log_path.read_text()
    print(output)
    assert "supervise: celery ended (status -9); starting it again in 1 s" in output
