"""What the shopper wants ranks before what only mentions it (catalog/types.py in
catalog/search.py): in every word tier, a product of the wanted type comes first, an accessory
of it after it, and the reverse when the accessory is what was asked for. Through the whole
stack: HTTP, litellm to the scripted engine, retrieval on the database under test."""

import pytest

from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # Accessories first by id and by the words they hold: the database alone would rank them
    # level with, or before, the things they fit.
    (4001, "Cycle Bell for Bicycle, Kids Cycle Horn", "Cycling"),
    (4002, "Bicycle Saddle Cover for Kids Bicycle", "Cycling"),
    (4003, "Hero Blast 20T Kids Cycle", "Cycling"),
    (4004, "Firefox Kids Bicycle 16 inch", "Cycling"),
    (4005, "Aones Watch Strap Compatible for Titan Women's Watch, Metal", "Watches"),
    (4006, "Titan Women's Analog Watch with Metal Strap", "Watches"),
    (4007, "Wildcraft Backpack with Rain Cover", "Backpacks"),
    (4008, "Rain Cover for Backpack, Waterproof", "Backpacks"),
    # A cycle whose title reads as no type ("Frame" is taken for it), and that says "Cycle".
    (
        4009,
        "Vector 91 Space Fighter 16T Single Speed 10.5 inch Frame - Unisex Kids Cycle",
        "Cycling",
    ),
    # The shopper's own words, side by side, only in what an accessory fits.
    (4010, "Lint Filter for Fully Automatic LG Washing Machine - Set of 2", "Washing Machines"),
    (
        4011,
        "LG 7 Kg 5 Star Inverter Top Loading Washing Machine (Middle Black)",
        "Washing Machines",
    ),
    (4012, "LG 8 Kg Front Load Washing Machine with In-built Heater", "Washing Machines"),
    # A phone whose title names only its model; accessories that name phones.
    (4013, "Redmi 10 Power (Power Black, 8GB RAM, 128GB Storage)", "All Electronics"),
    (4014, "Mobile Phone Holder for Bike, Smartphone Mount with 360 Rotation", "All Electronics"),
    (
        4015,
        "Fast Charging Cable for Android Smartphone, Mobile Phone and Tablet",
        "All Electronics",
    ),
]


shelf = shelf_fixture(SHELF)


@pytest.mark.parametrize(
    ("words", "normalized", "keywords", "categories", "first", "after"),
    [
        # A cycle is a bicycle (catalog/synonyms.py); bells and saddles only mention one.
        ("bicycle for kids", "bicycle for kids", ["bicycle", "kids"], ["Cycling"],
         {4003, 4004}, {4001, 4002}),
        # Both words in others ("Kids Cycle" for "bicycle for children"), and the bell that
        # holds "bicycle" found first still served after the cycles, a bell being an accessory.
        ("bicycle for children", "bicycle for children", ["bicycle", "children"], ["Cycling"],
         {4003, 4004}, {4001, 4002}),
        # The words every keyword asks for are the strap's too: the watch is what was asked.
        ("women's watch with a metal strap", "women's watch with metal strap",
         ["watch", "women", "metal strap"], ["Watches"], {4006}, {4005}),
        # The reverse: the accessory asked for, before the things that come with one.
        ("a rain cover for my backpack", "rain cover for backpack", ["rain cover", "backpack"],
         ["Backpacks"], {4008}, {4007}),
        # The shopper's words side by side only after "for": the title-phrase tier leaves the
        # lint filter to the tiers after, where the machines come first.
        ("LG washing machine", "lg washing machine", ["lg", "washing machine"],
         ["Washing Machines"], {4011, 4012}, {4010}),
        # A phone, though its title says only what model it is and how much it holds.
        ("a smartphone for my dad", "smartphone for my dad", ["smartphone", "mobile phone"],
         ["All Electronics"], {4013}, {4014, 4015}),
    ],
)  # fmt: skip
def test_the_thing_asked_for_ranks_before_what_only_mentions_it(
    client, engine, shelf, words, normalized, keywords, categories, first, after
):
    ids = served(client, engine, words, keywords, categories, normalized)

    assert set(ids[: len(first)]) == first, ids
    assert after <= set(ids[len(first) :]), ids


def test_an_accessory_comes_after_the_thing_whichever_words_found_each(client, engine, shelf):
    """The bell holds "bicycle" and is found by the shopper's own words; the cycle, which no
    type reading recognizes, only by "cycle" in their place: it still comes first."""
    ids = served(client, engine, "bicycle for kids", ["bicycle", "kids"], ["Cycling"])

    assert ids.index(4009) < ids.index(4001), ids
    assert ids.index(4009) < ids.index(4002), ids


# A model answering a use-case with several things: a vacuum cleaner for no car first by id.
CAR_CLEANING = [
    (4101, "Cylinder Bagless Vacuum Cleaner, 1600 W, Low Sound", "Car Accessories"),
    (4102, "Portable 12V Car Vacuum Cleaner, Handheld", "Car Accessories"),
    (4103, "Microfiber Car Duster with Extendable Handle", "Car Accessories"),
    (4104, "Microfiber Cleaning Cloth, Pack of 4", "Car Accessories"),
]
car_cleaning = shelf_fixture(CAR_CLEANING, name="car_cleaning")


def test_each_thing_a_use_case_asks_for_comes_before_the_wanted_type_that_holds_none(
    client, engine, car_cleaning
):
    """ "Car vacuum cleaner", "car duster", "microfiber cloth": a duster that holds its keyword
    whole is what the shopper asked for, more than a vacuum cleaner for no car, though the
    wanted type is read from the first keyword."""
    ids = served(
        client, engine, "something to clean the dust inside my car",
        ["car vacuum cleaner", "car duster", "microfiber cloth"], ["Car Accessories"],
        normalized="car interior cleaning",
    )  # fmt: skip

    assert ids[0] == 4102, ids
    assert set(ids[1:3]) == {4103, 4104}, ids
    assert ids[3:] == [4101], ids  # served after, never dropped
