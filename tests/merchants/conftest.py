"""Fixtures of the merchants tests: a merchant subscribed to "trail" on a loopback receiver,
and real workers on the configured broker."""

from collections.abc import Iterator

import pytest

from gateway.celery import app
from tests.protocol import register
from tests.support.worker import Worker, purge


@pytest.fixture
def shop(client, receiver):
    return register(client, "shop-1", agent_endpoint=receiver.url, subscription_tags=["trail"])


@pytest.fixture
def broker_url() -> str:
    url: str = app.conf.broker_url
    purge(url)
    return url


@pytest.fixture
def waiting_worker(tmp_path, broker_url) -> Iterator[Worker]:
    """A worker (`celery -A gateway worker --beat`) the test starts when it chooses, e.g. once
    its tasks are waiting on the broker."""
    waiting = Worker(tmp_path, broker_url)
    yield waiting
    waiting.stop()
    print(waiting.log())  # shown when the test failed


@pytest.fixture
def worker(waiting_worker) -> Worker:
    """A worker running from the start of the test."""
    return waiting_worker.start()
