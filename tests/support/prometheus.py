"""A real Prometheus server for the tests (Debian's `prometheus` package): the repository's
scrape configuration (ops/prometheus/prometheus.yml) rendered for a test's web role and token,
with a short scrape interval, on a free loopback port and a storage directory of its own.

Without the binaries the tests that need them skip, with the reason; where
GATEWAY_PROMETHEUS_TESTS=require (.ci/run sets it, as it installs the package) they fail.
"""

import contextlib
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests
import yaml

from tests.support.network import free_port, stop
from tests.support.worker import ROOT

REQUIRE = "GATEWAY_PROMETHEUS_TESTS"
CONFIG = ROOT / "ops" / "prometheus" / "prometheus.yml"
RULES = ROOT / "ops" / "prometheus" / "alerts.yml"


def binary(name: str) -> str:
    """The path of `prometheus` or `promtool`; skips the test without it (fails it where
    GATEWAY_PROMETHEUS_TESTS=require)."""
    found = shutil.which(name) or (
        f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None
    )
    if found:
        return found
    reason = f"{name} not found (apt-get install prometheus)"
    if os.environ.get(REQUIRE) == "require":
        pytest.fail(f"{reason}, and {REQUIRE}=require", pytrace=False)
    pytest.skip(reason)


def rendered_config(directory: Path, *, target: str, token: str, interval: str = "1s") -> Path:
    """The repository's scrape configuration for one target, its token in a file, its rules
    named by their absolute path; written under `directory`."""
    config = yaml.safe_load(CONFIG.read_text())
    config["global"]["scrape_interval"] = config["global"]["evaluation_interval"] = interval
    config["rule_files"] = [str(RULES)]
    (job,) = config["scrape_configs"]
    token_file = directory / "metrics-token"
    token_file.write_text(token)
    token_file.chmod(0o600)
    job["authorization"]["credentials_file"] = str(token_file)
    job["static_configs"] = [{"targets": [target]}]
    path = directory / "prometheus.yml"
    path.write_text(yaml.safe_dump(config))
    return path


class Prometheus:
    """`prometheus` on a free loopback port, until the block ends."""

    def __init__(self, directory: Path, config: Path) -> None:
        self.port = free_port()
        self.log_path = directory / "prometheus.log"
        self.command = [
            binary("prometheus"),
            f"--config.file={config}",
            f"--storage.tsdb.path={directory / 'data'}",
            f"--web.listen-address=127.0.0.1:{self.port}",
            "--log.level=warn",
        ]
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "Prometheus":
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: S603 - the binary of Debian's package
                self.command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(requests.RequestException):
                if requests.get(f"{self.url}/-/ready", timeout=2).status_code == 200:
                    return self
            assert self.process.poll() is None, f"prometheus stopped:\n{self.log()}"
            assert time.monotonic() < deadline, f"prometheus did not start:\n{self.log()}"
            time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        assert self.process is not None
        stop(self.process)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, **params: str) -> Any:
        answer = requests.get(f"{self.url}/api/v1/{path}", params=params, timeout=10)
        body = orjson.loads(answer.content)
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expression: str) -> float | None:
        """The value of an expression that yields one sample, or None while it yields none."""
        result = self.api("query", query=expression)["result"]
        if not result:
            return None
        assert len(result) == 1, result
        return float(result[0]["value"][1])

    def wait_for(self, expression: str, at_least: float = 1, timeout: float = 60) -> float:
        """The expression's value once it is at least `at_least` (each scrape takes a second)."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.query(expression)
            if found is not None and found >= at_least:
                return found
            assert time.monotonic() < deadline, f"{expression} stayed {found}:\n{self.log()}"
            time.sleep(0.5)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
