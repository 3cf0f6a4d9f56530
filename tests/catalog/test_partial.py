"""The partial tier (catalog/search.py): between every keyword and the whole category, the
products holding a word that names a product, ranked by the words they hold, a rare word
weighing more than a common one."""

from dataclasses import replace
from decimal import Decimal

import pytest
from django.test import override_settings

from catalog import fulltext, partial, synonyms, text, types
from catalog.search import SearchQuery, retrieve, tier_ids
from tests.factories import ProductFactory

pytestmark = pytest.mark.django_db

KITCHEN = [
    (4001, "Prestige Deluxe Pressure Cooker 3 L", "Cookware"),
    (4002, "Hawkins Classic Pressure Cooker 5 Litre", "Cookware"),
    (4003, "Cotton Kitchen Towel Set of 6", "Kitchen Linen"),
    (4004, "Digital Kitchen Weighing Scale", "Kitchen Tools"),
    (4005, "Kitchen Apron with Pockets", "Kitchen Linen"),
    (4006, "Pressure Washer for Cars", "Car Care"),
    (4007, "boAt Rockerz 450 Bluetooth Headphones", "Headphones"),
    (4008, "boAt Rockerz 330 Neckband", "Headphones"),
    (4009, "Fine Silver Bar 999 Purity", "Jewellery"),
    (4010, "Khadi Cotton Kurta for Men", "Clothing"),
    (4011, "Analog Steel Watch for Men", "Watches"),
    (4012, "Rose Gold Watch for Women", "Watches"),
]


@pytest.fixture
def kitchen(db):
    for pid, title, category in KITCHEN:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home",
            category_l2=category, price_usd=Decimal("20.00"), regions=[],
        )  # fmt: skip


def shelve(rows, category):
    """Products of (id, title) rows in one category, alike in all else."""
    for pid, title in rows:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home",
            category_l2=category, price_usd=Decimal("20.00"), regions=[],
        )  # fmt: skip


def plan(keywords, categories=()):
    return SearchQuery(text="", keywords=list(keywords), categories=list(categories))


def test_a_weak_word_lowers_a_product_instead_of_removing_every_one(kitchen):
    asked = plan(["pressure cooker", "kitchen"], ["Cookware"])

    assert tier_ids("strict", asked, 10) == tier_ids("narrow", asked, 10) == []
    found = tier_ids("partial", asked, 10)

    assert found[:2] in ([4001, 4002], [4002, 4001])  # the cookers hold the rare words
    assert set(found[2:]) == {4003, 4004, 4005}  # "kitchen" alone: they rank after
    assert 4006 not in found  # "Pressure Washer": "pressure" names no product here
    retrieval = retrieve(asked, 2)
    assert [(hit.product_id, hit.tier) for hit in retrieval.hits] == [
        (found[0], "partial"),
        (found[1], "partial"),
    ]
    assert retrieval.match_tier == "partial"


@override_settings(SEMANTIC_SEARCH=False)  # the words' weights alone
def test_a_title_that_states_the_size_asked_holds_its_words_however_it_writes_them(kitchen):
    """ "5 litre" asked: a cooker whose title writes "5 L" states that size, and holds "5 litre"
    as much as one that writes it so; it then outweighs a cooker of no stated size that holds
    two other words asked ("steel", "kitchen"), which it would not with "5" alone."""
    shelve(
        [(4013, "Butterfly Pressure Cooker 5 L"), (4014, "Steel Kitchen Pressure Cooker")],
        "Cookware",
    )
    asked = replace(
        plan(["pressure cooker", "5 litre", "kitchen", "steel"]),
        wanted=tuple(types.wanted_kinds(["pressure cooker"])),
        measures=[("l", 5.0)],
    )

    found = tier_ids("partial", asked, 10)

    assert found[0] == 4002, found  # "5 Litre", as asked
    assert found.index(4013) < found.index(4014) < found.index(4001), found


def test_a_product_must_hold_a_word_that_names_one(kitchen):
    # "pressure" names no product: no keyword ends in it. The washer holds it, not "cooker".
    found = tier_ids("partial", plan(["pressure cooker", "steam"]), 10)

    assert sorted(found) == [4001, 4002]


def test_an_absent_model_finds_its_series_not_its_number(kitchen):
    found = tier_ids("partial", plan(["rockerz 999"]), 10)

    assert set(found) == {4007, 4008}


def test_a_word_corrected_into_another_names_no_product_and_weighs_least(kitchen):
    """A shopper's word of another language ("ghadi", a watch) spelled like a rare word of this
    catalog ("khadi") is no product's name: the watches for men lead."""
    found = tier_ids("partial", plan(["ghadi", "watch", "men"]), 10)

    assert found[0] == 4011
    # Each holds "watch"; "men" says whom a product is for, never what it is: the kurta that
    # holds only "men" names nothing the shopper asked for.
    assert set(found) == {4011, 4012}


@pytest.fixture
def watches(db):
    for pid, title in (
        (4021, "Analog Watch for Men with Leather Strap"),
        (4022, "Analog Watch for Men with Silicone Strap"),
        (4023, "Analog Watch for Men, Stainless Steel Chain"),
        (4024, "Metal Wall Clock"),  # a title that says "metal": a word of this catalog
        # "strap", a word many products hold: it weighs less than a rare "metal"
        *((4030 + n, f"{thing} Strap") for n, thing in enumerate(["Camera", "Guitar", "Bag"])),
        *((4040 + n, f"{thing} Strap") for n, thing in enumerate(["Yoga", "Laptop", "Phone"])),
    ):
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Fashion",
            category_l2="Watches", price_usd=Decimal("20.00"), regions=[],
        )  # fmt: skip


def test_a_title_that_names_a_metal_holds_metal(watches):
    """A family's word ("metal") is held by a title naming one of its members ("steel"),
    never the other way (catalog/synonyms.py's FAMILIES)."""
    found = tier_ids("partial", plan(["watch", "men", "metal strap"], ["Watches"]), 10)

    assert found[0] == 4023, found  # steel: metal, a rarer word than "strap"
    assert {"steel", "stainless", "brass"} <= synonyms.families()["metal"]


def test_one_word_is_the_word_tiers_alone(kitchen):
    assert tier_ids("partial", plan(["cooker"]), 10) == []


COOLING = [
    (4101, "Lloyd 2.0 Ton 3 Star Inverter Split AC (5 in 1 Convertible, PM 2.5 Filter)"),
    (4102, "Lloyd 1.5 Ton 5 Star Inverter Split AC (Copper)"),
    (4103, "Voltas 1.5 Ton 3 Star Inverter Split AC"),
    (4104, "Daikin 2.0 Ton 3 Star Inverter Split AC"),
    (4105, "Voltas 1.5 Ton 3 Star Split AC"),
    (4106, "Lloyd X200 Inverter Window AC"),
]


@pytest.fixture
def cooling(db):
    for pid, title in COOLING:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Appliances",
            category_l2="Air Conditioners", price_usd=Decimal("400.00"), regions=[],
        )  # fmt: skip


def test_a_model_number_counts_only_where_its_terms_stand_together(cooling):
    """ "1.5" is the terms 1 and 5: the 2.0-ton Lloyd holds both ("5 in 1", "2.5"), never as
    1.5; the series (Lloyd) leads, the asked size first within it, and another brand's 1.5 ton
    before another brand's 2.0."""
    found = tier_ids("partial", plan(["lloyd 1.5 ton 3 star inverter split ac"]), 10)

    assert found[:2] == [4102, 4101]
    assert found.index(4103) < found.index(4104)


def test_model_units_are_the_tokens_that_mix_digits_with_letters_or_decimals():
    from catalog import text

    assert text.model_units(["lloyd 1.5 ton", "HP v236w", "x200 phone", "airdopes 141"]) == [
        ("1", "5"),
        ("v", "236", "w"),
        ("x", "200"),
    ]
    assert text.model_units(["256gb", "256 GB"]) == [("256", "gb")]
    assert text.adjacent(("1", "5"), text.terms("Lloyd 1.5 Ton"))
    assert not text.adjacent(("1", "5"), text.terms("2.0 Ton, 5 in 1, PM 2.5"))
    assert text.outside_units(["1.5 ton 5 star", "x200 phone"]) == {"ton", "5", "star", "phone"}


def test_a_head_that_most_products_hold_is_never_asked_for_alone(kitchen, monkeypatch):
    """In a catalog where "kitchen" is common (here: COMMON lowered to 2, as a word of a
    million products is), the products that hold it and nothing else asked for are not
    candidates: asking the database for them would have it walk the catalog. The rare head
    ("towel") still is."""
    asked = plan(["towel", "kitchen"])
    assert sorted(tier_ids("partial", asked, 10)) == [4003, 4004, 4005]

    monkeypatch.setattr(fulltext, "COMMON", 2)

    assert tier_ids("partial", asked, 10) == [4003]


def test_a_keyword_that_ends_in_a_model_number_keeps_its_head(cooling):
    """ "lloyd inverter x900": the head is "inverter" ("x" of the absent "x900" names no
    product, though the catalog knows "x" from the X200), so the series still leads."""
    found = tier_ids("partial", plan(["lloyd inverter x900"]), 10)

    assert set(found[:3]) == {4101, 4102, 4106}  # Lloyd's own inverters first
    assert 4103 in found  # another brand's inverter after them


@override_settings(SEMANTIC_SEARCH=False)
def test_a_number_that_stands_alone_counts_beside_the_same_number_in_a_unit(cooling):
    """The 5 of "5 star" is a word of its own as well as a part of "1.5": the 5-star 1.5 ton
    leads the shorter 3-star one."""
    found = tier_ids("partial", plan(["1.5 ton 5 star split ac"]), 10)

    assert found[:2] == [4102, 4105]


@override_settings(SEMANTIC_SEARCH=False)  # the words' weights alone
def test_a_word_of_two_parts_weighs_as_its_parts_however_it_is_written(db):
    """ "eye liner" asked: "Eyeliner" holds eye and liner as a title that writes them apart
    would, so it outweighs a bin liner that holds "black" too (read as the one word alone, a
    rare "eyeliner" would weigh less than "black" and "liner" together); the word counts once,
    whichever way a title writes it."""
    shelve(
        [
            (4061, "Lakme Eyeliner"),
            (4062, "Black Bin Liner"),
            (4063, "Black Shelf Liner"),
            (4064, "Black Umbrella"),
            (4065, "Eye Drops"),
            (4066, "Maybelline Black Eye Liner"),
        ],
        "Beauty",
    )

    found = tier_ids("partial", plan(["eye liner", "black"]), 10)

    assert found[0] == 4066, found  # the compound and "black"
    assert found[1] == 4061, found
    assert set(found[2:]) == {4062, 4063}, found


def test_a_word_that_counts_what_comes_together_names_no_product(db):
    """ "kurta set": the kurta names the product, not the set; a kurta with its dupatta that
    says no "set" is found, and comes before a set without one."""
    shelve(
        [
            (4201, "Women's Printed Kurta and Pant Set"),
            (4202, "Women's Cotton Kurta with Pant & Dupatta"),
            (4203, "Cotton Bath Towel Set of 2"),
        ],
        "Ethnic Wear",
    )

    found = tier_ids("partial", plan(["kurta set with dupatta", "women"]), 10)

    assert found[0] == 4202, found
    assert 4203 not in found, found


def test_a_counting_word_still_names_a_product_beside_the_word_before_it(db):
    """ "dinner set": the dinner names the product, and so does the set: a set of dinnerware
    that says no "dinner" is found too."""
    shelve(
        [
            (4301, "Opalware Dinnerware Set, 18 Pieces"),
            (4302, "Steel Dinner Plate"),
            (4303, "Opalware Bowl"),
        ],
        "Dining",
    )

    found = tier_ids("partial", plan(["dinner set"]), 10)

    assert 4301 in found, found


def test_a_keyword_held_whole_leaves_out_a_colour_but_not_one_that_says_which_thing():
    """ "White sneakers" is held whole by any sneakers (the colour weighs as a word unless a
    constraint states it); "olive oil" only by an olive oil, "wine glass" by a wine glass."""
    keywords = [text.query_terms(one) for one in ("white sneakers", "olive oil", "wine glass")]
    weight: dict[str | tuple[str, ...], float] = {
        term: 1.0 for keyword in keywords for term in keyword
    }
    heads = {keyword[-1] for keyword in keywords}

    held = [items for items, _names, _joined in partial._things_asked(keywords, heads, weight, [])]

    assert held == [text.query_terms("sneakers"), *keywords[1:]]
