"""Fixtures of the merchants tests: a merchant subscribed to "trail" on a loopback receiver."""

import pytest

from tests.protocol import register


@pytest.fixture
def shop(client, receiver):
    return register(client, "shop-1", agent_endpoint=receiver.url, subscription_tags=["trail"])
