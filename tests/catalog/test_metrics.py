"""The catalog's metrics: its size and freshness read at scrape time, and throttled requests
counted by scope, read back from `GET /metrics`."""

import time

import pytest

from catalog.services import cards_issue, products_with_videos
from catalog.versions import changed
from tests.factories import ProductFactory
from tests.support.metrics import Scrapes, scrape, value

pytestmark = pytest.mark.django_db


def test_the_catalogs_size_and_last_change(client, django_capture_on_commit_callbacks):
    ProductFactory.create_batch(3)
    with django_capture_on_commit_callbacks(execute=True):
        changed()  # what an import or an edit says once it commits

    text = scrape(client)

    assert value(text, "gateway_catalog_products") == 3
    changed_at = value(text, "gateway_catalog_last_change_timestamp_seconds")
    assert time.time() - 60 < changed_at <= time.time()


def test_throttled_requests_are_counted_by_scope(client, shelf, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "cards": "1/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    rec_id = cards_issue(products=[products_with_videos().get(id=2001)], channel=None)[0]["rec_id"]
    scrapes = Scrapes(client)

    answers = [client.get(f"/v1/cards/{rec_id}").status_code for _ in range(3)]

    assert answers == [200, 429, 429]
    assert scrapes.moved("gateway_throttled_requests_total", scope="cards") == 2
    assert scrapes.moved("gateway_throttled_requests_total", scope="recommend") == 0
