"""A shopper who asks for it cheap and names no figure ("cheap wireless headphones", "a budget
smartwatch") is served the lower prices first within each tier's order of what a product is
(catalog/text.py's CHEAP, catalog/ordering.py): never a product of another kind for being
cheaper, and a product without a price last. Through the whole stack: HTTP, litellm to the
scripted engine, retrieval on the database under test."""

import pytest

from catalog import text
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # The shortest title: the database ranks it first on the words alone.
    (6001, "Wireless Headphones", "Headphones", "40.00"),
    (6002, "pTron Basic Wireless Headphones", "Headphones", "6.00"),
    (6003, "Zebronics Zeb Wireless Headphones", "Headphones", "12.00"),
    (6004, "Sony Studio Wireless Headphones", "Headphones", None),
    # Cheaper than any, and holding every word: an accessory of the thing, not the thing.
    (6005, "Stand for Wireless Headphones", "Headphones", "2.00"),
]


shelf = shelf_fixture(SHELF)


def test_asked_cheap_the_lower_prices_come_first_and_no_price_last(client, engine, shelf):
    ids = served(
        client,
        engine,
        "audifonos inalambricos baratos",
        ["wireless headphones"],
        ["Headphones"],
        normalized="cheap wireless headphones",
    )

    assert ids[:4] == [6002, 6003, 6001, 6004], ids
    assert ids[4] == 6005, ids  # the cheapest of all, but a stand: after the headphones


def test_asked_without_a_word_of_price_the_words_order_the_products(client, engine, shelf):
    ids = served(client, engine, "wireless headphones", ["wireless headphones"], ["Headphones"])

    assert ids[0] == 6001, ids
    assert set(ids) == {6001, 6002, 6003, 6004, 6005}, ids


def test_a_budget_with_a_figure_still_filters_and_cheap_still_orders(client, engine, shelf):
    words = "cheap wireless headphones under 20 dollars"
    ids = served(client, engine, words, ["wireless headphones"], ["Headphones"], budget_max=20)

    assert ids[:2] == [6002, 6003], ids
    assert 6001 not in ids, ids  # over the budget
    assert 6004 not in ids, ids  # no price: no budget holds it


@pytest.mark.parametrize(
    ("phrases", "cheap"),
    [
        (["cheap wireless headphones"], True),
        (["budget smartwatch"], True),
        (["the cheapest trimmer"], True),
        (["smartwatch", "Affordable"], True),
        (["wireless headphones"], False),
        (["cheapskate's guide"], False),  # a word, not a part of one
    ],
)
def test_the_words_that_ask_for_it_cheap(phrases, cheap):
    assert text.asks_cheap(phrases) is cheap
