"""UCP's catalog at the rate a client may ask: a lookup's ids count one by one against the
`cards` allowance, a search cursor is its searcher's alone and unreadable, and a price filter
outside what a price can be is refused before anything is recorded."""

import base64
import contextlib
import re
import zlib
from typing import Any

import orjson
import pytest

from catalog.models import Recommendation
from matching.models import Intent
from tests.agents import ucp_validation as schemas
from tests.agents.test_ucp import SHOES, post, search, valid
from tests.factories import ProductFactory

pytestmark = pytest.mark.django_db

CARDS_RATE = 150  # per minute: three lookups of 50 ids
ADDRESS = "10.0.0.7"  # another client than the test client's 127.0.0.1


def from_address(client, path: str, body: Any, address: str):
    return client.post(
        path, orjson.dumps(body), content_type="application/json", REMOTE_ADDR=address
    )


@pytest.fixture
def fifty(db) -> list[str]:
    return [str(ProductFactory().id) for _ in range(50)]


@pytest.fixture
def cards_rate(settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "cards": f"{CARDS_RATE}/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


def test_lookups_record_no_more_cards_than_the_cards_allowance(client, fifty, cards_rate):
    statuses = []
    for _ in range(100):
        response = post(client, "/ucp/catalog/lookup", {"ids": fifty})
        statuses.append(response.status_code)
        if response.status_code == 429:
            refused = valid(schemas.ERROR_RESPONSE, response.json())
            assert refused["messages"][0]["code"] == "throttled"
            assert int(response.headers["Retry-After"]) > 0

    # 100 lookups of 50 ids asked for 5,000 cards: the allowance records 150 a minute.
    assert statuses[:3] == [200, 200, 200]
    assert set(statuses[3:]) == {429}
    assert Recommendation.objects.count() == CARDS_RATE


def test_a_lookup_that_does_not_fit_what_is_left_records_nothing(client, fifty, cards_rate):
    for _ in range(2):
        assert post(client, "/ucp/catalog/lookup", {"ids": fifty}).status_code == 200
    assert post(client, "/ucp/catalog/lookup", {"ids": fifty[:39]}).status_code == 200
    # 139 of 150 taken; a refused lookup counts as the one request it is.

    refused = post(client, "/ucp/catalog/lookup", {"ids": fifty[:20]})
    accepted = post(client, "/ucp/catalog/lookup", {"ids": fifty[:10]})
    elsewhere = from_address(client, "/ucp/catalog/lookup", {"ids": fifty}, "10.0.0.9")

    assert refused.status_code == 429
    assert accepted.status_code == 200
    assert elsewhere.status_code == 200  # the allowance is each client's own
    assert Recommendation.objects.count() == 50 + 50 + 39 + 10 + 50


# --- Search cursors -----------------------------------------------------------------------------


def _first_page(client, engine) -> tuple[dict[str, Any], dict[str, Any]]:
    engine.answer("running shoes", **SHOES)
    body: dict[str, Any] = {"query": "running shoes", "pagination": {"limit": 2}}
    return body, search(client, body)


def test_a_cursor_followed_by_another_client_is_refused_and_records_nothing(client, shelf, engine):
    body, first = _first_page(client, engine)
    cursor = first["pagination"]["cursor"]
    recorded = Recommendation.objects.count()

    replayed = from_address(
        client,
        "/ucp/catalog/search",
        {**body, "pagination": {"limit": 2, "cursor": cursor}},
        ADDRESS,
    )

    assert replayed.status_code == 400
    refused = valid(schemas.ERROR_RESPONSE, replayed.json())
    assert refused["messages"][0]["code"] == "invalid_cursor"
    assert "another client" in refused["messages"][0]["content"]
    assert Recommendation.objects.count() == recorded
    # The searcher itself follows it.
    own = search(client, {**body, "pagination": {"limit": 2, "cursor": cursor}})
    assert Recommendation.objects.count() == recorded + len(own["products"])


def _readings(cursor: str) -> list[bytes]:
    """Every plain text a cursor gives up to whoever holds it: its text, each part of it read
    as base64, and each of those inflated where it is compressed."""
    readings = [cursor.encode()]
    for part in re.split(r"[.:]", cursor):
        try:
            decoded = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        except ValueError:
            continue
        readings.append(decoded)
        with contextlib.suppress(zlib.error):
            readings.append(zlib.decompress(decoded))
    return readings


def test_a_cursor_does_not_carry_the_query_in_readable_form(client, shelf, engine):
    _body, first = _first_page(client, engine)
    cursor = first["pagination"]["cursor"]

    for reading in _readings(cursor):
        assert b"running" not in reading
        assert b"intent" not in reading


# --- Price filters ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "price",
    [b'{"max": 1e308}', b'{"min": 1e300}', b'{"max": -1}', b'{"max": 1e999}', b'{"max": NaN}'],
)
@pytest.mark.parametrize("path", ["/ucp/catalog/search", "/ucp/catalog/lookup"])
def test_a_price_filter_out_of_range_is_a_400_before_anything_is_recorded(
    client, shelf, engine, path, price
):
    engine.answer("running shoes", **SHOES)
    asked = b'"query": "running shoes"' if path.endswith("search") else b'"ids": ["2001"]'
    raw = b"{" + asked + b', "filters": {"price": ' + price + b"}}"

    response = client.post(path, raw, content_type="application/json")

    assert response.status_code == 400
    valid(schemas.ERROR_RESPONSE, response.json())
    assert Intent.objects.count() == 0
    assert Recommendation.objects.count() == 0
    assert engine.calls == []


def test_the_highest_price_a_product_can_carry_is_a_filter_that_keeps_every_product(
    client, shelf, engine
):
    engine.answer("running shoes", **SHOES)

    answer = search(client, {"query": "running shoes", "filters": {"price": {"max": 10**12 - 1}}})

    assert answer["products"]
