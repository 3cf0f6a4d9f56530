"""The vehicle the shopper rides is served first (catalog/vehicles.py, catalog/aside.py): a
product whose title names only other vehicles (a handlebar mount, for a car) comes after every
product that names the shopper's or none, never in place of one. Through the whole stack: HTTP,
litellm to the scripted engine, retrieval on the database under test."""

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


def test_a_request_that_names_no_vehicle_is_served_by_its_words(client, engine, shelf):
    ids = served(client, engine, "mobile phone holder", ["mobile phone holder"])

    assert set(ids) == {7001, 7002, 7003, 7004, 7005}, ids
    assert ids.index(7003) < ids.index(7004), ids  # nothing set aside: the database's order


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
    ],
)
def test_which_vehicle_a_title_is_for(asked, title, for_others):
    assert vehicles.for_others(asked, title) is for_others


def test_the_vehicles_a_shopper_names():
    assert vehicles.asked(["car mobile phone holder", "mobile holder"]) == ("car",)
    assert vehicles.asked(["bike phone holder"]) == ("bicycle", "two-wheeler")
    assert vehicles.asked(["scooty helmet", "cycle light"]) == ("bicycle", "two-wheeler")
    assert vehicles.asked(["phone holder"]) == ()
    # "bike" beside a word that names one of its two, in any of the phrases, names that one
    assert vehicles.asked(["motorcycle helmet", "bike helmet"]) == ("two-wheeler",)
