"""`make bench`: every budget of DESIGN.md section 11, measured, in one table.

Runs each bench script in turn (each prints its own figures and details as it goes), collects
their figures, and ends with one table: figure | SQLite | PostgreSQL | budget | met?. The
PostgreSQL column is filled when DATABASE_URL or BENCH_POSTGRES_URL points to PostgreSQL (see
bench/common.py for the scratch databases). A script that fails leaves its cells empty ("-");
the others still run. Asserts nothing.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common

SCRIPTS = [
    "startup",
    "catalog_import",
    "recommend",
    "match",
    "cards",
    "search_100k",
    "concurrency",
    "agents",
]


def collect() -> tuple[list[dict[str, object]], list[str]]:
    """Every script's figures, and the scripts that failed."""
    failed = []
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl") as results:
        env = {**os.environ, "BENCH_RESULTS": results.name}
        for script in SCRIPTS:
            path = Path(__file__).with_name(f"{script}.py")
            if subprocess.run([sys.executable, str(path)], env=env).returncode:  # noqa: S603
                failed.append(script)
        figures = [json.loads(line) for line in results if line.strip()]
    return figures, failed


def verdict(cells: dict[str, dict[str, object]]) -> str:
    missed = [common.VENDORS[vendor] for vendor, cell in cells.items() if cell["met"] is False]
    if missed:
        return f"NO ({', '.join(missed)})"
    return "yes" if any(cell["met"] for cell in cells.values()) else ""


def table(figures: list[dict[str, object]]) -> list[str]:
    rows: dict[str, dict[str, dict[str, object]]] = {}
    for figure in figures:
        rows.setdefault(str(figure["name"]), {})[str(figure["vendor"])] = figure
    header = ["figure", *common.VENDORS.values(), "budget", "met?"]
    lines = [header]
    for name, cells in rows.items():
        budget = next((str(cell["budget"]) for cell in cells.values() if cell["budget"]), "")
        values = [
            str(cells[vendor]["value"]) if vendor in cells else "-" for vendor in common.VENDORS
        ]
        lines.append([name, *values, budget, verdict(cells)])
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    rendered = [
        " | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        for line in lines
    ]
    rendered.insert(1, "-+-".join("-" * width for width in widths))
    return rendered


def main() -> None:
    figures, failed = collect()
    print("\n== DESIGN.md section 11: figures against their budgets\n")
    for line in table(figures):
        print(line.rstrip())
    notes = [figure for figure in figures if figure["note"]]
    if notes:
        print()
    for figure in notes:
        print(f"{common.VENDORS[str(figure['vendor'])]}, {figure['name']}: {figure['note']}")
    if not common.postgres_server():
        print("\nPostgreSQL: not measured (set BENCH_POSTGRES_URL or DATABASE_URL to a server).")
    if failed:
        print(f"\nFailed, their figures missing: {', '.join(failed)}")


if __name__ == "__main__":
    main()
