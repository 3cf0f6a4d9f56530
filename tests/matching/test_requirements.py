"""A material, a colour or a measure the shopper states is required
(matching/recommend/requirements.py): in the partial tier, a product that holds a keyword's
material or colour the model also wrote as a constraint, or states a measure a constraint
states, or what a constraint says it comes with ("includes: carry bag"), comes before one
that holds more of the other words; a constraint that rules the material out, labelled or
not, requires nothing; a colour counts only in the first keyword.
Through the whole stack: HTTP, litellm to the scripted engine, retrieval on the database
under test."""

import pytest

from matching.engine.resolution import Resolution
from matching.recommend.requirements import required, required_measures
from tests.matching.shelf_search import served, shelve

pytestmark = pytest.mark.django_db

SHELF = [
    # More of the words asked for, first by id: the weights of words alone rank it first.
    (7001, "Kobo Nylon Gym Belt, Weight Lifting, Back Support", "Fitness"),
    (7002, "Aurion Genuine Leather Gym Belt", "Fitness"),
    (7011, "Trekking and Hiking Rucksack for Travel", "Rucksacks"),
    (7012, "Safari 65 Ltrs Rucksack", "Rucksacks"),
    (7021, "Kraasa Casual Lace Up Sneaker, Men Casual Shoes", "Casual Shoes"),
    (7022, "Kraasa Mens Sneaker, Lace Up (White)", "Casual Shoes"),
    # "white" a common word, as in a catalog
    (7031, "White Ceramic Mug", "Mugs"),
    (7032, "White Cotton Bed Sheet", "Bedsheets"),
    (7033, "White Wall Clock", "Clocks"),
    (7041, "Anti Slip Yoga Mat 6mm Thick, for Home Workout", "Yoga"),
    (7042, "Yoga Mat with Carry Bag, 6mm", "Yoga"),
    (7043, "Reversible Yoga Mat 6mm Thick, Anti Slip (Without Bag)", "Yoga"),
]

# Of the wanted kind (a gym belt) without the material asked, and a leather one whose title
# does not call it a gym belt.
BELTS = [
    (7051, "Kobo Nylon Gym Belt, Weight Lifting, Back Support", "Fitness"),
    (7052, "Aurion Genuine Leather Belt for Weightlifting", "Fitness"),
]


@pytest.fixture
def shelf(db, settings):
    # The words' weights alone (the semantic signal would rank the leather belt first anyway).
    settings.SEMANTIC_SEARCH = False
    shelve(SHELF)


@pytest.fixture
def belts(db, settings):
    settings.SEMANTIC_SEARCH = False
    shelve(BELTS)


KEYWORDS = ["gym belt", "leather", "back support", "weight lifting"]


def test_a_stated_material_comes_before_more_of_the_other_words(client, engine, shelf):
    ids = served(
        client,
        engine,
        "a leather belt for the gym",
        KEYWORDS,
        normalized="gym belt",
        constraints=["material: genuine leather"],
    )

    assert ids == [7002, 7001], ids


def test_a_stated_material_comes_before_the_wanted_kind_without_it(client, engine, belts):
    ids = served(
        client,
        engine,
        "belt to lift at the gym, leather please",
        ["gym belt", "leather", "weight lifting"],
        normalized="leather gym belt",
        constraints=["material: genuine leather"],
    )

    assert ids == [7052, 7051], ids


def test_a_material_no_constraint_states_weighs_as_a_word(client, engine, shelf):
    ids = served(client, engine, "a leather belt for the gym", KEYWORDS, normalized="gym belt")

    assert ids == [7001, 7002], ids


RUCKSACK = ["rucksack", "65 litre", "trekking", "hiking"]


def test_a_stated_measure_comes_before_more_of_the_other_words(client, engine, shelf):
    ids = served(client, engine, "65 litre rucksack", RUCKSACK, constraints=["65 litre capacity"])

    assert ids == [7012, 7011], ids


def test_a_measure_no_constraint_states_weighs_as_its_words(client, engine, shelf):
    ids = served(client, engine, "65 litre rucksack", RUCKSACK)

    assert ids == [7011, 7012], ids


SNEAKERS = ["white sneakers", "men", "casual shoes"]


def test_a_stated_colour_comes_before_more_of_the_other_words(client, engine, shelf):
    ids = served(
        client, engine, "white casual sneakers for men", SNEAKERS, constraints=["colour: white"]
    )

    assert ids == [7022, 7021], ids


def test_a_colour_no_constraint_states_weighs_as_a_word(client, engine, shelf):
    ids = served(client, engine, "white casual sneakers for men", SNEAKERS)

    assert ids == [7021, 7022], ids


YOGA_MAT = ["6mm yoga mat", "anti slip yoga mat", "yoga mat with bag"]


def test_what_a_product_comes_with_comes_first_and_without_it_is_not_held(client, engine, shelf):
    """ "includes: carry bag or strap": the mat with its bag before the mat that holds more of
    the other words, and "(Without Bag)" holds no bag."""
    asked = served(client, engine, "yoga mat with a carry bag", YOGA_MAT, constraints=[])
    required_bag = served(
        client,
        engine,
        "6mm yoga mat that comes with a carry bag",
        YOGA_MAT,
        constraints=["includes: carry bag or strap"],
    )

    assert asked[0] == 7043, asked  # "bag" a word as the others: the most words first
    assert required_bag[0] == 7042, required_bag


def _resolution(*constraints: str) -> Resolution:
    return Resolution(
        normalized_query="",
        keywords=[],
        categories=[],
        intent_tags=[],
        constraints=list(constraints),
    )


def test_what_a_constraint_requires():
    def of(*constraints: str) -> tuple[str, ...]:
        return required(_resolution(*constraints), ["leather belt", "cotton"])

    assert of("material: genuine leather") == ("leather",)
    assert of("100% cotton", "leather") == ("cotton", "leather")
    assert of("no leather") == ()
    assert of("full size, not leather") == ()
    assert of("cotton, not leather") == ("cotton",)
    assert of("soft") == ()
    assert required(
        _resolution("colour: white", "not black"), ["white sneakers", "black sole"]
    ) == ("white",)
    # A colour of another part than the thing asked, a labelled exclusion: nothing required.
    assert required(_resolution("sole: black"), ["white sneakers", "black sole"]) == ()
    assert required(_resolution("colour: not white"), ["white sneakers"]) == ()
    assert required(_resolution("material: no leather"), ["leather belt"]) == ()
    # What the product comes with, each alternative, where a keyword names it; not what it
    # works with.
    assert required(
        _resolution("includes: carry bag or strap"), ["yoga mat with bag", "carry strap"]
    ) == ("bag", "strap")
    assert required(_resolution("with 2 pillow covers"), ["bedsheet", "pillow covers"]) == (
        "cover",
    )
    assert required(_resolution("with remote"), ["ceiling fan"]) == ()
    assert required(_resolution("works with bicycle tyres"), ["bicycle tyre pump"]) == ()
    assert required(_resolution("compatible with iphone 13"), ["iphone 13 cover"]) == ()
    assert required(_resolution("not with a lid"), ["dustbin with lid"]) == ()
    # British spellings as the analyzer reads them.
    assert required(_resolution("material: microfibre"), ["microfibre cloth"]) == ("microfib",)


def test_the_measures_a_constraint_requires():
    assert required_measures(_resolution("weight: 5 kg each", "set of 2")) == (
        ("g", 5000.0),
        ("count", 2.0),
    )
    assert required_measures(_resolution("not 2.5 kg", "anti-slip")) == ()
