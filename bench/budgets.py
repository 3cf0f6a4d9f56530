"""`make bench`: every budget of DESIGN.md section 11, measured over the path that is served, in
one table, and that table written into docs/benchmarks.md.

Runs each scenario module in turn (each prints its own figures as it goes), collects their
figures, and ends with one table: each figure on SQLite and on PostgreSQL + Redis with its ratio
to its reference (bench/reference.py), its budget in milliseconds (or requests a second) and in
ratio, and whether both are met. The PostgreSQL column is filled when DATABASE_URL or
BENCH_POSTGRES_URL points to PostgreSQL (bench/common.py: the scratch databases). A scenario
that fails leaves its cells empty ("-"); the others still run. Asserts nothing.

    python bench/budgets.py                      # every scenario; the table into docs/benchmarks.md
    python bench/budgets.py --only cards,match   # some scenarios; docs/benchmarks.md untouched
    python bench/budgets.py --calibrate          # also writes the ratio budgets (idle machine!)

The ratio budgets (RATIOS, bench/ratio_budgets.json) translate each budget into its reference's
units on the machine the budgets were written for, idle: `--calibrate` measures, and for each
budget writes the budget divided by the reference's value (the mean over the databases).
docs/benchmarks.md gives the procedure.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common

SCRIPTS = [
    "startup",
    "catalog_import",
    "recommend_warm",
    "recommend_cold",
    "retrieval",
    "unconfigured",
    "ranking",
    "match",
    "cards",
    "search_100k",
    "concurrent_recommends",
    "probe_flood",
    "surge_isolation",
    "first_recommend",
    "repeated_queries",
    "stored_per_recommend",
    "agents",
    "ucp",
    "observability",
]
RATIOS = Path(__file__).with_name("ratio_budgets.json")
DOCS = common.ROOT / "docs" / "benchmarks.md"
BEGIN, END = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"

Cells = dict[str, dict[str, object]]  # vendor -> a figure (as bench/common.py reports it)


def collect(scripts: list[str]) -> tuple[list[dict[str, object]], list[str]]:
    """Every scenario's figures, and the scenarios that failed."""
    failed = []
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as results:
        env = {**os.environ, "BENCH_RESULTS": results.name}
        for script in scripts:
            path = Path(__file__).with_name(f"{script}.py")
            if subprocess.run([sys.executable, str(path)], env=env).returncode:  # noqa: S603
                failed.append(script)
        figures = [json.loads(line) for line in results if line.strip()]
    return figures, failed


def by_name(figures: list[dict[str, object]]) -> dict[str, Cells]:
    rows: dict[str, Cells] = {}
    for figure in figures:
        rows.setdefault(str(figure["name"]), {})[str(figure["vendor"])] = figure
    return rows


def ratio_met(cell: dict[str, object], budget: dict[str, float] | None) -> bool | None:
    ratio = cell.get("ratio")
    if budget is None or not isinstance(ratio, float | int):
        return None
    if "at_least" in budget:
        return ratio >= budget["at_least"]
    return ratio <= budget["at_most"]


def verdict(cells: Cells, budget: dict[str, float] | None) -> str:
    """Whether the budget is met: in its own unit, as DESIGN.md states it, on every database.
    The ratios beside say what the milliseconds alone cannot: a budget missed with its ratio
    met points at a machine slower than at calibration, a ratio missed with the budget met at
    a gateway that did not get as much faster as its reference did."""
    missed = [common.VENDORS[vendor] for vendor, cell in cells.items() if cell["met"] is False]
    ratios = {vendor: ratio_met(cell, budget) for vendor, cell in cells.items()}
    over = [f"{common.VENDORS[vendor]} ratio" for vendor, met in ratios.items() if met is False]
    if missed:
        within = [
            common.VENDORS[v] for v, cell in cells.items() if cell["met"] is False and ratios[v]
        ]
        note = f"; ratio met on {', '.join(within)}: a slower machine" if within else ""
        return f"NO ({', '.join(missed)}){note}"
    if not any(cell["met"] for cell in cells.values()):
        return ""
    return f"yes; over: {', '.join(over)}" if over else "yes"


def cell_text(cell: dict[str, object] | None) -> str:
    if cell is None:
        return "-"
    ratio = cell.get("ratio")
    if isinstance(ratio, float | int):
        return f"{cell['value']} (x{ratio:,.3g})"
    return str(cell["value"])


def budget_text(budget: dict[str, float] | None) -> str:
    if budget is None:
        return ""
    if "at_least" in budget:
        return f">= x{budget['at_least']:,.3g}"
    return f"<= x{budget['at_most']:,.3g}"


def table(figures: list[dict[str, object]], ratios: dict[str, dict[str, float]]) -> list[str]:
    """The figures as a Markdown table."""
    lines = [
        ["figure", *common.VENDORS.values(), "budget", "ratio budget", "met?", "x: ratio to"],
    ]
    for name, cells in by_name(figures).items():
        budget = next((str(cell["budget"]) for cell in cells.values() if cell["budget"]), "")
        has_limit = any(cell.get("limit") is not None for cell in cells.values())
        ratio_budget = ratios.get(name) if has_limit else None
        if has_limit and ratio_budget is None and any(c.get("ratio") for c in cells.values()):
            shown_budget = "not calibrated"
        else:
            shown_budget = budget_text(ratio_budget)
        reference = next((str(c["reference"]) for c in cells.values() if c.get("reference")), "")
        values = [cell_text(cells.get(vendor)) for vendor in common.VENDORS]
        lines.append([name, *values, budget, shown_budget, verdict(cells, ratio_budget), reference])
    rendered = ["| " + " | ".join(line) + " |" for line in lines]
    rendered.insert(1, "|" + "---|" * len(lines[0]))
    return rendered


def machine(load_at_start: tuple[float, float, float]) -> dict[str, str]:
    """What the figures were measured on: when, the processor, the load at start and end."""
    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.processor(),
    )  # fmt: skip
    start, end = (", ".join(f"{n:.2f}" for n in load) for load in (load_at_start, os.getloadavg()))
    return {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{model}, {os.cpu_count()} cores",
        "load": f"load average (1, 5, 15 min) {start} at the start, {end} at the end",
    }


def calibrate(figures: list[dict[str, object]], ratios: dict[str, dict[str, float]]) -> None:
    """Each budget in its reference's units, from this run: budget / the reference's value."""
    for name, cells in by_name(figures).items():
        references = [
            float(cell["measured"]) / float(cell["ratio"])  # type: ignore[arg-type]
            for cell in cells.values()
            if cell.get("limit") is not None and cell.get("ratio")
        ]
        if not references:
            continue
        cell = next(iter(cells.values()))
        limit = float(cell["limit"]) / (sum(references) / len(references))  # type: ignore[arg-type]
        ratios[name] = {"at_least" if cell["higher_is_better"] else "at_most": round(limit, 4)}


def write_docs(lines: list[str], measured: dict[str, str]) -> None:
    text = DOCS.read_text()
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607 - git from PATH
        cwd=common.ROOT, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    said = (
        f"Measured {measured['when']} on commit {commit}, {measured['machine']}; "
        f"{measured['load']}."
    )
    DOCS.write_text(f"{head}{BEGIN}\n{said}\n\n" + "\n".join(lines) + f"\n{END}{tail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="scenarios to run, comma-separated (docs left alone)")
    parser.add_argument("--calibrate", action="store_true", help="write the ratio budgets")
    args = parser.parse_args()
    scripts = args.only.split(",") if args.only else SCRIPTS
    unknown = set(scripts) - set(SCRIPTS)
    if unknown:
        parser.error(f"no such scenario: {', '.join(sorted(unknown))}")
    saved = json.loads(RATIOS.read_text())
    load_at_start = os.getloadavg()
    figures, failed = collect(scripts)
    measured = machine(load_at_start)
    if args.calibrate:
        calibrate(figures, saved["ratios"])
        saved["calibrated"] = measured
        RATIOS.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
        print(f"\nRatio budgets written to {RATIOS.relative_to(common.ROOT)}.")
    lines = table(figures, saved["ratios"])
    print("\n== DESIGN.md section 11: figures against their budgets\n")
    print("\n".join(lines))
    for figure in figures:
        if figure["note"]:
            print(f"{common.VENDORS[str(figure['vendor'])]}, {figure['name']}: {figure['note']}")
    if not common.postgres_server():
        print("\nPostgreSQL: not measured (set BENCH_POSTGRES_URL or DATABASE_URL to a server).")
    if failed:
        print(f"\nFailed, their figures missing: {', '.join(failed)}")
    if not args.only:
        write_docs(lines, measured)
        print(f"\nThe table is in {DOCS.relative_to(common.ROOT)}.")


if __name__ == "__main__":
    main()
