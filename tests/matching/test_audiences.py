"""Whom the shopper asked for is served first (catalog/audiences.py, catalog/aside.py): a
product whose title names only someone else ("Women's" for men, "Kids" for women) comes after
every product that names the shopper or nobody, never in place of one; "unisex" names nobody,
and "baby pink" is a colour. Through the whole stack: HTTP, litellm to the scripted engine,
retrieval on the database under test."""

import pytest

from catalog import audiences
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # For others first by id, holding as many of the words asked for: the database alone would
    # rank them first.
    (6001, "Nivia Women's Cotton Running Socks, Pack of 3", "Socks"),
    (6002, "Jockey Kids Cotton Socks", "Socks"),
    (6003, "Bata Men's Cotton Running Socks", "Socks"),
    (6004, "Puma Unisex Cotton Running Socks", "Socks"),
    (6005, "Cotton Running Socks, Free Size", "Socks"),
    (6006, "Cotton Socks", "Socks"),  # not "running": found by a looser tier
    (6011, "Fastrack Analog Watch for Men", "Watches"),
    (6012, "Titan Raga Analog Watch for Women", "Watches"),
    (6013, "Sonata Analog Watch for Girls", "Watches"),
    (6020, "Cotton Kurta for Men", "Ethnic Wear"),
    (6021, "Baby Pink Cotton Kurta", "Ethnic Wear"),
    (6022, "Cotton Kurta for Girls", "Ethnic Wear"),
    (6030, "Eyebrow Trimmer for Women", "Grooming"),
    (6031, "Electric Shaver with Beard Trimmer", "Grooming"),
    (6032, "Beard Trimmer for Men", "Grooming"),
]


shelf = shelf_fixture(SHELF)


def test_a_product_for_others_is_served_after_the_rest(client, engine, shelf):
    ids = served(client, engine, "running socks for men", ["running socks", "men"], ["Socks"])

    assert set(ids[:3]) == {6003, 6004, 6005}, ids
    assert ids[3] == 6006, ids  # a looser tier's, for anyone
    assert set(ids[4:]) == {6001, 6002}, ids  # served after, never dropped


def test_the_thing_asked_for_but_for_others_comes_after_another_thing_for_anyone(
    client, engine, shelf
):
    """Another size of the thing asked for is near it (tests/matching/test_sizes.py); the
    thing made for someone else is not: a women's trimmer after a shaver that holds one."""
    ids = served(client, engine, "trimmer for men", ["trimmer", "men"], ["Grooming"])

    assert ids == [6032, 6031, 6030], ids


def test_the_target_audience_alone_names_whom_it_is_for(client, engine, shelf):
    ids = served(
        client, engine, "a watch for my wife", ["analog watch"], ["Watches"], audience="women"
    )

    assert set(ids[:2]) == {6012, 6013}, ids  # girls: the catalog's word for young women too
    assert ids[2] == 6011, ids


def test_baby_pink_is_a_colour_not_an_audience(client, engine, shelf):
    ids = served(client, engine, "a kurta for my wife", ["cotton kurta"], audience="women")

    assert set(ids[:2]) == {6021, 6022}, ids
    assert ids[2] == 6020, ids


def test_a_request_for_no_one_in_particular_is_served_by_its_words(client, engine, shelf):
    ids = served(client, engine, "running socks", ["running socks"], ["Socks"])

    assert set(ids[:4]) == {6001, 6003, 6004, 6005}, ids
    assert set(ids[4:]) == {6002, 6006}, ids


@pytest.mark.parametrize(
    ("asked", "title", "for_others"),
    [
        (("men",), "Women's Low Cut Socks", True),
        (("men",), "Socks for Men and Women", False),
        (("men",), "Unisex Sports Socks", False),
        (("boys",), "Unisex Adult Mountain Cycle", True),
        (("men",), "Boys School Socks", True),
        (("women",), "Analog Watch for Girls", False),
        (("kids",), "School Bag for Boys", False),
        (("girls",), "School Bag for Boys", True),
        (("girls",), "Analog Watch for Women", False),
        (("boys",), "Analog Watch for Men", True),
        (("kids",), "Baby Pink Hoodie for Women", True),
        (("kids",), "Baby Pink Hoodie", False),
        ((), "Women's Low Cut Socks", False),
    ],
)
def test_whom_a_title_is_for(asked, title, for_others):
    assert audiences.for_others(asked, title) is for_others


def test_whom_a_shopper_names_by_relation_is_served_first(client, engine, shelf):
    """ "for my wife" names women in the model's reading alone: no keyword says "women"."""
    ids = served(
        client, engine, "watch for my wife", ["analog watch"], ["Watches"],
        normalized="analog watch for wife",
    )  # fmt: skip

    assert set(ids[:2]) == {6012, 6013}, ids  # women accept girls
    assert ids[2:] == [6011], ids  # the database alone: the men's watch first, by its id


def test_a_relation_names_an_audience_in_requests_never_in_titles():
    assert audiences.asked(["watch for my father"]) == ("men",)
    assert audiences.asked(["mere papa ke liye ghadi"]) == ("men",)
    assert audiences.asked(["perfume for wife"]) == ("women",)
    assert audiences.asked(["shoes for my son", "shoes"]) == ("boys",)
    # The word that says whose may stand a few words before: an age between.
    assert audiences.asked(["football shoes for my 8 year old son"]) == ("boys",)
    assert audiences.asked(["mere 10 saal ke bete ke liye cycle"]) == ("boys",)
    # Only after a word that says whose: these name no one.
    assert audiences.asked(["boyfriend jeans for women"]) == ("women",)
    assert audiences.asked(["beta alanine"]) == ()
    assert audiences.asked(["ghee for cooking, mother dairy"]) == ()  # "for" only right before
    assert audiences.asked(["mother sparsh baby wipes"]) == ("kids",)
    # Titles are never read so: a gift "for Mother" names no audience a man's request refuses.
    assert audiences.for_others(["men"], "Gift Hamper for Mother") is False


def test_the_audiences_asked_for_are_read_from_keywords_and_the_target_audience():
    assert audiences.asked(["men's socks", "crew socks"]) == ("men",)
    assert audiences.asked(["babies", "school bag for girls"]) == ("girls", "kids")
    assert audiences.asked(["socks", ""]) == ()
