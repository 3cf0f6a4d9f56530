"""An age the shopper states is served first (catalog/ages.py, catalog/aside.py): a product whose
title states ages that leave it out comes after every product that states none or takes it in,
never dropped. Through the whole stack: HTTP, litellm to the scripted engine, retrieval on the
database under test."""

import pytest

from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # Holding the most words asked for: the database alone ranks it first.
    (6001, "Kids School Backpack for Boys, Pre School Bag 3-6 Years", "School Bags"),
    (6002, "Skybags School Backpack 7-12 Years", "School Bags"),
    (6003, "Genie School Backpack", "School Bags"),
    (6004, "Kids Toy Car for Boys, 2-4 Years", "Toys"),
    (6005, "Kids Toy Car, 6 Months+", "Toys"),
    # Holding the most words asked for, and naming men beside boys.
    (6011, "Round Neck Cotton T-Shirt for Men & Boys", "T-Shirts"),
    (6012, "Boys Cotton T-Shirt", "T-Shirts"),
]

shelf = shelf_fixture(SHELF)


def test_a_product_for_other_ages_is_served_after_those_for_any_or_the_age_asked(
    client, engine, shelf
):
    """The age only in the shopper's words, as a model may leave it out of its reading."""
    ids = served(
        client,
        engine,
        "school bag for my 8 year old son",
        ["kids school backpack", "boys"],
        ["School Bags"],
        normalized="kids school backpack for boys",
    )

    assert set(ids[:2]) == {6002, 6003}, ids
    assert ids[2] == 6001, ids  # served after, never dropped


def test_an_age_in_months_is_an_age_too(client, engine, shelf):
    """A 1 year old: the car for 6 months and over before the one for 2-4 years."""
    ids = served(
        client, engine, "toy car for my 1 year old", ["kids toy car"], normalized="toy car for baby"
    )

    assert ids == [6005, 6004], ids


def test_a_warranty_s_years_are_no_age(client, engine, shelf):
    """The car for boys holds more of the words asked: first, as no age was asked."""
    ids = served(
        client,
        engine,
        "toy car for my son, 1 year warranty",
        ["kids toy car", "boys"],
        normalized="kids toy car for boys, 1 year warranty",
    )

    assert ids == [6004, 6005], ids


def test_a_request_that_states_no_age_is_served_as_before(client, engine, shelf):
    ids = served(
        client, engine, "kids school backpack", ["kids school backpack", "boys"], ["School Bags"]
    )

    assert ids[0] == 6001, ids


def test_boys_beside_men_are_young_men_for_a_child_of_the_age_stated(client, engine, shelf):
    """Where the shopper states a child's age, a title naming men beside boys is a man's, in his
    sizes; asked "for boys" alone, it stands as before (the catalog says boys of young men)."""
    aged = served(
        client,
        engine,
        "round neck cotton t-shirt for my 8 year old son",
        ["round neck cotton t-shirt", "boys"],
        normalized="boys round neck cotton t-shirt",
    )
    boys = served(
        client,
        engine,
        "round neck cotton t-shirt for boys",
        ["round neck cotton t-shirt", "boys"],
    )

    assert aged == [6012, 6011], aged
    assert boys == [6011, 6012], boys
