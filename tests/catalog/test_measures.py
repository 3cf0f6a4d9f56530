"""Measures a text states (catalog/measures.py): a number and a unit of a known kind, in one base
per kind, or a count ("pack of 3"), and whether a title contradicts the measures a request
states."""

import pytest

from catalog.measures import among, bounded, contradicts, measures, states, wanted, written


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("SanDisk microSDXC Card, 64GB", (("gb", 64.0),)),
        ("Seagate 1TB external drive", (("gb", 1024.0),)),
        ("Butterfly 1.5-litre electric kettle", (("l", 1.5),)),
        ("kettle 1,5 l", (("l", 1.5),)),  # a decimal comma
        ("bottle 750 ml", (("l", 0.75),)),
        ("power bank 10,000mAh", (("mah", 10000.0),)),  # thousands apart by a comma
        ("rucksack 65ltr", (("l", 65.0),)),
        ("Hitachi 1.0 Ton split AC", (("ton", 1.0),)),
        ("whey (1 kg / 2.2 lb), 24g protein", (("g", 1000.0), ("g", 24.0))),
        ("exercise mat (4mm-6mm)", (("mm", 4.0), ("mm", 6.0))),
        ("botella de 1 litro", (("l", 1.0),)),
        ("Mi 80 cm (32 inches) Smart TV", (("mm", 800.0), ("inch", 32.0))),  # a kind of its own
        ("laptop bag 15.6 inch", (("inch", 15.6),)),
        # Counts: how many come together, before or after the number.
        ("2 in 1 hair dryer, pack of 3", (("count", 3.0),)),
        ("Borosil mug set of 6 - 190 ml", (("l", 0.19), ("count", 6.0))),
        ("5 pairs of socks for men", (("count", 5.0),)),
        ("wet wipes, 72 pcs (pack of 2)", (("count", 72.0), ("count", 2.0))),
        ("cotton socks 3-pack", (("count", 3.0),)),
        ("dumbbells (pack of two)", (("count", 2.0),)),  # a count in words
        ("pair of 5 kg dumbbells", (("g", 5000.0), ("count", 2.0))),  # a pair is two
        ("dumbbells (sold in pair)", (("count", 2.0),)),
        ("repair kit with a pairing guide", ()),
        # A weight or a volume times a number: that many of it; a length times a number is
        # another dimension.
        ("dumbbells (1kg*2) (2kg*2)", (("g", 1000.0), ("count", 2.0), ("g", 2000.0))),
        ("mosquito repellent refill 45ml x 6, Lavender", (("l", 0.045), ("count", 6.0))),
        ("toothpaste 300g (150g x 2, Pack of 2)", (("g", 300.0), ("g", 150.0), ("count", 2.0))),
        ("laptop sleeve 30 cm x 20 cm", (("mm", 300.0), ("mm", 200.0))),
        ("storage box 30 cm x 20 x 10", (("mm", 300.0),)),
        ("shelf liner (45 cm x 3 m Roll)", (("mm", 450.0), ("mm", 3000.0))),
        ("bath mat 40 cm x 60", (("mm", 400.0),)),
        ("1.5 Ton x 3 Star split AC", (("ton", 1.5),)),
        # A total where the title states each one's too: each one's is the measure.
        ("dumbbells (2.5 kg x 2pc (total = 5 kg))", (("g", 2500.0), ("count", 2.0))),
        ("dumbbell 2 kg pair (2kg x 2 units = 4kg)", (("g", 2000.0), ("count", 2.0))),
        ("dumbbell set, total weight 10 kg", (("g", 10000.0),)),  # a total alone is its measure
        ("cast iron dumbbells (0.5+ 0.5= 1 kg)", (("g", 1000.0),)),
        # Numbers without a unit, and units inside other words, state nothing.
        ("v236w x200 tablet", ()),
        ("Pureit classic 14 L, for men's use", (("l", 14.0),)),  # a lone "l" or "s": no size
        # Sizes: words, each "extra" a step further; letters of two or more, or bracketed.
        ("gloves size L", (("size", 4.0),)),
        ("Wonder Pants Large (L) Size", (("size", 4.0),)),
        ("Pants, Extra Extra Extra Large size (XXXL)", (("size", 7.0),)),
        ("Double Extra Large size baby Diapers (XXL)", (("size", 6.0),)),
        ("Helmet (Black, X-Large)", (("size", 5.0),)),
        ("Huggies Extra Small (XS), 48 Count", (("size", 1.0),)),
        ("Bean Bag Cover 4XL", (("size", 8.0),)),
        ("Clip Sealer Large, Medium, Small", (("size", 4.0), ("size", 3.0), ("size", 2.0))),
        ("largest display, free size", ()),
        ("Apple iPhone 12 (64GB) - packed with", (("gb", 64.0),)),
        # A bicycle's wheel in inches, as its makers write it; a toddler's size is no wheel.
        ("Leader Scout MTB 26T Mountain Bicycle", (("inch", 26.0),)),
        ("Lifelong Conqueror Gear Cycle,27.5T Steel MTB", (("inch", 27.5),)),
        ("Hero 20 T kids cycle", (("inch", 20.0),)),
        ("Baby boys cotton T-shirt 4T", ()),
        # How many of a part: a kind each, its words in either number and spelling.
        ("Flipzon 6-Tiers Shoe Rack", (("tier", 6.0),)),
        ("Multipurpose 5 Shelves Rack, 5 Layer", (("tier", 5.0),)),
        ("Wakefit 3 Seater Sofa", (("seater", 3.0),)),
        ("Prestige 3 Burner Gas Stove, Glass Top", (("burner", 3.0),)),
        ("Anchor 4 Socket Extension Board with 2 Ports", (("socket", 4.0), ("port", 2.0))),
        ("3 Ply Surgical Mask, Pack of 50", (("ply", 3.0), ("count", 50.0))),
        ("Waterproof Dome Tent (4 Person Tent)", (("person", 4.0),)),
        ("Camping Tent for 6 People", (("person", 6.0),)),
        # Several apart by slashes are each one; a range, every one between.
        ("Family Tent 2/4/6 Person", (("person", 2.0), ("person", 4.0), ("person", 6.0))),
        ("Portable 6-8 Person Tent", (("person", 6.0), ("person", 7.0), ("person", 8.0))),
        ("3-4 Layer Shoe Rack", (("tier", 3.0), ("tier", 4.0))),
        ("Tent 6\u20138 Person", (("person", 6.0), ("person", 7.0), ("person", 8.0))),
        ("Hall for 0-99 People", (("person", 0.0), ("person", 99.0))),  # too wide: its ends
        ("Cadbury 5 Star Chocolate", ()),  # a rating is no part
        ("Step Stool, 10000 Steps", ()),
        ("Cello 2 in 1 Step Stool", ()),  # the "1" of "2 in 1" counts no step
        ("3-in-1 Jar Mixer", ()),
        # Lengths: metres in millimetres, however written; feet a kind of their own (a title's
        # "6 ft (1.8 m)" rounds); a unit run into the "x" of the next measure.
        ("Stanley 5 Meter Measuring Tape (5m)", (("mm", 5000.0),)),
        ("Garden hose pipe 15 mtr", (("mm", 15000.0),)),
        ("HDMI cable 1.5-metre", (("mm", 1500.0),)),
        ("USB C cable 6ft/2m long", (("ft", 6.0), ("mm", 2000.0))),
        ("Door curtain - 7 feet", (("ft", 7.0),)),
        ("Steel measuring tape (5 mx 25 mm)", (("mm", 5000.0), ("mm", 25.0))),
        ("5 mango trees", ()),
    ],
)  # fmt: skip
def test_a_measure_is_a_number_and_a_unit_in_its_kind_s_base(text, found):
    assert measures(text) == found


def test_a_request_s_measures_come_from_each_of_its_texts_once():
    assert wanted(["memory card 64gb", "64 GB", "memory card"]) == (("gb", 64.0),)


@pytest.mark.parametrize(
    ("asked", "title", "other"),
    [
        # Another size of the kind asked: contradicts.
        ("1 ton air conditioner", "AmazonBasics 1.5 Ton 5 Star Inverter Split AC", True),
        ("memory card 64gb", "Samsung EVO Plus 256GB microSDXC memory card", True),
        ("65 litre rucksack", "Clownfish 48 Litres travel backpack", True),
        ("water glasses set of 6", "Treo glass tumbler set of 3, 300 ml", True),
        ("diaper pants large size", "Wonder Pants Extra Large (XL) Size Baby Diaper Pants", True),
        ("medium dog bed", "Dog Bed for Small Dogs", True),
        ("32 inch smart tv", "OnePlus 108 cm (43 inches) Y Series Smart TV", True),
        ("4 person tent", "Portable 6-8 Person Tent", True),
        ("5 metre measuring tape", "MCP 2m/200CM Roll Ruler Measuring Tape", True),
        ("7 feet door curtain", "Garden Panel Eyelet Window Curtains - 5 Feet", True),
        # The size asked, however written, or among others the title states: never.
        ("1 ton air conditioner", "Hitachi Split AC - 1.0 Ton", False),
        ("1kg whey protein", "MuscleBlaze whey (chocolate, 1 kg / 2.2 lb), 24g protein", False),
        ("1 litre bottle", "Cello steel bottle, 1000 ml", False),
        ("3 litre pressure cooker", "Pigeon pressure cooker combo - 2 L, 3 L and 5 L", False),
        ("baby wipes pack of 3", "Baby wipes, 72 pcs (pack of 3)", False),
        ("diaper pants large size", "Baby Diaper Pants, Large (L), 64 Count", False),
        ("t-shirt size M", "Cotton T-Shirt (S, M, L, XL)", False),
        ("32 inch smart tv", "Mi 80 cm (32 inches) HD Ready Smart TV", False),  # cm rounded
        ("80 cm tv", "Samsung 80 cm (32 Inches) Wondertainment Series TV", False),
        ("tent for 4 people", "Family Dome Tent 2/4/6 Person", False),
        ("5 metre measuring tape", "Freemans Ikon 5m:19mm Measuring Tape", False),
        ("2 m hdmi cable", "HDMI Cable (6 feet)", False),  # feet are not judged as metres
        # A title that states no measure of the kind may be the thing: never.
        ("memory card 64gb", "SanDisk Ultra microSD UHS-I card", False),
        ("1 ton air conditioner", "Lloyd 5 star inverter split AC, 1200 W", False),
    ],
)  # fmt: skip
def test_a_title_contradicts_a_request_that_states_another_size_of_its_kind(asked, title, other):
    assert contradicts(wanted([asked]), title) is other


def test_a_request_without_measures_is_contradicted_by_nothing():
    assert contradicts((), "Samsung EVO Plus 256GB") is False


def test_the_parts_of_a_text_that_state_measures_are_found_as_written():
    assert written("65 litre rucksack, pack of 2") == ["65 litre", "pack of 2"]
    assert written("5 tier shoe rack") == ["5 tier"]
    assert written("trekking rucksack") == []


@pytest.mark.parametrize(
    ("asked", "title", "stated"),
    [
        ("65 litre rucksack", "Aristocrat 65 Ltrs Red Rucksack", True),
        ("65 litre rucksack", "Axen Rucksack 65L Trekking", True),
        ("65 litre rucksack", "Clownfish 48 Litres travel backpack", False),
        ("65 litre rucksack", "Trekking Rucksack with Rain Cover", False),
        ("trekking rucksack", "Aristocrat 65 Ltrs Red Rucksack", False),  # none asked
        ("5 tier shoe rack", "Solimo 5 Layer Shoe Rack", True),
        ("5 tier shoe rack", "Flipzon 4 Shelves Shoe Rack", False),
    ],
)  # fmt: skip
def test_a_title_states_a_measure_asked_however_it_writes_it(asked, title, stated):
    assert states(wanted([asked]), title) is stated


@pytest.mark.parametrize(
    ("text", "bounds"),
    [
        ("capacity: at least 60 L", (("l", 60.0, "min"),)),
        ("trekking rucksack of 60 litres or more", (("l", 60.0, "min"),)),
        ("thickness: 6 mm or more", (("mm", 6.0, "min"),)),
        ("rucksack 60l+", (("l", 60.0, "min"),)),
        ("minimum 2 ton", (("ton", 2.0, "min"),)),
        ("dumbbells up to 5 kg", (("g", 5000.0, "max"),)),
        ("at most 1 litre", (("l", 1.0, "max"),)),
        ("a 60 litre rucksack", ()),  # a measure, no bound
        ("under 500 rupees, 1 kg", ()),  # a price's bound is no measure's
        ("no more than 5 kg", (("g", 5000.0, "max"),)),  # a bound denied: the other side
        ("not under 1 litre", (("l", 1.0, "min"),)),
        ("dumbbells 5 kg + 2 kg", ()),  # a plus between measures adds them
    ],
)  # fmt: skip
def test_a_request_may_ask_a_measure_as_a_bound(text, bounds):
    assert bounded([text]) == bounds


def test_a_title_within_a_bound_asked_is_of_the_size_asked():
    asked, bounds = wanted(["60 litre rucksack"]), bounded(["at least 60 litres"])

    assert contradicts(asked, "Trawoc 65 Liter Trekking Rucksack", bounds) is False
    assert contradicts(asked, "Wildcraft 60 Ltrs Rucksack", bounds) is False
    assert contradicts(asked, "Skybags 45 L Rucksack", bounds) is True
    assert contradicts(asked, "Trawoc 65 Liter Trekking Rucksack") is True  # no bound: exactly
    assert among(asked, measures("Polestar 75 Ltr Rucksack"), bounds) is True
    assert among(wanted(["5 kg"]), measures("Dumbbells 3 kg"), bounded(["up to 5 kg"])) is True
