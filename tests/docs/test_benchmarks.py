"""docs/benchmarks.md and `make bench` agree: every scenario module runs in `make bench` and is
described in the guide, and the guide has the one place where the table is written."""

import json
import re

from bench import budgets
from bench.common import ROOT

GUIDE = (ROOT / "docs" / "benchmarks.md").read_text()


def test_every_scenario_module_runs_in_make_bench():
    scenarios = {
        path.stem
        for path in (ROOT / "bench").glob("*.py")
        if "common.per_database(run" in path.read_text()
    }
    assert scenarios == set(budgets.SCRIPTS)


def test_the_guide_describes_every_scenario_module():
    described = set(re.findall(r"^\| `(\w+)\.py` \|", GUIDE, re.MULTILINE))
    assert described == set(budgets.SCRIPTS)


def test_the_guide_has_one_place_for_the_table():
    assert GUIDE.count(budgets.BEGIN) == 1
    assert GUIDE.count(budgets.END) == 1
    assert GUIDE.index(budgets.BEGIN) < GUIDE.index(budgets.END)


def test_ratio_budgets_are_ceilings_or_floors():
    saved = json.loads(budgets.RATIOS.read_text())
    for name, budget in saved["ratios"].items():
        assert len(budget) == 1, name
        ((kind, value),) = budget.items()
        assert kind in {"at_most", "at_least"}, name
        assert value > 0, name


def _cell(met: bool, ratio: float) -> dict[str, object]:
    return {"met": met, "ratio": ratio}


def test_the_budget_in_its_own_unit_binds_and_the_ratio_says_why():
    ceiling = {"at_most": 50.0}

    both = budgets.verdict({"sqlite": _cell(True, 40), "postgresql": _cell(True, 45)}, ceiling)
    ratio_over = budgets.verdict(
        {"sqlite": _cell(True, 40), "postgresql": _cell(True, 60)}, ceiling
    )
    slow_machine = budgets.verdict(
        {"sqlite": _cell(True, 40), "postgresql": _cell(False, 45)}, ceiling
    )
    slower_gateway = budgets.verdict(
        {"sqlite": _cell(False, 60), "postgresql": _cell(True, 45)}, ceiling
    )

    assert both == "yes"
    assert ratio_over == "yes; over: PostgreSQL ratio"
    assert slow_machine == "NO (PostgreSQL); ratio met on PostgreSQL: a slower machine"
    assert slower_gateway == "NO (SQLite)"
