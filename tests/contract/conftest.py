"""The contract fuzzing's counts (tests/support/contract_stats.py prints them at the end)."""

import pytest

from tests.support.contract_stats import ContractStats, stats


@pytest.fixture
def contract_stats(request: pytest.FixtureRequest) -> ContractStats:
    return stats(request.config)
