"""The world the contract's tests run in (world.py), and the contract fuzzing's counts
(tests/support/contract_stats.py prints them at the end)."""

import socket
import types
from collections.abc import Iterator

import pytest

from merchants import endpoints
from tests.contract.world import SUPPLY_KEY, Credentials, populate, resolve_to_loopback
from tests.support.contract_stats import ContractStats, stats
from tests.support.receiver import Receiver


@pytest.fixture
def contract_stats(request: pytest.FixtureRequest) -> ContractStats:
    return stats(request.config)


@pytest.fixture
def gateway(
    transactional_db, settings, client, engine, unthrottled, signing_key, monkeypatch
) -> Iterator[Receiver]:
    """The gateway as the contract's tests find it: a catalog, a merchant, an intent, the
    engine; throttling off, so that no 429 hides an answer."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_TIMEOUT_S = 1.0
    settings.SUPPLY_API_KEYS = [SUPPLY_KEY]
    # Every host name resolves (to loopback): a schema-valid endpoint whose host happens not to
    # exist in this machine's DNS would be refused, rightly, as not resolving.
    monkeypatch.setattr(
        endpoints,
        "socket",
        types.SimpleNamespace(getaddrinfo=resolve_to_loopback, SOCK_STREAM=socket.SOCK_STREAM),
    )
    with Receiver() as receiver:
        populate(client, receiver)
        try:
            yield receiver
        finally:
            Credentials.merchant_token = Credentials.supply_key = None
