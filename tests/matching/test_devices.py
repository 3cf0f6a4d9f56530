"""The device the shopper's accessory fits is served first (catalog/devices.py, catalog/aside.py):
a product whose title says it is for other devices only (a phone's tripod, asked for a camera)
comes after every product for the shopper's or for none, never in place of one; only what
follows "for" is what a thing fits, and a device the shopper ruled out is none they asked for.
Through the whole stack: HTTP, litellm to the scripted engine, retrieval on the database under
test."""

import pytest

from catalog import devices
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    # For another device first by id, holding every word asked for: the database alone would
    # rank them first.
    (7301, "Gorilla Camera Tripod for Mobile Phone", "Camera Accessories"),
    (7302, "Mini Camera Tripod for Smartphones", "Camera Accessories"),
    (
        7303,
        "Aluminium Camera Tripod for DSLR Cameras and Smartphones, 67 inch",
        "Camera Accessories",
    ),
    (7304, "Camera Tripod with Bag, 50 inch, Lightweight Aluminium Legs", "Camera Accessories"),
]
shelf = shelf_fixture(SHELF)

NETS = [
    (7401, "Baby Mosquito Net for Cradle", "Baby Products"),
    (7402, "Mosquito Net for Baby Stroller and Pram, with Zip Opening", "Baby Products"),
    (7403, "Baby Mosquito Net, Foldable Full Cover with Carry Pouch", "Baby Products"),
]
nets = shelf_fixture(NETS, name="nets")

# The cradle's net first by the words alone; the other names no device, in many more words.
BABY_NETS = [
    (7501, "Baby Mosquito Net for Cradle", "Baby Products"),
    (
        7502,
        "Mosquito Net, Foldable Full Cover with Zip Opening and Carry Pouch, Baby",
        "Baby Products",
    ),
    (7503, "Mosquito Net for Stroller", "Baby Products"),
]
baby_nets = shelf_fixture(BABY_NETS, name="baby_nets")


def test_a_product_for_another_device_is_served_after_the_rest(client, engine, shelf):
    ids = served(
        client, engine, "tripod for my dslr camera", ["tripod", "camera tripod"],
        ["Camera Accessories"], normalized="tripod for DSLR camera",
    )  # fmt: skip

    assert set(ids[:2]) == {7303, 7304}, ids
    assert set(ids[2:]) == {7301, 7302}, ids  # served after, never dropped


def test_a_device_the_shopper_ruled_out_is_none_they_asked_for(client, engine, baby_nets):
    words = "mosquito net for the baby, not the stroller kind"
    engine.answer(
        words,
        normalized_query=words,
        keywords=["mosquito net", "baby"],
        categories=[],
        intent_tags=[],
        exclude=["stroller"],
    )
    body = client.get("/v1/recommend", {"intent": words, "limit": 10}).json()
    ids = [int(item["product"]["id"]) for item in body["items"]]

    assert ids == [7501, 7502], ids  # the cradle's not set aside for the stroller ruled out


def test_a_device_asked_for_sets_the_others_aside(client, engine, nets):
    ids = served(
        client, engine, "mosquito net for my baby's stroller", ["mosquito net", "baby"],
        normalized="mosquito net for baby stroller",
    )  # fmt: skip

    assert set(ids[:2]) == {7402, 7403}, ids
    assert ids[2:] == [7401], ids


@pytest.mark.parametrize(
    ("asked", "title", "for_others"),
    [
        (("camera",), "Tripod for Mobile Phone", True),
        (("camera",), "Tripod for DSLR Cameras and Smartphones", False),
        (("camera",), "Mobile Tripod Stand with Phone Holder", False),  # not after "for"
        (("camera",), "Tripod Compatible with iPhone and Android Phones", True),
        (("bed",), "Laptop Table, Foldable Lap Desk", False),  # a table, whatever it stands on
        (("bed",), "Laptop Table for Home Office, Bed, Students", False),
        (("stroller",), "Mosquito Net for Baby Cradle / Jhula", True),
        (("stroller",), "Mosquito Net for Strollers, Car Seat, Cradle", False),
        (("laptop",), "Camera Bag for DSLR", True),
        (("phone",), "Back Cover for Samsung M31 with Camera Protection", False),  # ends at "with"
        (("bed", "laptop"), "Bed Table for Laptop, Foldable", False),
        ((), "Camera Bag for DSLR", False),
    ],
)
def test_which_device_a_title_is_for(asked, title, for_others):
    assert devices.for_others(asked, title) is for_others


def test_the_devices_a_shopper_names():
    assert devices.asked(["tripod for DSLR camera", "camera tripod"]) == ("camera",)
    assert devices.asked(["camera tripod stand", "tripod"]) == ()  # none after "for"
    assert devices.asked(["laptop table for bed"]) == ("bed", "laptop")  # both its own
    assert devices.asked(["cover for ipad and phones"]) == ("phone", "tablet")
    assert devices.asked(["net for the baby, not the stroller kind"], ["stroller"]) == ()
    assert devices.asked(["walker for mobility"]) == ()  # whole words: no mobile
