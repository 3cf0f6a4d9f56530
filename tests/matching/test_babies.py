"""A product for a baby is served after the rest when the shopper names no one young
(catalog/audiences.py, catalog/aside.py), never in place of one, and before what is not the
thing asked; a shopper who names a baby or a child (not a toddler) is served what says it is
for the young first. Through the whole stack: HTTP, litellm to the scripted
engine, retrieval on the database under test."""

import pytest

from catalog import audiences
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # For babies first by id, holding every word asked for: the database alone would rank them
    # first.
    (7201, "Milestone Blanket for Baby, Soft Winter Photo Blanket", "Bedroom Linen"),
    (7202, "Newborn Soft Blanket for Winter", "Bedroom Linen"),
    (7203, "Mink Blanket for Double Bed, Winter", "Bedroom Linen"),
    (7204, "Fleece Blanket for Winter", "Bedroom Linen"),
    # Not a blanket: a looser word of the request alone.
    (7205, "Winter Jacket, Soft Fleece", "Bedroom Linen"),
    # Lotions for dry skin: one that names no one, holding the words asked twice, and a baby's.
    (7206, "Ultra Hydrating Lotion for Dry Skin, Dry Skin Moisturiser", "Baby Products"),
    (7207, "Baby Lotion for Dry Skin, 200 ml", "Baby Products"),
    (7208, "Kids Moisturising Lotion, Dry Skin", "Baby Products"),
    # Toothpaste: a grown-up's, naming no one and holding the word asked twice, and a child's.
    (7209, "Colgate Strong Teeth Toothpaste, Anticavity Toothpaste, 200 g", "Oral Care"),
    (7210, "Colgate Toothpaste for Kids, Strawberry Flavour, 80 g", "Oral Care"),
]


shelf = shelf_fixture(SHELF)

# Flip-flops: a woman's first by id, naming girls beside women and holding the words asked
# twice; a child's of boys and girls; a child's of girls alone.
FLIP_FLOPS = [
    (7301, "Flip Flops for Women & Girls, Soft Flip Flops Slippers", "Shoes"),
    (7302, "Flip Flops for Boys & Girls, Slippers", "Shoes"),
    (7303, "Frozen Girl's Flip Flops Slippers", "Shoes"),
]
flip_flops = shelf_fixture(FLIP_FLOPS, name="flip_flops")


def test_a_product_for_a_baby_is_served_after_the_rest(client, engine, shelf):
    ids = served(client, engine, "soft winter blanket", ["blanket", "winter", "soft"])

    assert set(ids[:2]) == {7203, 7204}, ids
    assert set(ids[2:4]) == {7201, 7202}, ids  # served after, never dropped
    assert ids[4:] == [7205], ids  # the thing asked, for a baby, before something else


def test_a_shopper_who_names_one_young_is_served_by_the_words(client, engine, shelf):
    ids = served(client, engine, "blanket for my baby", ["blanket", "baby"])

    assert ids[0] == 7201, ids
    ids = served(client, engine, "winter blanket", ["winter blanket"], audience="kids")

    assert ids.index(7201) < ids.index(7203), ids  # not set aside: the words decide


def test_a_shopper_who_names_a_baby_is_served_what_says_it_is_for_the_young_first(
    client, engine, shelf
):
    ids = served(
        client, engine, "lotion for my baby's dry skin", ["lotion", "dry skin"], audience="babies"
    )

    assert set(ids[:2]) == {7207, 7208}, ids
    assert ids[2] == 7206, ids  # served after, never dropped
    # A toddler's things need not say so: a shopper naming one is served by the words.
    ids = served(
        client, engine, "lotion for my toddler", ["lotion", "dry skin"], audience="toddler"
    )

    assert ids[0] == 7206, ids


def test_a_shopper_who_names_a_child_is_served_what_says_it_is_for_the_young_first(
    client, engine, shelf
):
    ids = served(client, engine, "tooth paste for kids", ["toothpaste"], audience="kids")

    assert ids == [7210, 7209], ids  # the grown-up's served after, never dropped
    ids = served(client, engine, "toothpaste for my son", ["toothpaste"])

    assert ids == [7210, 7209], ids  # a son is a child, by relation
    # A toddler's things need not say so, nor a girl's (the catalog's word for young women too).
    for words, audience in (("toothpaste for my toddler", "toddler"), ("toothpaste", "girls")):
        ids = served(client, engine, words, ["toothpaste"], audience=audience)

        assert ids == [7209, 7210], (words, ids)


def test_girls_beside_women_are_no_child_s(client, engine, flip_flops):
    ids = served(client, engine, "bachchon ke liye chappal", ["flip flops"], audience="kids")

    assert set(ids[:2]) == {7302, 7303}, ids
    assert ids[2:] == [7301], ids  # a woman's, in her sizes: served after, never dropped


@pytest.mark.parametrize(
    ("title", "a_child_s"),
    [
        ("Flip Flops for Women & Girls", False),
        ("Flip Flops for Boys & Girls", True),
        ("Frozen Girl's Flip Flops", True),
        ("Wrist Watch for Boys & Men", True),  # boys are no grown-up's word
        ("Kids Watch for Girls and Women", True),
        ("Flip Flops for Men", False),
    ],
)
def test_whose_title_says_it_is_for_a_child(title, a_child_s):
    assert audiences.a_child_s(title) is a_child_s


@pytest.mark.parametrize(
    ("title", "a_child_s"),
    [
        ("Cotton T-Shirt for Men & Boys", False),  # a man's, in his sizes
        ("Boys Cotton T-Shirt", True),
        ("Kids T-Shirt for Boys, Men's Style", True),  # kids: a child's whoever else
        ("Flip Flops for Women & Girls", False),
    ],
)
def test_boys_beside_men_are_young_men_where_the_shopper_stated_a_child_s_age(title, a_child_s):
    assert audiences.a_child_s(title, aged=True) is a_child_s


def names_child(phrases):
    return audiences.names_child(audiences.asked(phrases), phrases)


def test_the_children_a_shopper_names():
    assert names_child(["kids"])
    assert names_child(["football shoes for boys"])
    assert names_child(["cricket bat for my son"])
    assert not names_child(["lotion for my toddler"])
    assert not names_child(["blanket for my baby", "kids"])
    assert not names_child(["watch for girls"])
    assert not names_child(["son of a gun t-shirt"])  # no word of whose


def test_the_babies_a_shopper_names():
    assert audiences.names_baby(["babies"])
    assert audiences.names_baby(["lotion for my newborn"])
    assert not audiences.names_baby(["lotion for my toddler"])
    assert not audiences.names_baby(["kurti in baby pink"])


@pytest.mark.parametrize(
    ("title", "for_babies"),
    [
        ("Snowie Soft Milestone Blanket for Baby", True),
        ("My Newborn Baby Soft Neck Support Pillow", True),
        ("Aaram Toddler Sleeping Mattress Protector", True),
        ("Women's Kurti, Baby Pink", False),  # a colour
        ("Sleepsia Pillow for Side Sleepers", False),
    ],
)
def test_whose_title_says_it_is_for_a_baby(title, for_babies):
    assert audiences.for_babies(title) is for_babies


def test_the_young_a_shopper_names():
    assert audiences.names_young(["blanket for my baby"])
    assert audiences.names_young(["toy car for kids"])
    assert audiences.names_young(["Baby Products"])
    assert not audiences.names_young(["soft pillow for good sleep", "pillow", "Bedroom Linen"])
