"""Ages (catalog/ages.py): the one age a request states, the ages a title says a product is for,
each a range in years, and whether a title leaves the age asked out."""

import math

import pytest

from catalog.ages import asked, contradicts, stated


@pytest.mark.parametrize(
    ("texts", "age"),
    [
        (["cotton hooded sweatshirt for my 10 year old boy"], 10.0),
        (["for an 8-year-old child"], 8.0),
        (["boys tshirt 8 years"], 8.0),
        (["my 6 month old is teething"], 0.5),
        (["8 saal ke bete ke liye cycle"], 8.0),  # transliterated Hindi
        (["mochila escolar para mi hijo de 7 años"], 7.0),  # Spanish
        (["school bag for kids", "boy, 7 years"], 7.0),  # the first text that states one
        (["mixer grinder with 5 years warranty"], None),  # a warranty's years are no age
        (["ceiling fan, warranty of 2 years"], None),
        (["school bag for kids"], None),
        # A bound or a range says no one age; a year that is no one's says none either.
        (["toys for kids above 5 years"], None),
        (["gift for a 5-7 year old"], None),
        (["10 year anniversary gift"], None),
        (["mobile on no cost emi for 6 months"], None),
    ],
)  # fmt: skip
def test_a_request_states_one_age_in_years(texts, age):
    assert asked(texts) == age


@pytest.mark.parametrize(
    ("title", "ages"),
    [
        ("Kids Cycle for Age 6 to 10 Years", ((6.0, 10.0),)),
        ("Pre School Bag 3-6 Years Old Kindergarten Backpack", ((3.0, 6.0),)),
        ("Baby Walker 6-18 Months", ((0.5, 1.5),)),
        ("Baby Cot for 6 Months - 3 Years", ((0.5, 3.0),)),  # each number in its own unit
        ("STEM Toy for Kids 6 to 14, Birthday Gift", ((6.0, 14.0),)),  # a child's, unit unsaid
        ("Dough Fun Pack, 3 Years +", ((3.0, math.inf),)),
        ("Toy Blocks for 3+ Years", ((3.0, math.inf),)),
        ("Anti-Colic Teat, 6m+", ((0.5, math.inf),)),
        ("Play-Doh Numbers, Ages 2 Years and Up", ((2.0, math.inf),)),
        ("Hooded Wrapper for New Born Baby to 3 Year Old", ((0.0, 3.0),)),
        ("Baby Shorts (Pack of 5) - 0 to 24 Months", ((0.0, 2.0),)),
        # What no one's age is: a warranty's years, a length, an age alone.
        ("Mixer Grinder with 3 Jars and 5 Years Warranty", ()),
        ("V-Guard Stabilizer, 3 Year Onsite Warranty", ()),
        ("USB Cable 1.5m, 2 Years", ()),
        ("Kids School Bag", ()),
        ("Girls 6-9 Mths Frock", ((0.5, 0.75),)),  # a child's words before a range in months
        ("Kids 10-12 cm Toy", ()),  # a child's words before a measure
        ("Kids 2-3 Pack Socks", ()),
        ("Kids Watch 3-8 Years Lifestyle", ((3.0, 8.0),)),  # "life" of another word
        ("Kids Bike 12-4 Years", ()),  # no range runs backwards
        ("Garden Hose 15m + Nozzle", ()),  # metres, a plus apart
    ],
)  # fmt: skip
def test_a_title_states_the_ages_a_product_is_for_as_ranges_in_years(title, ages):
    assert stated(title) == ages


@pytest.mark.parametrize(
    ("age", "title", "other"),
    [
        (8.0, "Pre School Bag 3-6 Years", True),
        (0.5, "Smartivity STEM Toy for Kids 6 to 14", True),
        (8.0, "Kids Cycle for Age 6 to 10 Years", False),
        (8.0, "Toy Blocks for 3+ Years", False),
        (1.0, "Baby Walker 6-18 Months", False),
        (8.0, "Kids School Bag", False),  # states no age: for any
        (None, "Pre School Bag 3-6 Years", False),  # none asked
    ],
)  # fmt: skip
def test_a_title_contradicts_an_age_none_of_its_ranges_takes_in(age, title, other):
    assert contradicts(age, title) is other
