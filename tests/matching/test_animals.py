"""A product for animals is served after the rest when the shopper names none
(catalog/animals.py, catalog/aside.py), never in place of one; a shopper who names a dog, a cat
or a pet is served by the words asked. Through the whole stack: HTTP, litellm to the scripted
engine, retrieval on the database under test."""

import pytest

from catalog import animals
from catalog.models import Product
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # For dogs first by id, holding every word asked for: the database alone would rank them
    # first.
    (7101, "Dog Shampoo Anti Tick, 1 Litre", "Dog supplies"),
    (7102, "Shampoo for Cats and Kittens, 200 ml", "All Pet Supplies"),
    (7103, "Anti Dandruff Shampoo, 1 Litre", "Hair Care"),
    (7104, "Keratin Smooth Shampoo, 1 L", "Hair Care"),
]


shelf = shelf_fixture(SHELF)


def test_a_product_for_animals_is_served_after_the_rest(client, engine, shelf):
    ids = served(client, engine, "shampoo 1 litre", ["shampoo", "1 litre"])

    assert set(ids[:2]) == {7103, 7104}, ids
    assert set(ids[2:]) == {7101, 7102}, ids  # served after, never dropped


def test_a_shopper_who_names_an_animal_is_served_by_the_words(client, engine, shelf):
    ids = served(client, engine, "shampoo for my puppy", ["shampoo", "puppy"])

    assert ids[:1] == [7101], ids  # not set aside: the words decide ("puppy": a dog's)
    ids = served(client, engine, "dog shampoo", ["dog shampoo"], ["Pet Supplies"])

    assert ids[0] == 7101, ids


@pytest.mark.parametrize(
    ("category_l1", "category_l2", "title", "for_animals"),
    [
        ("pet supplies", "Dog supplies", "Chew Sticks, 1 kg", True),
        ("Pets", "Food", "Adult Cat Food, 6 kg", True),  # a top category of one department
        ("shoes", "Formal Shoes", "Hush Puppies Men's Oxford", False),  # a brand
        ("fashion", "Sunglasses", "Cat Eye Sunglasses for Women", False),
        ("home, kitchen, pets", "Refurbished & Open Box", "PET Water Bottle, 1 L", False),
        ("sports", "Fishing", "Spinning Reel", False),
        ("toys", "Stuffed Animals", "Teddy Bear", False),
    ],
)
def test_whose_department_says_it_is_for_animals(category_l1, category_l2, title, for_animals):
    product = Product(title=title, category_l1=category_l1, category_l2=category_l2)
    assert animals.for_animals(product) is for_animals


def test_the_animals_a_shopper_names():
    assert animals.asked(["shampoo for my puppy"])
    assert animals.asked(["kutte ka khana"])
    assert animals.asked(["Pet Supplies"])
    assert not animals.asked(["shampoo 1 litre", "shampoo", "Hair Care"])
