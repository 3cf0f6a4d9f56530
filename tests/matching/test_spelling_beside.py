"""A misspelt word is corrected by the word beside it where two corrections are as near
(catalog/spelling.py, `beside`): "watch stap" is a watch strap though "star" is far commoner,
"ear bads" are earbuds though "beds" is commoner. Through the whole stack (HTTP, litellm to the
scripted engine, retrieval on the database under test), and the reading itself."""

import pytest

from catalog import spelling
from tests.matching.shelf_search import served, shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    (8201, "Silicone Watch Strap Compatible with Smart Watch, Black", "Watches"),
    (8202, "Leather Watch Strap 22 mm, Brown", "Watches"),
    (8203, "Star Wars Kids Digital Watch", "Watches"),
    *((8210 + n, f"5 Star Rated Ceiling Fan {n}", "Fans") for n in range(5)),
    (8220, "Wireless Earbuds with Mic, 40 Hours", "Headphones"),
    (8221, "Bluetooth Earbuds, Touch Control", "Headphones"),
    (8222, "Cotton Buds, 200 Sticks", "Personal Care"),
    *((8230 + n, f"Orthopaedic Pet Beds {n}", "Pet Supplies") for n in range(4)),
    (8240, "Metal Key Chain with Ring", "Travel Accessories"),
    (8241, "Leather Key Chain for Bike Keys", "Travel Accessories"),
    *((8250 + n, f"Helmet Chin Strap {n}", "Cycling") for n in range(3)),
    (8260, "Cotton Bedsheet for Double Bed with 2 Pillow Covers", "Bedroom Linen"),
    (8261, "Printed Cotton Double Bed Sheet, King Size", "Bedroom Linen"),
    (8262, "Waterproof Cotton Sheet for Baby Bed", "Bedroom Linen"),
    (8263, "Floral Cotton Bed Sheet, Queen Size", "Bedroom Linen"),
    *((8270 + n, f"Cotton Dinner Napkin Set {n}", "Bedroom Linen") for n in range(6)),
]
shelf = shelf_fixture(SHELF)


def test_the_word_beside_a_misspelling_chooses_between_corrections_as_near(shelf):
    # Alone, the commoner word within an edit wins, as before.
    assert spelling.correction("stap") == "star"
    assert spelling.correction("bads") == "beds"
    # Beside "watch", only "strap" is a phrase titles write; beside "ear", "earbuds" is a word.
    assert spelling.correction("stap", beside=("watch", None)) == "strap"
    assert spelling.correction("bads", beside=("ear", None)) == "buds"
    # A neighbour that pairs with neither changes nothing.
    assert spelling.correction("stap", beside=("ceiling", None)) == "star"
    assert spelling.known(["leather watch stap"])[0] == [["leather", "watch", "strap"]]
    assert spelling.corrections(["watch stap", "stap"]) == {"stap": "strap"}


def test_a_swap_of_two_letters_is_a_candidate_however_few_trigrams_it_shares(shelf, monkeypatch):
    """ "chian" shares few trigrams with "chain": the words spelled most like it may leave it
    out (here: only the nearest one is asked for), its swaps never do."""
    monkeypatch.setattr(spelling, "CANDIDATES", 1)

    assert spelling.correction("chian", beside=("key", None)) == "chain"


def test_a_recommend_serves_what_the_misspelling_means_beside_its_neighbour(shelf, client, engine):
    straps = served(client, engine, "watch stap for my smart watch", ["watch stap"])
    earbuds = served(client, engine, "wireless ear bads", ["wireless ear bads"])

    assert set(straps[:2]) == {8201, 8202}
    assert 8203 not in straps[:2]  # the star's watch, read from "star"
    assert set(earbuds[:2]) == {8220, 8221}
    assert not {8230, 8231, 8232, 8233} & set(earbuds)


def test_the_fuzzy_tier_reads_the_keywords_spelt_right_as_the_strict_tier_reads_them(
    shelf, client, engine
):
    """Corrected beside its keyword's words before a long keyword is cut into phrases ("bed
    shet" is a bed sheet, "shet" alone a set), and then found in its other spellings as well
    ("Bedsheet"): the bedsheets before a sheet for a baby's bed, all found by the fuzzy tier."""
    engine.answer(
        "cotton bed shet for double bed",
        normalized_query="cotton bed shet for double bed",
        keywords=["cotton bed shet"],
        categories=["Bedroom Linen"],
        intent_tags=[],
    )
    body = client.get("/v1/recommend", {"intent": "cotton bed shet for double bed"}).json()
    found = [
        (int(item["product"]["id"]), proposal["metadata"]["match_tier"])
        for item, proposal in zip(body["items"], body["proposals"], strict=True)
    ]

    assert sorted(found[:3]) == [(8260, "fuzzy"), (8261, "fuzzy"), (8263, "fuzzy")]
    assert spelling.respelt(["cotton bed shet"]) == ["cotton bed sheet"]
    assert spelling.respelt(["shet"]) == ["set"]
    assert spelling.respelt(["cotton bed sheet"]) is None  # nothing to correct
