"""The MCP conformance suite for the tests (npm's `@modelcontextprotocol/conformance`, at the
version pinned here and in the Makefile): its server scenarios run against a web role, the
checks each scenario made read back from the results it writes.

The suite runs on Node.js 22, which the machine's node may not be: `make conformance-tools`
installs both from npm into .venv/mcp-conformance (`make install` does not). Without them the
tests that need them skip, with the reason; where GATEWAY_MCP_CONFORMANCE_TESTS=require
(.ci/run sets it, as it installs them) they fail.
"""

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest
import yaml

from tests.support.worker import ROOT

REQUIRE = "GATEWAY_MCP_CONFORMANCE_TESTS"
VERSION = "0.2.0-alpha.12"
TOOLS = ROOT / ".venv" / "mcp-conformance" / "node_modules"
SUITE = TOOLS / "@modelcontextprotocol" / "conformance"
# A check's statuses, the least severe first. A warning fails a check as a failure does (the
# suite's own baseline rule).
SEVERITY = ("SUCCESS", "INFO", "SKIPPED", "WARNING", "FAILURE")
FAILING = {"FAILURE", "WARNING"}
COLOUR = re.compile(r"\x1b\[[0-9;]*m")
# Where the suite writes one scenario's checks: server-<scenario>-<when it ran>.
RESULT = re.compile(r"^server-(?P<scenario>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")


def _unavailable(reason: str) -> NoReturn:
    reason += " (make conformance-tools)"
    if os.environ.get(REQUIRE) == "require":
        pytest.fail(f"{reason}, and {REQUIRE}=require", pytrace=False)
    pytest.skip(reason)


def node() -> Path:
    """Node.js 22 of npm's node-linux-<arch> package; skips the test without it (fails it where
    GATEWAY_MCP_CONFORMANCE_TESTS=require)."""
    found = sorted(TOOLS.glob("node-linux-*/bin/node"))
    if not found:
        _unavailable(f"Node.js 22 not found under {TOOLS.relative_to(ROOT)}")
    return found[0]


def suite() -> Path:
    """The suite's command, at the pinned version; skips the test without it (fails it where
    GATEWAY_MCP_CONFORMANCE_TESTS=require)."""
    manifest = SUITE / "package.json"
    if not manifest.exists():
        _unavailable(f"the MCP conformance suite not found under {TOOLS.relative_to(ROOT)}")
    installed = json.loads(manifest.read_text())["version"]
    if installed != VERSION:
        _unavailable(f"the MCP conformance suite is {installed}, not {VERSION}")
    return SUITE / "dist" / "index.js"


@dataclass
class Run:
    """One run of the suite's server scenarios: its exit code, what it printed, and each check
    it made by `<scenario>:<check id>` (the suite's name for it) with its worst status and
    message."""

    returncode: int
    output: str
    checks: dict[str, tuple[str, str]]

    def failing(self) -> dict[str, str]:
        """The checks that failed or warned, with their messages."""
        return {key: message for key, (status, message) in self.checks.items() if status in FAILING}


def run_server_scenarios(
    url: str, revision: str, directory: Path, expected: list[str], timeout: float = 300
) -> Run:
    """The scenarios a revision requires (`--requirements`: frozen at its release, each run at
    the revision's own wire, 2026-07-28 statelessly), with `expected` as the suite's baseline of
    failing checks. Results go under `directory`."""
    command = suite()
    baseline = directory / "expected-failures.yml"
    baseline.write_text(yaml.safe_dump({"server": expected}))
    results = directory / "results"
    arguments = ["--url", url, "--requirements", revision, "--expected-failures", str(baseline)]
    done = subprocess.run(  # noqa: S603 - the pinned suite, against a loopback URL
        [str(node()), str(command), "server", *arguments, "--output-dir", str(results)],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    checks: dict[str, tuple[str, str]] = {}
    for path in sorted(results.glob("server-*/checks.json")):
        matched = RESULT.match(path.parent.name)
        assert matched, f"a result the suite names unlike the others: {path}"
        for check in json.loads(path.read_text()):
            key = f"{matched['scenario']}:{check['id']}"
            status = check["status"]
            # A check id may come more than once in a scenario: its worst status counts.
            if key in checks and SEVERITY.index(checks[key][0]) >= SEVERITY.index(status):
                continue
            message = check.get("errorMessage") or (check.get("details") or {}).get("message", "")
            checks[key] = (status, str(message))
    return Run(done.returncode, COLOUR.sub("", done.stdout + done.stderr), checks)
