"""A resolution is a hint (catalog/search.py, catalog/compounds.py, catalog/text.py): words of
shopping search for nothing, a word of two parts meets its other spellings, a misspelt thing is
still the thing (its categories: test_category_hints.py). Through the whole stack: HTTP,
litellm to the scripted engine, retrieval on the database under test."""

import pytest

from catalog import compounds
from tests.matching.hint_shelf import SHELF
from tests.matching.shelf_search import served, shelf_fixture, shelve

pytestmark = pytest.mark.django_db

shelf = shelf_fixture(SHELF)
# A thing whose name ends in a word the stemmer cuts ("cleaner", "heater"), and things that only
# mention it.
CLEANERS = [
    (5601, "Heavy Mop with Bucket, Floor Cleaner Mop for Tiles and Marble", "Cleaning"),
    (5602, "Tile Cleaner Brush with Long Handle for Marble Floors", "Cleaning"),
    (5603, "Lizol Disinfectant Floor Cleaner Liquid for Marble and Tiles, 2 Litre", "Cleaning"),
    (5604, "Nimyle Herbal Floor Cleaner for Marble, Tiles, 1 Litre", "Cleaning"),
]
cleaners = shelf_fixture(CLEANERS, name="cleaners")


def test_words_of_shopping_search_for_nothing(client, engine, shelf):
    ids = served(
        client,
        engine,
        "doormat for home best quality",
        ["buy", "doormat", "best quality", "online"],
    )

    assert ids == [5001]  # the pillow holds "best quality" and "buy online", and is no doormat


def test_praise_beside_a_misspelt_word_searches_for_nothing(client, engine, shelf):
    """ "premium" and "stylish" are in every other title: beside "wallett", which only the
    fuzzy tier reads, they would be all a search could hold on to."""
    ids = served(
        client, engine, "premium stylish wallett for men", ["premium", "stylish", "wallett", "men"]
    )

    assert set(ids) == {5017, 5018}, ids  # never the premium, stylish shoes


def test_who_it_is_for_is_read_from_the_normalized_query_when_no_keyword_says(
    client, engine, shelf
):
    """The model kept the shopper's "ladkiyon" as a keyword, and wrote "for girls" in its
    normalized query alone: the shorter title would otherwise come first."""
    ids = served(
        client,
        engine,
        "ladkiyon ke liye school bag",
        ["ladkiyon", "school bag"],
        ["School Bags"],
        normalized="school bag for girls",
    )

    assert ids[0] == 5020, ids  # before every other school bag of the shelf


@pytest.mark.parametrize("written", ["tshirt", "t-shirt", "t shirt"])
def test_a_word_of_two_parts_meets_its_other_spellings(client, engine, shelf, written):
    ids = served(client, engine, f"men's {written}", [written, "men"], normalized=f"{written} men")

    assert set(ids) == {5003, 5004, 5005}


def test_a_word_no_title_holds_whole_is_read_in_two_where_some_words_are_missing(
    client, engine, shelf
):
    """No title holds "schoolbag" or "waterproof", so no product holds every keyword and the
    partial tier answers: it reads "schoolbag" as the school bags' two words, which weigh more
    than the lunch box bag's one."""
    ids = served(
        client, engine, "waterproof schoolbag for girls", ["schoolbag", "girls", "waterproof"]
    )

    assert set(ids[:3]) == {5010, 5019, 5020}, ids
    assert ids[0] == 5020, ids  # the one for girls


@pytest.mark.parametrize("bag", ["bag", "bagg"])  # misspelt, corrected into "bag"
def test_a_keyword_that_is_the_whole_request_names_its_thing_not_what_it_is_for(
    client, engine, shelf, bag
):
    """No title holds every word of the one keyword, so the partial tier answers: its products
    must hold the bag it names, not the last word ("compartments", which the lunchbox holds)."""
    words = f"school {bag} for girls with 3 compartments"
    ids = served(client, engine, words, [words])

    assert ids[0] == 5020, ids
    assert {5010, 5019} <= set(ids), ids
    assert 5009 not in ids, ids


def test_a_keyword_that_only_describes_names_no_product(client, engine, shelf):
    ids = served(
        client, engine, "stainless steel rfid wallet", ["wallet", "stainless steel", "rfid"]
    )

    # "steel" is a word of the water bottle's title, and no bottle is a wallet.
    assert ids[:2] == [5017, 5018], ids
    assert 5021 not in ids, ids


def test_keywords_in_words_the_catalog_does_not_hold_give_way_to_the_models_reading(
    client, engine, shelf
):
    """The model restated the request in the catalog's words but kept the shopper's as its
    keywords: none is a word of any title, so the normalized query is searched."""
    ids = served(
        client,
        engine,
        "sardi ke liye kambal",
        ["kambal", "sardi"],
        normalized="warm blanket for winter",
    )

    assert ids[:1] == [5022], ids


def test_a_keyword_no_product_holds_gives_way_though_another_is_known_by_another_name(
    client, engine, shelf
):
    """ "zapatillas" is known as sneakers (catalog/synonyms.py); "correr" and "hombre" are
    words of no title: searched beside them, the restatement would find nothing."""
    ids = served(
        client,
        engine,
        "zapatillas para correr hombre",
        ["zapatillas", "correr", "hombre"],
        normalized="running shoes for men",
    )

    assert ids[:1] == [5043], ids


def test_a_misspelt_thing_beside_a_word_for_whom_is_still_what_was_asked(client, engine, shelf):
    ids = served(
        client, engine, "latest smartwach for men", ["latest", "smartwach", "men"], ["Watches"]
    )

    # No smartwatch says "men" and none is filed under Watches: the corrected word is all the
    # request names, so the smartwatches come first, the men's analog watch after them.
    assert set(ids[:2]) == {5011, 5012}, ids


def test_a_misspelt_thing_beside_words_of_when_it_is_for_is_still_what_was_asked(
    client, engine, shelf
):
    """ "blankit" is corrected into "blanket", a guess; "warm" and "winter" name nothing that
    more products are, so the blanket stays what the request names, and comes first."""
    ids = served(client, engine, "warm blankit for winter nights", ["warm", "blankit", "winter"])

    assert ids[0] == 5022, ids


def test_a_misspelt_word_that_says_which_thing_is_still_the_thing_asked(client, engine, shelf):
    ids = served(client, engine, "vaccum cleaner for home", ["vaccum cleaner", "home"])

    # The floor cleaner holds more of the words asked ("cleaner", "home"); the vacuum cleaner
    # is what was asked, in the catalog's spelling.
    assert ids.index(5015) < ids.index(5014), ids


def test_a_misspelt_thing_is_wanted_as_the_shopper_wrote_it_corrected(client, engine, shelf):
    """ "bracelate" stems to "bracel", whose nearest word is "brace": corrected as written, it
    is the bracelet, which comes before the watches that mention one more often."""
    ids = served(client, engine, "stylish bracelate for women", ["bracelate", "women"])

    assert ids[0] == 5059, ids
    assert set(ids[1:3]) == {5057, 5058}, ids


def test_a_misspelt_thing_the_models_reading_names_weighs_as_that_thing(client, engine, shelf):
    """ "ketle" is corrected into "kettle"; the normalized query names a kettle ("electric"
    says which), so the correction is no guess: the kettle that does not say "electric" comes
    before the electric things that are no kettle."""
    ids = served(client, engine, "latest electric ketle", ["latest", "electric", "ketle"])

    assert ids[0] == 5028, ids
    assert set(ids[1:4]) == {5025, 5026, 5027}, ids


def test_a_keyword_of_what_the_thing_is_for_names_no_product(client, engine, shelf, settings):
    """ "office" stands past the thing in the model's reading ("... for office use"): the
    partial tier serves the kettle, never the dustbin that holds "office" alone (by the words
    alone: the semantic signal, off here, might leave the dustbin out by itself)."""
    settings.SEMANTIC_SEARCH = False
    ids = served(
        client, engine, "electric ketle for office use", ["electric ketle", "office"],
        normalized="electric ketle for office use",
    )  # fmt: skip

    assert ids == [5028], ids


def test_a_misspelt_thing_means_the_catalog_s_word_to_the_semantic_signal(client, engine, shelf):
    """With the signal on: a product holding only some of the words asked is kept by the
    partial tier where it is like the query in meaning; the kettle is like "electric kettle for
    office", nothing is like "ketle"."""
    ids = served(
        client, engine, "electric ketle for office use", ["electric ketle", "office"],
        normalized="electric ketle for office use",
    )  # fmt: skip

    assert ids[:1] == [5028], ids


def test_a_word_of_two_halves_of_two_letters_meets_its_hyphened_spelling(client, engine, shelf):
    """ "wifi" as one word is held by a router's shelf alone; the air conditioner that says
    "Wi-Fi" holds every word asked, and comes before the one that does not say it."""
    ids = served(client, engine, "wifi split ac", ["wifi", "split ac"], ["Air Conditioners"])

    assert ids[:2] == [5053, 5052], ids
    tiers = client.get("/v1/recommend", {"intent": "wifi split ac", "limit": 10}).json()
    assert tiers["proposals"][0]["metadata"]["match_tier"] == "strict", tiers["proposals"][0]


def test_a_word_more_titles_write_as_two_is_read_as_two_too(client, engine, shelf, settings):
    """One title writes "facewash", two write "face wash": the partial tier reads the keyword
    both ways, and serves the face wash that names no skin at all (what it is for)."""
    settings.SEMANTIC_SEARCH = False
    ids = served(client, engine, "facewash for oily skin", ["facewash", "oily skin"])

    assert ids[0] == 5036, ids  # every word
    assert {5037, 5038} <= set(ids), ids


def test_keywords_that_all_say_what_it_is_for_still_name_what_they_name(
    client, engine, shelf, settings
):
    """Every keyword stands past "for" in the reading: they name the products, there being
    nothing else to name, and the desk that holds one of them is served."""
    settings.SEMANTIC_SEARCH = False
    ids = served(
        client, engine, "something for office desk", ["office", "desk"],
        normalized="something for office desk",
    )  # fmt: skip

    assert 5042 in ids, ids


def test_a_word_fewer_titles_write_as_two_is_held_by_those_too(client, engine, shelf, settings):
    """Three titles write "backpack", two "back pack": those are backpacks as well, the
    waterproof one first, the other served with the rest; neither of the two words alone names
    the thing ("Pack of 2", "Back Cover" hold "waterproof" but no backpack)."""
    settings.SEMANTIC_SEARCH = False
    ids = served(client, engine, "waterproof backpack", ["backpack", "waterproof"])

    assert ids[0] == 5051, ids
    assert {5039, 5040, 5041} <= set(ids), ids
    assert not {5049, 5050} & set(ids), ids


def test_a_keyword_of_two_words_the_titles_join_reaches_the_partial_tier_joined(
    client, engine, shelf
):
    """No eyeliner is waterproof here, so only the partial tier serves: it reads "eye liner"
    as the titles write it too, and the eyeliner comes before the shelf liner that holds
    "liner" and "waterproof"."""
    ids = served(client, engine, "buy eye liner online waterproof", ["eye liner", "waterproof"])

    assert ids[0] == 5029, ids


def test_one_word_keywords_that_stand_together_in_the_reading_are_read_joined_too(
    client, engine, shelf, settings
):
    """A model split "laptop" into two keywords; its normalized query keeps them side by side,
    and the catalog holds "laptop": the laptop table comes before the bedside table (by the
    words alone: the semantic signal, off here, would find the laptop table close anyway)."""
    settings.SEMANTIC_SEARCH = False
    ids = served(
        client, engine, "lap top table for bed", ["lap", "top", "table", "bed"],
        normalized="lap top table for bed",
    )  # fmt: skip

    assert ids.index(5032) < ids.index(5031), ids


def test_the_halves_of_a_word_a_model_split_name_no_product_alone(client, engine, shelf):
    """A model split "sunglasses" into "sun" and "glasses"; read joined, the two are the
    sunglasses: a sun shade that holds "sun" is no product of the request."""
    ids = served(
        client, engine, "sun glasses for men", ["sun", "glasses", "men"],
        normalized="sun glasses for men",
    )  # fmt: skip

    assert set(ids[:2]) == {5046, 5047}, ids
    assert 5045 not in ids, ids


def test_two_keywords_the_reading_writes_as_one_word_are_read_joined(shelf):
    """ "sun", "screen" of "sunscreen spf 50": a sunscreen, where the catalog holds the word."""
    assert compounds.joined_apart("sunscreen spf 50", ["sun", "screen", "spf 50"]) == [
        ("sunscreen", "sun", "screen")
    ]
    assert compounds.joined_apart("sun glasses for men", ["sun", "glasses", "men"]) == [
        ("sunglasses", "sun", "glasses")
    ]
    assert compounds.joined_apart("sun cream", ["sun", "cream"]) == []  # not held joined


def test_a_misspelt_thing_in_the_resolved_categories_is_for_anyone_there(client, engine, shelf):
    """The fuzzy tier corrects "trimer"; no trimmer of the resolved category says "men", and a
    title that names nobody is for anyone: the beard trimmer comes before the tummy trimmer
    that holds both words in another category."""
    ids = served(
        client, engine, "best trimer for men", ["best", "trimer", "men"],
        ["Personal Care Appliances"],
    )  # fmt: skip

    assert ids[0] == 5034, ids
    assert 5033 in ids, ids


def test_a_word_of_two_parts_wants_the_thing_its_second_part_names(client, engine, cleaners):
    """ "floorcleaner" is a floor cleaner, not a mop or a brush that holds the two words: its
    stem ("floorclean") is not split, the word is ("floor", "cleaner")."""
    ids = served(
        client,
        engine,
        "best floorcleaner for marble and tiles",
        ["best", "floorcleaner", "marble", "tiles"],
    )

    assert set(ids[:2]) == {5603, 5604}, ids


def test_the_kinds_of_a_word_of_two_parts_are_read_from_the_word_as_said(db):
    for title in ("Floor Cleaner Liquid", "Water Heater Rod", "Floor Mop"):
        shelve([(5700 + len(title), title, "Home")])

    said = ["floorcleaner for tiles", "waterheater"]
    found = compounds.kinds([("floorclean",), ("waterheat",)], said)

    assert ("floor", "cleaner") in found
    assert ("water", "heater") in found
    assert ("floor", "clean") not in found
