"""A brand the shopper names (catalog/wanted.py): a keyword's word is a brand where the catalog
shows it is one, and its products of the wanted kind rank first. Through the whole stack:
HTTP, litellm to the scripted engine, retrieval on the database under test."""

import pytest

from catalog import wanted
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    (6001, "Nivia Storm Football", "Football"),
    (6002, "Nivia Ball Pump for Football", "Football"),
    (6003, "Nivia Football Socks", "Football"),
    (6004, "Nivia Shin Guard", "Football"),
    (6005, "Cosco Weekend Football", "Football"),
    (6006, "Football Kit Bag", "Football"),
]


shelf = shelf_fixture(SHELF)


def test_a_word_is_a_brand_where_it_leads_the_products_that_hold_it(shelf):
    assert wanted.brand(["nivia football"]) == "nivia"
    assert wanted.brand(["Football", "NIVIA"]) == "nivia"
    # "football" leads one title of the five that hold it; "cosco" leads one: no brands.
    assert wanted.brand(["football", "cosco"]) == ""


def test_the_brand_named_ranks_its_products_first(client, engine, shelf):
    # No product holds every keyword: the partial tier weighs the words, and "weekend", held by
    # one product, outweighs "nivia", held by four; the brand named still comes first.
    ids = served(
        client, engine, "nivia football for the weekend", ["nivia", "football", "weekend"],
        normalized="nivia football",
    )  # fmt: skip

    assert ids[0] == 6001, ids  # the brand's football
    assert ids.index(6005) > max(ids.index(6002), ids.index(6003)), ids  # another's after
