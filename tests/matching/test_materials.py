"""What the shopper asked a part to be made of is served first (catalog/materials.py,
catalog/aside.py): a product whose title makes that part of another material comes after every
product that does not, never in place of one; a member of a family is the family's (steel is a
metal). Through the whole stack: HTTP, litellm to the scripted engine, retrieval on the database
under test."""

import pytest

from catalog import materials
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # Another material first by id, holding every word asked for but "metal".
    (8001, "Analog Watch for Men with Leather Strap", "Watches"),
    (8002, "Analog Watch for Men with Silicone Strap", "Watches"),
    (8003, "Analog Watch for Men, Stainless Steel Strap", "Watches"),
    (8004, "Analog Watch for Men, Day and Date", "Watches"),
    (8005, "Metal Wall Clock", "Clocks"),  # "metal": a word of this catalog
]


shelf = shelf_fixture(SHELF)


def test_a_part_of_another_material_is_served_after_the_rest(client, engine, shelf):
    ids = served(
        client, engine, "men's watch with a metal strap", ["watch", "men", "metal strap"],
        ["Watches"],
    )  # fmt: skip

    assert ids[:2] == [8003, 8004], ids  # steel is a metal; a title that names none
    assert set(ids[2:4]) == {8001, 8002}, ids  # served after, never dropped


def test_a_request_that_names_no_material_is_served_by_its_words(client, engine, shelf):
    ids = served(client, engine, "men's watch with a strap", ["watch", "men", "strap"])

    assert set(ids[:3]) == {8001, 8002, 8003}, ids


@pytest.mark.parametrize(
    ("keywords", "title", "contradicts"),
    [
        (["metal strap"], "Watch with Silicone Strap", True),
        (["metal strap"], "Watch with Stainless Steel Strap", False),  # a metal
        (["metal strap"], "Leather Strap and Metal Strap Combo", False),  # the one asked too
        (["metal strap"], "Analog Watch for Men", False),  # no material for the part
        (["steel water bottle"], "Milton Plastic Water Bottle 1 L", True),
        (["steel strap"], "Watch with Brass Strap", True),  # a metal, not steel
        (["plastic free"], "Plastic Bottle", False),  # "free" is no part
        (["watch"], "Watch with Silicone Strap", False),
    ],
)
def test_which_material_a_title_makes_a_part_of(keywords, title, contradicts):
    assert materials.contradicts(materials.wanted(keywords), title) is contradicts
