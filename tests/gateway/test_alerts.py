"""The alert rules and the scrape configuration are valid for Prometheus's own checker, and
the Grafana dashboard reads only series the gateway exports."""

import json
import re
import subprocess

import pytest

from tests.support.prometheus import CONFIG, RULES, binary, rendered_config
from tests.support.worker import ROOT

DASHBOARD = ROOT / "ops" / "grafana" / "gateway.json"


@pytest.mark.processes
def test_promtool_checks_the_alert_rules():
    done = subprocess.run(  # noqa: S603 - the binary of Debian's package
        [binary("promtool"), "check", "rules", str(RULES)], capture_output=True, text=True
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS: 21 rules found" in done.stdout


@pytest.mark.processes
def test_promtool_checks_the_scrape_configuration(tmp_path):
    # As committed, its token file (/etc/prometheus/...) does not exist here: rendered, it does.
    config = rendered_config(tmp_path, target="127.0.0.1:8000", token="t" * 32)
    done = subprocess.run(  # noqa: S603 - the binary of Debian's package
        [binary("promtool"), "check", "config", str(config)], capture_output=True, text=True
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert CONFIG.read_text().count("job_name") == 1


def test_the_dashboard_and_the_rules_name_only_exported_series():
    exported = set(re.findall(r"^(?:gateway|gen_ai|django)_\w+", _documented(), re.MULTILINE))
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    used = set()
    for text in [*expressions, RULES.read_text()]:
        # Series names, not their labels (`by (...)`, `name="value"`).
        text = re.sub(r"by \([^)]*\)|\w+[!=]~?\"[^\"]*\"", "", text)
        used |= set(re.findall(r"\b(?:gateway|gen_ai|django)_[a-z_]+", text))

    def family(name: str) -> str:
        return re.sub(r"_(bucket|sum|count|total)$", "", name)

    assert {family(name) for name in used} <= {family(name) for name in exported}


def _documented() -> str:
    """The metric names of docs/alerts.md's table, one a line."""
    text = (ROOT / "docs" / "alerts.md").read_text()
    return "\n".join(re.findall(r"^\| `([a-z_]+)`", text, re.MULTILINE))
