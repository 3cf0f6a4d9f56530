"""What the shopper asked a part to be made of is served first (catalog/materials.py,
catalog/aside.py): a product whose title makes that part of another material comes after every
product that does not, never in place of one; a member of a family is the family's (steel is a
metal); a material asked genuine is not its imitation ("Synthetic Leather"). Through the whole
stack: HTTP, litellm to the scripted engine, retrieval on the database under test."""

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

# Imitations first by id, holding every word asked for.
SHOES = [
    (8101, "Men's Synthetic Leather Formal Shoes", "Formal Shoes"),
    (8102, "Men's PU Leather Formal Shoes", "Formal Shoes"),
    (8103, "Men's Genuine Leather Formal Shoes", "Formal Shoes"),
    (8104, "Men's Leather Formal Shoes", "Formal Shoes"),
]

shoes = shelf_fixture(SHOES, name="shoes")


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


def test_an_imitation_of_a_material_asked_genuine_is_served_after_the_rest(client, engine, shoes):
    ids = served(
        client, engine, "genuine leather formal shoes for men", ["formal shoes", "leather", "men"],
        ["Formal Shoes"], normalized="men's genuine leather formal shoes",
    )  # fmt: skip

    assert set(ids[:2]) == {8103, 8104}, ids
    assert set(ids[2:]) == {8101, 8102}, ids  # served after, never dropped


def test_leather_asked_without_genuine_is_served_by_its_words(client, engine, shoes):
    ids = served(client, engine, "leather formal shoes", ["formal shoes", "leather"])

    assert set(ids) == {8101, 8102, 8103, 8104}, ids
    assert ids.index(8101) < ids.index(8103), ids  # the database's order: nothing set aside


@pytest.mark.parametrize(
    ("phrases", "genuine"),
    [
        (["genuine leather formal shoes"], ("leather",)),
        (["formal shoes", "material: real leather"], ("leather",)),
        (["pure silk saree"], ("silk",)),
        (["leather formal shoes"], ()),
        (["genuine spare parts"], ()),  # no material
    ],
)
def test_the_materials_a_shopper_asks_for_genuine(phrases, genuine):
    assert materials.asked_genuine(phrases) == genuine


@pytest.mark.parametrize(
    ("title", "imitates"),
    [
        ("Synthetic Leather Formal Shoes", True),
        ("Faux Leather Jacket", True),
        ("PU Leather Wallet", True),
        ("Leatherette Office Chair", True),
        ("Genuine Leather Belt with PU Leather Lining", False),  # the genuine one too
        ("Leather Formal Shoes", False),
        ("Canvas Sneakers", False),
    ],
)
def test_which_titles_name_an_imitation_of_leather(title, imitates):
    assert materials.imitates(("leather",), title) is imitates
