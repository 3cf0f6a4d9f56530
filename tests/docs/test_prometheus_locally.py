"""docs/alerts.md's lines for trying the scrape configuration on `make run`, run as written in a
copy of the checkout's files they read (ops/prometheus/, a `.env` as `make` writes it): the
variant they write passes Prometheus's own checker, with the token `make run` reads."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.support.prometheus import binary
from tests.support.worker import ROOT

BLOCK = re.compile(r"<!-- prometheus: [^>]*-->\n```sh\n(.*?)```", re.DOTALL)

pytestmark = pytest.mark.processes


def documented() -> tuple[str, str]:
    """The block's lines that prepare, and its last command (which starts Prometheus)."""
    (block,) = BLOCK.findall((ROOT / "docs" / "alerts.md").read_text())
    prepare, start, command = block.rpartition("\nprometheus ")
    assert start, block
    return prepare, "prometheus " + command


def checkout(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "ops" / "prometheus", tmp_path / "ops" / "prometheus")
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    return tmp_path


def run(script: str, cwd: Path) -> None:
    done = subprocess.run(  # noqa: S603 - the documentation's own lines
        ["/bin/sh", "-ec", script], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_local_variant_passes_promtool_with_the_token_make_run_reads(tmp_path):
    promtool = binary("promtool")
    prepare, _ = documented()
    here = checkout(tmp_path)

    run(prepare, here)
    run(prepare, here)  # a second time: the token of the first stays

    (token,) = re.findall(r"^METRICS_TOKEN=(.+)$", (here / ".env").read_text(), re.MULTILINE)
    token_file = here / "var" / "prometheus" / "metrics-token"
    assert len(token) >= 32
    assert token_file.read_text().strip() == token
    assert token_file.stat().st_mode & 0o077 == 0
    config = here / "var" / "prometheus" / "prometheus.yml"
    (job,) = yaml.safe_load(config.read_text())["scrape_configs"]
    assert job["authorization"]["credentials_file"] == str(token_file)
    assert job["static_configs"] == [{"targets": ["127.0.0.1:8000"]}]  # where make run serves
    done = subprocess.run(  # noqa: S603 - the binary of Debian's package
        [promtool, "check", "config", str(config)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 1 rule files found" in done.stdout


def test_the_local_prometheus_keeps_to_loopback_and_var():
    _, command = documented()
    flags = dict(re.findall(r"--([\w.-]+)=(\S+)", command.replace("\\\n", " ")))

    assert flags["config.file"] == "var/prometheus/prometheus.yml"
    assert flags["storage.tsdb.path"].startswith("var/")
    assert flags["web.listen-address"].startswith("127.0.0.1:")
