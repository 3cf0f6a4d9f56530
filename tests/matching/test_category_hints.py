"""A resolution's categories are a hint (catalog/search.py, catalog/categories.py): categories
that hold nothing of what the shopper wants confine no tier, and a category named like a resolved
one comes after the resolved ones' products and before the rest, asked cheap too. Through the
whole stack: HTTP, litellm to the scripted engine, retrieval on the database under test."""

from decimal import Decimal

import pytest

from catalog import categories
from catalog.models import Product
from tests.matching.hint_shelf import SHELF
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

shelf = shelf_fixture(SHELF)


def test_categories_that_hold_nothing_of_the_wanted_kind_confine_no_tier(client, engine, shelf):
    ids = served(
        client, engine, "lunchbox for school kids", ["lunchbox", "school", "kids"], ["School Bags"]
    )

    # Confined to school bags, the strict tier would answer the backpack with a lunch box bag
    # first; the lunch box that holds every word comes first, and a lunchbox before the bag.
    assert ids[0] == 5007, ids
    assert ids.index(5009) < ids.index(5010), ids


def test_categories_that_hold_the_wanted_kind_still_come_first(client, engine, shelf):
    ids = served(client, engine, "school bag for kids", ["school bag", "kids"], ["School Bags"])

    assert ids[0] == 5010, ids


def test_a_category_named_like_the_resolved_one_comes_before_the_others(client, engine, shelf):
    """Every trimmer that says "men" stands outside the resolved category; the one in "Health &
    Personal Care", named like "Personal Care Appliances" by a word no other category holds,
    comes before the tummy trimmers, which hold "trimmer" more often."""
    ids = served(
        client, engine, "trimmer for men", ["trimmer", "men"], ["Personal Care Appliances"]
    )

    assert ids[0] == 5056, ids
    assert {5033, 5055} <= set(ids[1:3]), ids


def test_asked_cheap_a_category_named_like_the_resolved_one_still_comes_first(
    client, engine, shelf
):
    """Asked cheap, the cheapest come first only after the categories: the cheaper tummy
    trimmer, outside them, after the trimmer of "Health & Personal Care"."""
    Product.objects.filter(pk=5055).update(price_usd=Decimal("2.00"))
    ids = served(
        client,
        engine,
        "cheap trimmer for men",
        ["trimmer", "men"],
        ["Personal Care Appliances"],
        normalized="cheap trimmer for men",
    )

    assert ids[0] == 5056, ids
    assert ids.index(5055) < ids.index(5033), ids  # then the cheapest


def test_categories_are_named_alike_by_a_word_few_category_names_hold(shelf):
    near = categories.near(["Personal Care Appliances"])

    assert "health & personal care" in near, near  # "personal": theirs alone
    assert "skin care" not in near, near  # "care": four categories' word
    assert categories.near(["Skin Care"]) == ()
