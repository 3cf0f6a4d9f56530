import pytest

from tests.protocol import register


@pytest.fixture
def shop(client, receiver):
    """A merchant registered to receive trail intents, for the keys a merchant's POSTs take."""
    return register(client, "shop-1", agent_endpoint=receiver.url, subscription_tags=["trail"])
