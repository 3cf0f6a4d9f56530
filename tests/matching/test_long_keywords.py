"""A keyword of three words or more is read, by the word tiers, as the phrases the catalog writes
(catalog/phrases.py): a model's "noise cancelling headphones" finds "Headphones with Active Noise
Cancelling" by every keyword, where asked whole it found only titles holding the three words side
by side. A keyword the catalog writes whole, or one naming a measure, stays whole. Through the
whole stack: HTTP, litellm to the scripted engine, retrieval on the database under test."""

import pytest

from catalog import phrases
from tests.matching.shelf_search import shelf_fixture

pytestmark = pytest.mark.django_db

SHELF = [
    (8101, "Wireless Headphones with Active Noise Cancelling, 30 Hour Battery", "Headphones"),
    (8102, "Over Ear Headphones, Hybrid Noise Cancelling, Foldable", "Headphones"),
    (8103, "Noise Cancelling Earplugs for Sleeping, Pack of 10", "Health & Personal Care"),
    (8104, "Wired Headphones with Mic, Extra Bass", "Headphones"),
    (8105, "Headphones Stand for Desk, Aluminium", "Headphones"),
    (8106, "Stainless Steel Water Bottle, 1 Litre", "Kitchen & Dining"),
    (8107, "Stainless Steel Water Bottle for Gym, 750 ml", "Kitchen & Dining"),
    (8108, "Kids Stainless Steel Water Bottle with Straw", "Kitchen & Dining"),
]
shelf = shelf_fixture(SHELF)


def recommend(client, engine, words, keywords, categories=("Headphones",)):
    """The recommend's body, the scripted engine resolving `words` to `keywords`."""
    engine.answer(
        words,
        normalized_query=words,
        keywords=list(keywords),
        categories=list(categories),
        intent_tags=[],
    )
    return client.get("/v1/recommend", {"intent": words, "limit": 10}).json()


def found_by(body):
    """Each served product's id and the tier that found it."""
    return [
        (int(item["product"]["id"]), proposal["metadata"]["match_tier"])
        for item, proposal in zip(body["items"], body["proposals"], strict=True)
    ]


def test_a_long_keyword_is_read_as_the_phrases_titles_write(shelf):
    assert phrases.phrases("noise cancelling headphones") == ["noise cancelling", "headphones"]
    # Held whole by three products: the catalog writes it so.
    assert phrases.phrases("stainless steel water bottle") == ["stainless steel water bottle"]
    # Short, a measure, or words joined by another: whole.
    assert phrases.phrases("wired headphones") == ["wired headphones"]
    assert phrases.phrases("1 litre steel water bottle") == ["1 litre steel water bottle"]
    assert phrases.phrases("headphones for noise cancelling") == ["headphones for noise cancelling"]
    # No pair held together: each word alone.
    assert phrases.phrases("foldable wired headphones") == ["foldable", "wired", "headphones"]
    assert phrases.read(["noise cancelling headphones", "headphones"]) == [
        "noise cancelling",
        "headphones",
    ]


def test_the_best_pair_wins_where_two_overlap():
    # Words 0-1 held by 3 products, words 1-2 by 9: the pair held more is the phrase.
    assert phrases._spans([3, 9]) == [(0, 1), (1, 3)]
    assert phrases._spans([9, 3]) == [(0, 2), (2, 3)]
    # Two pairs beat one: "baby diapers" and "medium size".
    assert phrases._spans([5, 40, 7]) == [(0, 2), (2, 4)]
    assert phrases._spans([0, 2]) == [(0, 1), (1, 2), (2, 3)]


def test_a_long_keyword_finds_the_thing_by_every_keyword(client, engine, shelf):
    body = recommend(client, engine, "noise cancelling headphones", ["noise cancelling headphones"])

    served = found_by(body)
    assert {pid for pid, _ in served[:2]} == {8101, 8102}, served
    assert {tier for _, tier in served[:2]} == {"strict"}, served


def test_a_misspelt_long_keyword_is_corrected_in_its_phrases(client, engine, shelf):
    body = recommend(client, engine, "noise cancelling headphonez", ["noise cancelling headphonez"])

    served = found_by(body)
    assert {pid for pid, _ in served[:2]} == {8101, 8102}, served
    assert {tier for _, tier in served[:2]} == {"fuzzy"}, served
