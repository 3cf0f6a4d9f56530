"""The catalog's statistics (catalog/versions.py, `statistic`): how many products hold a word,
whether a word is the catalog's, how many are of a type. An edit of a few products keeps them,
as search hits are not kept; an answer of none and a write of a large share of the catalog
are read anew. Through the importer and the admin's save, on the test database and the shared
cache."""

import orjson
import pytest
from django.core.cache import caches
from django.urls import reverse

from catalog import fulltext, holdings, versions
from catalog.importer import catalog_import
from catalog.search import SearchQuery, retrieve
from kernel import cache
from tests.catalog.test_import import product_line
from tests.support.forms import current_form_data

pytestmark = pytest.mark.django_db

WORD_TIERS = ("raw_substring", "strict", "narrow")


def imported(django_capture_on_commit_callbacks, lines: list[dict]) -> None:
    """`lines` imported and committed, then read as a process does CHECK_S later: the shared
    tokens read again, nothing else of its memory let go."""
    with django_capture_on_commit_callbacks(execute=True):
        catalog_import(lines=[orjson.dumps(line) for line in lines])
    cache.forget([f"{versions.KEY}:seen", f"{versions.STATISTICS_KEY}:seen"])


def kettle(product_id: int) -> dict:
    return product_line(product_id, title=f"Steelbrook Electric Kettle {product_id}", tags=[])


def serum(product_id: int) -> dict:
    return product_line(product_id, tags=[])


def ids(words: str) -> set[int]:
    """The products the word tiers find for `words` (the fallback tiers left out)."""
    found = retrieve(SearchQuery(text=words, keywords=[words], categories=[]), 50).hits
    return {hit.product_id for hit in found if hit.tier in WORD_TIERS}


def test_an_edit_of_a_few_products_keeps_the_counts_but_not_the_search_hits(
    django_capture_on_commit_callbacks,
):
    imported(django_capture_on_commit_callbacks, [kettle(n) for n in range(1, 4)])
    imported(django_capture_on_commit_callbacks, [serum(n) for n in range(4, 41)])
    assert fulltext.documents_with("kettl", 100) == 3
    assert holdings.typed("kettl") == 3
    version, searched = versions.current(), ids("kettle")
    assert searched == {1, 2, 3}

    # One product of 41 becomes a kettle: its search hits are read anew at once...
    imported(django_capture_on_commit_callbacks, [kettle(40)])
    assert versions.current() != version
    assert ids("kettle") == {1, 2, 3, 40}
    # ...while the counts it weighs by stay as they were, one product off at most.
    assert fulltext.documents_with("kettl", 100) == 3
    assert holdings.typed("kettl") == 3


def test_a_word_an_edit_brings_is_counted_at_once(django_capture_on_commit_callbacks):
    imported(django_capture_on_commit_callbacks, [serum(n) for n in range(1, 41)])
    assert fulltext.documents_with("kettl", 100) == 0
    assert not fulltext.is_word("kettle")
    assert holdings.typed("kettl") == 0

    imported(django_capture_on_commit_callbacks, [kettle(41)])

    assert fulltext.documents_with("kettl", 100) == 1
    assert fulltext.is_word("kettle")
    assert holdings.typed("kettl") == 1
    assert ids("kettle") == {41}


def test_a_write_of_a_large_share_of_the_catalog_recounts(django_capture_on_commit_callbacks):
    imported(django_capture_on_commit_callbacks, [kettle(n) for n in range(1, 4)])
    imported(django_capture_on_commit_callbacks, [serum(n) for n in range(4, 41)])
    assert fulltext.documents_with("kettl", 100) == 3

    # Five products of 45: more than a tenth of the catalog (catalog/upkeep.py, STALE_SHARE).
    imported(django_capture_on_commit_callbacks, [kettle(n) for n in range(41, 46)])

    assert fulltext.documents_with("kettl", 100) == 8
    assert holdings.typed("kettl") == 8


def test_an_admin_edit_of_one_product_keeps_the_counts(
    django_capture_on_commit_callbacks, admin_client
):
    imported(django_capture_on_commit_callbacks, [kettle(n) for n in range(1, 4)])
    imported(django_capture_on_commit_callbacks, [serum(n) for n in range(4, 41)])
    assert fulltext.documents_with("kettl", 100) == 3
    statistics = caches["default"].get(versions.STATISTICS_KEY)

    url = reverse("admin:catalog_product_change", args=[40])
    data = current_form_data(admin_client.get(url).content.decode())
    with django_capture_on_commit_callbacks(execute=True):
        saved = admin_client.post(url, {**data, "title": "Steelbrook Electric Kettle 40"})
    assert saved.status_code == 302
    cache.forget([f"{versions.KEY}:seen", f"{versions.STATISTICS_KEY}:seen"])

    assert ids("kettle") == {1, 2, 3, 40}
    assert fulltext.documents_with("kettl", 100) == 3
    assert caches["default"].get(versions.STATISTICS_KEY) == statistics
