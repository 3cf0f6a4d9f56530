"""The MCP conformance suite (tests/support/conformance.py) against the web role, at each
revision the gateway serves: the scenarios the revision requires, each failing check listed
with its reason in mcp_conformance_baseline.yml, and no other.

Without Node.js 22 and the suite (`make conformance-tools`) the test skips, saying so; where
GATEWAY_MCP_CONFORMANCE_TESTS=require (.ci/run) it fails.
"""

from pathlib import Path

import pytest
import yaml

from tests.support import conformance
from tests.support.worker import ROOT

BASELINE = Path(__file__).with_name("mcp_conformance_baseline.yml")
# Checks of each revision's own lifecycle, passed, beside everything else that passes.
LIFECYCLE = {
    "2025-11-25": "server-initialize:server-initialize",
    "2026-07-28": "server-stateless:sep-2575-server-implements-discover",
}


@pytest.fixture(scope="session")
def suite() -> None:
    """Skips (or fails) before the web role starts where the suite is missing."""
    conformance.node()
    conformance.suite()


def baseline(revision: str) -> dict[str, str]:
    """The checks expected to fail at `revision`, each with its reason."""
    listed: dict[str, str] = yaml.safe_load(BASELINE.read_text())["revisions"][revision]
    return listed


@pytest.mark.processes
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("revision", LIFECYCLE)
def test_the_gateway_passes_every_check_it_can_at_each_revision(suite, web, tmp_path, revision):
    expected = baseline(revision)

    run = conformance.run_server_scenarios(f"{web.url}/mcp", revision, tmp_path, list(expected))

    failing = run.failing()
    unexpected = {key: message for key, message in failing.items() if key not in expected}
    assert not unexpected, f"failing, and not in {BASELINE.name}: {unexpected}"
    stale = sorted(set(expected) - set(failing))
    assert not stale, f"listed in {BASELINE.name}, and not failing (now passes or not run): {stale}"
    # What needs nothing of the suite's own ran, and passed.
    for key in (LIFECYCLE[revision], "tools-list:tools-list", "tools-list:wire-schema-valid"):
        assert run.checks[key][0] == "SUCCESS", run.checks.get(key)
    # The suite's own verdict on the same baseline.
    assert run.returncode == 0, run.output[-4000:]


def test_make_conformance_tools_installs_the_version_the_test_pins():
    makefile = (ROOT / "Makefile").read_text()

    assert f"@modelcontextprotocol/conformance@{conformance.VERSION}\n" in makefile
