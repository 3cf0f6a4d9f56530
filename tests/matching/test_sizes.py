"""A size the shopper states is the size served first (catalog/measures.py, catalog/aside.py): a
product whose title states another size of the same kind comes after every product that does
not, never in place of one, except that the thing asked for in another size comes before
something else in the size asked. Through the whole stack: HTTP, litellm to the scripted engine,
retrieval on the database under test."""

import pytest

from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # Other sizes first by id, holding every word asked for: the database alone ranks them level.
    (5001, "AmazonBasics 1.5 Ton 5 Star Inverter Split AC", "Air Conditioners"),
    (5002, "Hitachi 1 Ton 3 Star Split AC", "Air Conditioners"),
    (5003, "Lloyd 1.0 Ton 3 Star Inverter Split AC", "Air Conditioners"),
    (5011, "Samsung EVO Plus 256GB microSDXC Memory Card", "Camera Accessories"),
    (5012, "HP 64GB Class 10 microSD Memory Card", "Camera Accessories"),
    # The thing asked, in the size asked, found only by a looser tier ("memory" is not held).
    (5013, "SanDisk Ultra microSDXC UHS-I Card, 64GB", "Camera Accessories"),
    (5021, "Butterfly Pressure Cooker, 5.5 Litre", "Kitchen"),
    (5022, "Prestige Pressure Cooker 3 Litre", "Kitchen"),
    (5023, "Bajaj 3 Litre Instant Water Heater", "Kitchen"),
    # A count: how many come together.
    (5031, "Treo Glass Tumbler Set of 3", "Kitchen"),
    (5032, "Borosil Glass Tumbler, Set of 6, Clear Crystal Finish", "Kitchen"),
    # A size of what is worn: "Extra Large" holds "large", and is another size.
    (5041, "Huggies Wonder Pants Extra Large (XL) Size Baby Diaper Pants, 56 Count", "Diapers"),
    (5042, "Pampers Baby Diaper Pants, Double Extra Large (XXL), 28 Count", "Diapers"),
    (5043, "Huggies Wonder Pants Large (L) Size Baby Diaper Pants, 64 Count", "Diapers"),
    # A pair: two of each one's weight, whatever the two weigh together.
    (5051, "RubX Round Dumbbells (Sold in Pair) (2.5 kg x 2pc (Total = 5 kg))", "Fitness"),
    (5052, "Klikfit Rubber Fixed Dumbbells, 5 kg (5kg x 2pcs)", "Fitness"),
    (5053, "Aurion PVC Hand Weight Dumbbells", "Fitness"),
    (5054, "Kore Hexa Fixed Dumbbells 5 kg", "Fitness"),  # of the weight, no count stated
    (5055, "Aurion PVC Dumbbells (Set of Two) | Hand Weight Dumbbell", "Fitness"),  # no weight
    (5056, "Fitbox Sports Octa PVC Dumbbells for Home Workouts, Black (5kg x 2)", "Fitness"),
    # A kettle whose model's code ends its first phrase, and a kettle of another size.
    (5061, "Prestige Electric Kettle PKOSS - 1500watts, Steel (1.5Ltr), Black", "Appliances"),
    (5062, "Kent Elegant Electric Glass Kettle 1.8L 2000 W", "Appliances"),
    # A bicycle's wheel as its makers write it: "20T" is 20 inches.
    (5071, "Hero Blast 20T Kids Cycle for Boys, Single Speed", "Cycling"),
    (5072, "Leader Scout 26T Mountain Cycle, Single Speed", "Cycling"),
    # How many of a part: tiers, written as shelves or layers too.
    (5081, "Flipzon Premium 6-Tiers Shoe Rack with Cover", "Home Storage"),
    (5082, "Solimo Steel Shoe Rack, 4 Shelves", "Home Storage"),
    (5083, "BDMP Shoe Rack with Cover for Home 5 Shelves", "Home Storage"),
    (5084, "Umi Multi-Purpose Shoe Rack (5 Tier, Black)", "Home Storage"),
    # Whom it holds: several numbers apart by slashes each one, a range every one between.
    (5091, "Portable Waterproof Camping Tent 6-8 Person", "Camping"),
    (5092, "Family Camping Tent 2/4/6 Person", "Camping"),
    (5093, "Dome Camping Tent 4 Person", "Camping"),
    # Sizes about a bound: more, the bound, less.
    (5101, "Trawoc 65 Liter Rucksack", "Rucksacks"),
    (5102, "Wildcraft 60 Ltrs Trekking Rucksack", "Rucksacks"),
    (5103, "Skybags 45 L Trekking Rucksack with Rain Cover", "Rucksacks"),
    # Lengths in metres, however written; the other lengths first by id.
    (5121, "MCP 2m/200CM Roll Ruler Wall Mounted Measuring Tape", "Measuring Tools"),
    (5122, "Stanley 3 Meter Plastic Short Measuring Tape (Yellow)", "Measuring Tools"),
    (5123, "Freemans Ikon 5m:19mm Measuring Tape", "Measuring Tools"),
    (5124, "Stanley 5 Meter Plastic Short Measuring Tape", "Measuring Tools"),
    # A count asked: a title that states none is one bottle, however well its words match.
    (5131, "Milton Thermosteel Water Bottle, 1 Litre, Silver", "Kitchen"),
    (5132, "Cello Sportigo Plastic Bottle Set, 1 Litre, Set of 2, Assorted", "Kitchen"),
]


shelf = shelf_fixture(SHELF)


def test_another_size_is_served_after_the_size_asked(client, engine, shelf):
    ids = served(client, engine, "1 ton split ac", ["1 ton", "split ac"], ["Air Conditioners"])

    assert set(ids[:2]) == {5002, 5003}, ids
    assert ids[2] == 5001, ids  # served after, never dropped


def test_a_looser_tier_s_product_of_the_size_asked_comes_before_a_tighter_one_s_other_size(
    client, engine, shelf
):
    ids = served(client, engine, "memory card 64gb", ["memory card", "64gb"])

    assert ids.index(5012) < ids.index(5011), ids
    assert ids.index(5013) < ids.index(5011), ids


def test_the_thing_asked_in_another_size_comes_before_something_else_in_the_size_asked(
    client, engine, shelf
):
    ids = served(
        client, engine, "pressure cooker 3 litre", ["pressure cooker", "3 litre"], ["Kitchen"]
    )

    assert ids[0] == 5022, ids
    assert ids.index(5021) < ids.index(5023), ids


def test_another_count_is_served_after_the_count_asked(client, engine, shelf):
    """The count only in the normalized query, as a model may leave it: the words alone would
    rank the shorter title first."""
    ids = served(
        client, engine, "6 glass tumblers", ["glass tumbler"], normalized="glass tumbler set of 6"
    )

    assert ids[:2] == [5032, 5031], ids


def test_a_title_stating_the_count_asked_comes_before_one_that_states_none(client, engine, shelf):
    """Neither holds every keyword ("water" or "set of 2" missing): the partial tier serves the
    set of two first, though the other holds "water bottle" whole."""
    ids = served(
        client,
        engine,
        "1 litre water bottles, set of 2",
        ["water bottle", "1 litre", "set of 2"],
    )

    assert ids[:2] == [5132, 5131], ids


def test_a_size_of_what_is_worn_is_served_before_the_sizes_further_up_its_ladder(
    client, engine, shelf
):
    ids = served(client, engine, "diaper pants large size", ["diaper pants", "large"])

    assert ids[0] == 5043, ids  # every title holds "large"; one alone is of that size
    assert set(ids[1:]) == {5041, 5042}, ids


def test_a_pair_is_two_of_the_weight_asked_not_two_that_weigh_it_together(client, engine, shelf):
    ids = served(
        client, engine, "pair of 5 kg dumbbells", ["dumbbells", "5 kg", "pair"], ["Fitness"]
    )

    assert ids[0] == 5052, ids  # 5 kg each, a pair of them
    assert ids.index(5051) > ids.index(5053), ids  # 2.5 kg each: after one of no stated weight


def test_a_title_stating_one_measure_asked_holds_that_measure_s_words_not_the_others(
    client, engine, shelf
):
    """ "Set of Two" is the pair asked, not the 5 kg: it holds "pair" of the keywords, and a
    title stating 5 kg holds more of what was asked."""
    ids = served(
        client, engine, "pair of 5 kg dumbbells", ["dumbbells", "5 kg", "pair"], ["Fitness"]
    )

    assert ids.index(5054) < ids.index(5055), ids


def test_a_measure_times_a_number_is_that_many_of_the_measure(client, engine, shelf):
    """ "5kg x 2" is a pair of 5 kg: it holds all that was asked, one of 5 kg alone less."""
    ids = served(
        client, engine, "pair of 5 kg dumbbells", ["dumbbells", "5 kg", "pair"], ["Fitness"]
    )

    assert ids.index(5056) < ids.index(5054), ids


def test_a_thing_whose_model_code_ends_its_name_is_still_the_thing_in_the_size_asked(
    client, engine, shelf
):
    """ "Electric Kettle PKOSS" is a kettle (catalog/types.py): of the size asked, it comes before
    a kettle of another size, which would otherwise come before something else."""
    ids = served(client, engine, "electric kettle 1.5 litre", ["electric kettle", "1.5 litre"])

    assert ids[:2] == [5061, 5062], ids


def test_a_request_that_states_no_size_is_served_as_before(client, engine, shelf):
    ids = served(client, engine, "split ac", ["split ac"], ["Air Conditioners"])

    assert set(ids) == {5001, 5002, 5003}, ids


def test_a_bicycle_s_wheel_written_as_its_makers_write_it_is_a_size_in_inches(
    client, engine, shelf
):
    """The 20T cycle holds every word asked for but the size, and more of them (a kids' cycle
    for boys): the database alone ranks it first."""
    ids = served(
        client,
        engine,
        "26 inch single speed cycle for boys",
        ["single speed cycle", "boys", "26 inch"],
        ["Cycling"],
    )

    assert ids[:2] == [5072, 5071], ids


def test_how_many_of_a_part_is_a_size_however_the_title_names_the_part(client, engine, shelf):
    """ "5 tier": a rack of 5 shelves or 5 tiers first, one of 4 or 6 after."""
    ids = served(client, engine, "5 tier shoe rack", ["shoe rack", "5 tier"], ["Home Storage"])

    assert set(ids[:2]) == {5083, 5084}, ids
    assert set(ids[2:4]) == {5081, 5082}, ids


def test_a_tent_for_other_numbers_of_people_is_served_after(client, engine, shelf):
    """ "2/4/6 Person" takes four people in; "6-8 Person" does not."""
    ids = served(
        client,
        engine,
        "camping tent for 4 people",
        ["camping tent"],
        ["Camping"],
        normalized="4 person camping tent",
    )

    assert set(ids[:2]) == {5092, 5093}, ids
    assert ids[2] == 5091, ids


def test_a_size_asked_as_a_bound_takes_in_every_size_within_it(client, engine, shelf):
    """ "60 litres or more" in the shopper's words, a model's reading of it exactly 60: a 65
    litre rucksack is of the size asked, a 45 litre one comes after."""
    ids = served(
        client,
        engine,
        "trekking rucksack of 60 litres or more with a rain cover",
        ["trekking rucksack 60 litre", "rain cover"],
        ["Rucksacks"],
        normalized="60 litre trekking rucksack with rain cover",
    )

    assert set(ids[:2]) == {5101, 5102}, ids
    assert ids[2] == 5103, ids


def test_a_length_in_metres_is_a_size_however_the_title_writes_it(client, engine, shelf):
    """ "5m:19mm" and "5 Meter" are the five metres asked; "2m/200CM" and "3 Meter" are other
    lengths, served after."""
    ids = served(
        client,
        engine,
        "5 metre measuring tape",
        ["measuring tape", "5 metre"],
        ["Measuring Tools"],
    )

    assert set(ids[:2]) == {5123, 5124}, ids
    assert set(ids[2:4]) == {5121, 5122}, ids


COMBOS = [
    # Of the wanted kind in another size, and one of the size and material asked whose title
    # does not read as a kettle (its type is read from "... Combo used").
    (5111, "Prestige PKGSS 1.7L 1500W Electric Kettle (Stainless Steel)", "Appliances"),
    (5112, "Pigeon 1.5 litre Hot Kettle and Stainless Steel Water Bottle Combo used for boiling "
     "water", "Appliances"),
]  # fmt: skip

combos = shelf_fixture(COMBOS, name="combos")


def test_what_meets_every_requirement_is_not_passed_by_another_size(client, engine, combos):
    """The thing asked in another size comes before something else in the size asked, but not
    before a product that holds everything the constraints require."""
    ids = served(
        client,
        engine,
        "stainless steel 1.5 litre electric kettle",
        ["electric kettle", "stainless steel", "1.5 litre"],
        constraints=["stainless steel body", "1.5 litre capacity"],
    )

    assert ids == [5112, 5111], ids
