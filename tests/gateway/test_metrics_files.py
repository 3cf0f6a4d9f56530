"""The host's metrics directory (gateway/metrics_files.py): a fresh start removes the files of
the processes that ended and keeps those of the processes running; prometheus_client must not
be imported before the settings name the directory."""

import os
import subprocess
import sys

import pytest

from gateway import metrics_files
from tests.gateway.test_settings import ROOT


def _ended_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.processes
def test_the_files_of_ended_processes_go_those_of_running_ones_stay(tmp_path):
    alive, ended = os.getpid(), _ended_pid()
    for pid in (alive, ended):
        for kind in ("counter", "histogram", "gauge_livesum"):
            (tmp_path / f"{kind}_{pid}.db").write_bytes(b"")

    assert metrics_files.forget_dead(tmp_path) == 3

    assert sorted(path.name for path in tmp_path.iterdir()) == [
        f"counter_{alive}.db",
        f"gauge_livesum_{alive}.db",
        f"histogram_{alive}.db",
    ]


@pytest.mark.processes
def test_prometheus_client_imported_before_the_settings_stops_the_start(tmp_path):
    clean = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    clean.pop(metrics_files.VARIABLE, None)
    done = subprocess.run(
        [sys.executable, "-c", "import prometheus_client, gateway.settings"],
        cwd=ROOT / "docs",  # not tests/, whose own gateway package would shadow the real one
        env={
            **clean,
            "PYTHONPATH": str(ROOT),
            "METRICS_TOKEN": "t" * 32,
            "METRICS_DIR": str(tmp_path),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode != 0
    assert "prometheus_client was imported before the settings" in done.stderr
