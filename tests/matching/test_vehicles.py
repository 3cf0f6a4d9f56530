"""The vehicle the shopper rides is served first (catalog/vehicles.py, catalog/aside.py): a
product whose title names only other vehicles (a handlebar mount, for a car) comes after every
product that names the shopper's or none, never in place of one; the home is such a place,
against the car; a vehicle's product comes after the rest where a person is named, and after
what its own tier found where none is. Through
the whole stack: HTTP, litellm to the scripted engine, retrieval on the database under test."""

import pytest

from catalog import vehicles
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # For another vehicle first by id, holding every word asked for: the database alone would
    # rank them first.
    (7001, "Mobile Phone Holder for Bike Motorcycle Handlebar", "Car Electronics"),
    (7002, "Mobile Phone Holder for Bicycle, Cycle Handlebar Mount", "Car Electronics"),
    (7003, "Car Dashboard Mobile Phone Holder", "Car Electronics"),
    (7004, "Universal Mobile Phone Holder, 360 Degree Clip", "Car Electronics"),
    (7005, "Mobile Phone Holder for Car and Bike", "Car Electronics"),
]


shelf = shelf_fixture(SHELF)

# A car's vacuum cleaner first by id, holding every word asked for but the home.
HOME_SHELF = [
    (7101, "Car Vacuum Cleaner 12V Handheld", "Vacuum Cleaners"),
    (7102, "Handheld Vacuum Cleaner, Cordless", "Vacuum Cleaners"),
    (7103, "Vacuum Cleaner for Car and Home", "Vacuum Cleaners"),
]

home_shelf = shelf_fixture(HOME_SHELF, name="home_shelf")

# A car's perfume first by id; a perfume that names the car only after what it is.
SCENTS = [
    (7201, "Car Perfume Gel, Dashboard Air Freshener", "Car Accessories"),
    (7202, "Perfume Spray for Men, Long Lasting", "Fragrance"),
    (7203, "Eau de Parfum Perfume, 100 ml", "Fragrance"),
    (7204, "Perfume Diffuser Refill for Car", "Car Accessories"),
]
scents = shelf_fixture(SCENTS, name="scents")

# A car's umbrella first by id, holding every word asked for.
UMBRELLAS = [
    (7301, "Car Windshield Sun Shade Umbrella, Foldable", "Travel Accessories"),
    (7302, "Foldable Umbrella for Rain, 3 Fold, Windproof and UV Coated", "Travel Accessories"),
    (7303, "Compact Foldable Umbrella with Capsule Case, Rain and Sun", "Travel Accessories"),
]
umbrellas = shelf_fixture(UMBRELLAS, name="umbrellas")

# A car's neck pillow first by id, of the kind asked; a travel cushion its tier finds too; a
# luggage tag that only the category's tier finds.
PILLOWS = [
    (7351, "Memory Foam Car Neck Pillow, Neck Support Pillow for Driver", "Travel Accessories"),
    (7352, "Travel Neck Pillow, Memory Foam, U Shape", "Travel Accessories"),
    (7353, "Neck Pillow Rest Cushion for Travel in Flight and Train", "Travel Accessories"),
    (7354, "Leather Luggage Tag", "Travel Accessories"),
]
pillows = shelf_fixture(PILLOWS, name="pillows")

# Gloves: a vehicle's by its first phrase that names a man, first by id, and another man's pair.
GLOVES = [
    (7401, "Bike Riding Gloves for Men", "Sports"),
    (7402, "Warm Winter Knitted Woollen Gloves for Men, Touchscreen Fingertips", "Sports"),
]
gloves = shelf_fixture(GLOVES, name="gloves")


def test_a_product_for_another_vehicle_is_served_after_the_rest(client, engine, shelf):
    ids = served(
        client, engine, "mobile holder for my car", ["mobile phone holder"], ["Car Electronics"],
        normalized="car mobile phone holder",
    )  # fmt: skip

    assert set(ids[:3]) == {7003, 7004, 7005}, ids
    assert set(ids[3:]) == {7001, 7002}, ids  # served after, never dropped


def test_a_bike_is_a_motorcycle_or_a_bicycle(client, engine, shelf):
    ids = served(
        client, engine, "phone holder for my bike", ["mobile phone holder", "bike"],
        ["Car Electronics"],
    )  # fmt: skip

    assert set(ids[:3]) == {7001, 7002, 7005}, ids
    assert ids[3:] == [7004, 7003], ids  # the universal one by a looser tier, before the car's


def test_a_request_that_names_no_vehicle_is_served_a_vehicle_s_product_last(client, engine, shelf):
    ids = served(client, engine, "mobile phone holder", ["mobile phone holder"])

    # Those that name a vehicle only after what they are (a holder, for a bike) are holders.
    assert set(ids[:4]) == {7001, 7002, 7004, 7005}, ids
    assert ids[4:] == [7003], ids  # a car's dashboard holder, by its name


def test_a_product_for_the_car_is_served_after_the_rest_when_a_home_asks(
    client, engine, home_shelf
):
    ids = served(client, engine, "vacuum cleaner for home", ["vacuum cleaner", "home"])

    assert set(ids[:2]) == {7102, 7103}, ids
    assert ids[2:] == [7101], ids  # served after, never dropped


def test_a_car_s_vacuum_cleaner_asked_is_served_first(client, engine, home_shelf):
    ids = served(client, engine, "car vacuum cleaner", ["car vacuum cleaner"])

    assert ids[0] == 7101, ids


def test_a_vehicle_s_product_is_served_after_the_rest_when_a_person_is_named(
    client, engine, scents
):
    ids = served(
        client, engine, "perfume for men", ["perfume", "men"], audience="men",
    )  # fmt: skip

    assert ids[0] == 7202, ids
    assert set(ids[1:3]) == {7203, 7204}, ids  # names nobody; the car after what it is
    assert ids[3:] == [7201], ids  # what its name says is the car's: served after


def test_a_vehicle_s_product_is_served_after_the_rest_when_none_is_named(client, engine, umbrellas):
    ids = served(client, engine, "paraguas plegable", ["umbrella", "foldable umbrella"])

    assert set(ids[:2]) == {7302, 7303}, ids
    assert ids[2:] == [7301], ids  # served after, never dropped


def test_a_vehicle_s_product_of_the_kind_asked_waits_for_a_looser_tier(client, engine, pillows):
    ids = served(
        client, engine, "neck pillow for travel", ["neck pillow", "travel pillow"],
        ["Travel Accessories"],
    )  # fmt: skip

    # The car's pillow is a pillow, but not where the shopper sits: what the same tier found
    # comes first, though its title reads a cushion; then the car's, before what only a looser
    # tier found.
    assert ids[:2] == [7352, 7353], ids
    assert ids[2:] == [7351, 7354], ids


def test_a_vehicle_s_product_naming_a_person_is_theirs_when_none_is_named(client, engine, gloves):
    ids = served(client, engine, "gloves for men", ["gloves", "men"], ["Home & Kitchen"])

    assert ids[0] == 7401, ids  # a man's; the home category names no vehicle either


def test_a_vehicle_named_by_the_words_or_the_categories_keeps_its_products(
    client, engine, umbrellas, shelf
):
    # Its words alone would serve it first: a vehicle named, nothing sets it aside.
    ids = served(client, engine, "sun shade umbrella for my car", ["sun shade umbrella", "car"])

    assert ids[0] == 7301, ids
    ids = served(
        client, engine, "mobile phone holder", ["mobile phone holder"], ["Car Electronics"]
    )

    assert ids.index(7003) < ids.index(7004), ids  # the database's order: nothing set aside


def test_a_request_names_no_vehicle_but_the_home():
    assert vehicles.none_named(["foldable umbrella", "Travel Accessories"])
    assert vehicles.none_named(["mobile phone holder", "Home & Kitchen"])  # the home is none
    assert not vehicles.none_named(["mobile phone holder", "Car Electronics"])
    assert not vehicles.none_named(["helmet for my bike"])


@pytest.mark.parametrize(
    ("title", "theirs"),
    [
        ("Car Perfume Gel, Dashboard Air Freshener", True),
        ("Perfume Diffuser Refill for Car", False),  # the car after what it is
        ("Mosquito Net for Strollers, Car Seat", False),
        ("Bike Riding Gloves for Men", False),  # a person named
        ("Room Freshener for Home", False),  # the home is no vehicle
    ],
)
def test_which_titles_are_a_vehicle_s(title, theirs):
    assert vehicles.a_vehicles(title) is theirs


@pytest.mark.parametrize(
    ("asked", "title", "for_others"),
    [
        (("car",), "Phone Holder for Bike Motorcycle", True),
        (("car",), "USB Charger for CAR and Bike", False),
        (("car",), "Universal Phone Holder", False),
        (("car",), "Cars and SUVs Body Cover", False),
        (("two-wheeler",), "Scooty Seat Cover", False),
        (("two-wheeler", "bicycle"), "Cycling Helmet for Mountain Bike", False),
        (("two-wheeler",), "Cycling Helmet for Mountain Bike", True),  # a bicycle's bike
        (("two-wheeler",), "Helmet for Bike Riders", False),  # "bike": either
        (("bicycle",), "Car Tyre Inflator", True),
        ((), "Car Tyre Inflator", False),
        (("home",), "Car Vacuum Cleaner 12V", True),
        (("home",), "Vacuum Cleaner for Car and Home", False),
        (("home",), "Room Heater for Bedroom", False),
        (("home",), "Exercise Bike for Weight Loss", False),  # the home is set against the car
        (("car",), "Room Freshener Spray", True),
    ],
)
def test_which_vehicle_a_title_is_for(asked, title, for_others):
    assert vehicles.for_others(asked, title) is for_others


def test_the_vehicles_a_shopper_names():
    assert vehicles.asked(["car mobile phone holder", "mobile holder"]) == ("car",)
    assert vehicles.asked(["bike phone holder"]) == ("bicycle", "two-wheeler")
    assert vehicles.asked(["scooty helmet", "cycle light"]) == ("bicycle", "two-wheeler")
    assert vehicles.asked(["phone holder"]) == ()
    assert vehicles.asked(["vacuum cleaner for home"]) == ("home",)
    assert vehicles.asked(["bathroom shelf"]) == ()  # a word of its own
    # "bike" beside a word that names one of its two, in any of the phrases, names that one
    assert vehicles.asked(["motorcycle helmet", "bike helmet"]) == ("two-wheeler",)
