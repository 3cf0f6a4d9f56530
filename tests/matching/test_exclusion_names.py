"""What the shopper rules out is ruled out under its other names (catalog/synonyms.py) and as
titles clip it, never under the name of what was asked for. Through the whole stack: HTTP,
litellm to the scripted engine, retrieval on the database under test."""

import pytest

from tests.matching.test_exclusions import asked, shelved

pytestmark = pytest.mark.django_db


def test_a_thing_is_ruled_out_under_its_other_names_too(client, engine):
    shelved(
        "Casual Shoes",
        [
            (3201, "Men's Casual Lace-Up Sneakers"),
            (3202, "Men's Running Trainers"),
            (3203, "Men's Casual Loafers"),
            (3204, "Men's Casual Canvas Shoes"),
        ],
    )

    body = asked(
        client,
        engine,
        "casual shoes for men, no trainers",
        normalized_query="men's casual shoes",
        keywords=["men", "casual"],
        categories=["Casual Shoes"],
        exclude=["trainers"],
    )

    # Sneakers are trainers by another name (catalog/synonyms.py); the answer names what the
    # shopper said.
    assert {item["product"]["id"] for item in body["items"]} == {"3203", "3204"}
    assert body["retrieval"]["excluded"] == ["trainers"]


def test_a_flavour_ruled_out_is_ruled_out_as_titles_clip_it(client, engine):
    """ "Choco Chip Cookies" and "Choc Filled Cookies" are chocolate ones (catalog/synonyms.py)."""
    shelved(
        "Biscuits",
        [
            (3211, "Good Day Choco Chip Cookies, 400 g"),
            (3212, "Choco Filled Cookies"),
            (3216, "Chocobakes Choc Filled Cookies, 150 g"),
            (3213, "Chocolate Cream Biscuits"),
            (3214, "Milk Bikis Biscuits"),
            (3215, "Butter Cookies, 60 g"),
        ],
    )

    body = asked(
        client, engine, "biscuits for tea, nothing chocolate", normalized_query="tea biscuits",
        keywords=["biscuits", "cookies"], categories=["Biscuits"], exclude=["chocolate"],
    )  # fmt: skip

    assert {item["product"]["id"] for item in body["items"]} == {"3214", "3215"}


def test_a_kind_of_the_thing_asked_is_ruled_out_under_its_other_names_too(client, engine):
    shelved(
        "Socks",
        [
            (3401, "Men's Low Cut Cotton Socks, Pack of 3"),
            (3402, "Men's Loafer Socks"),
            (3403, "Men's Ankle Socks"),
            (3404, "Men's Calf Length Cotton Socks"),
            (3405, "Men's Sports Short Socks, Pack of 3"),
            (3406, "Unisex Sneaker Socks, Pack of 3"),
        ],
    )

    body = asked(
        client,
        engine,
        "socks for men, no ankle socks",
        normalized_query="men's socks",
        keywords=["socks", "men"],
        categories=["Socks"],
        exclude=["ankle socks"],
    )

    # Low cut, loafer, short and sneaker socks are ankle socks by other names, every one of
    # them ruled out (more than a keyword is ever asked in); socks, asked for, stay.
    assert {item["product"]["id"] for item in body["items"]} == {"3404"}
    assert body["retrieval"]["excluded"] == ["ankle"]


def test_what_was_asked_for_is_never_ruled_out_by_another_of_its_names(client, engine):
    shelved("Strollers", [(3301, "Baby Stroller, Foldable"), (3302, "Baby Pram with Canopy")])

    body = asked(
        client,
        engine,
        "a stroller, not a pram",
        normalized_query="stroller",
        keywords=["stroller"],
        categories=[],
        exclude=["pram"],
    )

    # A shopper who asks for the thing by one name and rules out another keeps the thing.
    assert [item["product"]["id"] for item in body["items"]] == ["3301"]
