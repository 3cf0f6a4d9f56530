"""Counts of the contract fuzzing, printed at the end of the run."""

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest


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


STATS_KEY = pytest.StashKey[ContractStats]()


def _stats(config: pytest.Config) -> ContractStats:
    if STATS_KEY not in config.stash:
        config.stash[STATS_KEY] = ContractStats()
    return config.stash[STATS_KEY]


@pytest.fixture
def contract_stats(request: pytest.FixtureRequest) -> ContractStats:
    return _stats(request.config)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    stats = _stats(config)
    if not stats.cases:
        return
    failed = ": " + ", ".join(sorted(stats.failed)) if stats.failed else ""
    terminalreporter.write_sep("-", "contract fuzzing")
    terminalreporter.write_line(
        f"{len(stats.cases)} operations, {sum(stats.cases.values())} cases, "
        f"{len(stats.failed)} failing operations{failed}"
    )
    if config.option.verbose > 0:
        for operation, count in sorted(stats.cases.items()):
            terminalreporter.write_line(f"  {count:5d}  {operation}")
