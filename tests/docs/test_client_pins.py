"""The client versions docs/agents.md pins are the ones the test suite runs its examples with
(tests/agents/test_examples.py): a newcomer who installs what it says gets clients known to work."""

import re
from importlib.metadata import version

from tests.support.worker import ROOT

# `pip install "name[extras]==version"` as the guide writes it.
PIN = re.compile(r'pip install "([A-Za-z0-9_.-]+)(?:\[[\w,-]+\])?==([^"]+)"')


def test_every_client_the_agents_guide_installs_is_pinned():
    text = (ROOT / "docs" / "agents.md").read_text()

    installs = re.findall(r"`pip install [^`]*`", text)
    pins = PIN.findall(text)

    assert len(installs) == len(pins) == 2, installs  # no install without its version
    assert {name for name, _ in pins} == {"a2a-sdk", "mcp"}


def test_the_pinned_versions_are_the_ones_the_suite_runs_with():
    text = (ROOT / "docs" / "agents.md").read_text()

    for name, pinned in PIN.findall(text):
        assert pinned == version(name), f"docs/agents.md pins {name}=={pinned}"
