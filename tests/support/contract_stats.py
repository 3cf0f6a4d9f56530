"""Counts of the contract fuzzing (tests/contract), printed at the end of the run. With parallel
workers (pytest-xdist) each worker counts the operations it ran and hands its counts to the
controller, which adds them up and prints the one line."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest

OUTPUT_KEY = "contract_stats"  # in a worker's `workeroutput`


@dataclass
class ContractStats:
    cases: dict[str, int] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)

    @contextmanager
    def recording(self, operation: str) -> Iterator[None]:
        """Counts one case of `operation`, and the operation as failing if the case fails."""
        self.cases[operation] = self.cases.get(operation, 0) + 1
        try:
            yield
        except BaseException:
            self.failed.add(operation)
            raise

    def add(self, counted: dict[str, Any]) -> None:
        """Adds the counts of another worker (`counted`: what `handed` gave there)."""
        for operation, count in counted["cases"].items():
            self.cases[operation] = self.cases.get(operation, 0) + count
        self.failed.update(counted["failed"])

    def handed(self) -> dict[str, Any]:
        return {"cases": self.cases, "failed": sorted(self.failed)}


STATS_KEY = pytest.StashKey[ContractStats]()


def stats(config: pytest.Config) -> ContractStats:
    if STATS_KEY not in config.stash:
        config.stash[STATS_KEY] = ContractStats()
    return config.stash[STATS_KEY]


def pytest_sessionfinish(session: pytest.Session) -> None:
    output = getattr(session.config, "workeroutput", None)  # set in xdist workers only
    if output is not None:
        output[OUTPUT_KEY] = stats(session.config).handed()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    counted = getattr(node, "workeroutput", {}).get(OUTPUT_KEY)
    if counted:
        stats(node.config).add(counted)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    counted = stats(config)
    if not counted.cases or hasattr(config, "workeroutput"):
        return
    failed = ": " + ", ".join(sorted(counted.failed)) if counted.failed else ""
    terminalreporter.write_sep("-", "contract fuzzing")
    terminalreporter.write_line(
        f"{len(counted.cases)} operations, {sum(counted.cases.values())} cases, "
        f"{len(counted.failed)} failing operations{failed}"
    )
    if config.option.verbose > 0:
        for operation, count in sorted(counted.cases.items()):
            terminalreporter.write_line(f"  {count:5d}  {operation}")
