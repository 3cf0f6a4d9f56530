from collections.abc import Iterator

import pytest

from tests.support.receiver import Receiver


@pytest.fixture
def loopback(settings):
    """Merchant endpoints on this machine are allowed, as in local development."""
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_TIMEOUT_S = 1.0
    return settings


@pytest.fixture
def receiver(loopback) -> Iterator[Receiver]:
    with Receiver() as merchant:
        yield merchant
