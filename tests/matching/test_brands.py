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


KITS = [
    (6101, "Tinkerly Hydraulic Crane, STEM DIY Fun Toy", "STEM Toys"),
    (6102, "Tinkerly Space Rocket STEM Toy, Educational Activity", "STEM Toys"),
    (6103, "Tinkerly Kaleidoscope, STEM Educational DIY Toy", "STEM Toys"),
    (6104, "Robokit STEM DIY Kit, Brush Bots", "STEM Toys"),
    (6105, "Jewellery Making DIY Kit for Girls", "Craft Kits"),
]

kits = shelf_fixture(KITS, name="kits")


def test_the_brand_named_comes_before_another_brands_of_the_wanted_type(client, engine, kits):
    # The brand's titles name a crane, a rocket and a kaleidoscope, so the type read from them
    # is no kit; the shopper who names the brand still wants the brand's before another's kit.
    ids = served(
        client, engine, "tinkerly stem kit for my 10 year old", ["tinkerly", "stem kit", "diy kit"],
        normalized="tinkerly stem diy kit",
    )  # fmt: skip

    assert wanted.brand(["tinkerly", "stem kit"]) == "tinkerly"
    assert set(ids[:3]) == {6101, 6102, 6103}, ids
    assert ids[3:] == [6104, 6105], ids  # then the wanted type, of other brands
