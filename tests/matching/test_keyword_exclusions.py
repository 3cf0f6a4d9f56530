"""What a model wrote into a keyword rather than a constraint, ruled out
(matching/recommend/exclusions.py, set_apart): a keyword's tail after "excluding", "except",
"not", "other than" and their kin is never searched for and never served, while a keyword's
"no" and "without", a name's "not" and a bound are left as the engine wrote them."""

import pytest

from matching.engine.resolution import MAX_EXCLUDED, MAX_PHRASE_CHARS, Resolution
from matching.recommend.exclusions import set_apart
from tests.matching.test_exclusions import BOXES, boxes, served_for, shelved, titles_of

pytestmark = pytest.mark.django_db
__all__ = ["boxes"]  # the fixture, shared with the exclusions of constraints


@pytest.mark.parametrize(
    ("keywords", "out", "said"),
    [
        (["lunch box excluding plastic"], {3002, 3004, 3006}, ["plastic"]),
        (["lunch box other than plastic"], {3002, 3004, 3006}, ["plastic"]),
        (["lunch box", "not plastic"], {3002, 3004, 3006}, ["plastic"]),
        (["lunch box except glass or bag"], {3003, 3005}, ["glass", "bag"]),
        (["lunch box other than glass but not bag"], {3003, 3005}, ["glass", "bag"]),
    ],
)
def test_what_a_keyword_rules_out_is_ruled_out(client, boxes, engine, keywords, out, said):
    """A model that wrote the exclusion into a keyword, and in no constraint: the keyword's tail
    is ruled out, not searched for."""
    ids, body = served_for(client, engine, "lunch box, none of those", keywords=keywords)

    assert not out & set(ids), titles_of(ids)
    assert {pid for pid, _, _ in BOXES} - out <= set(ids)
    assert body["retrieval"]["excluded"] == said
    assert not any(word in " ".join(body["resolved_keywords"]) for word in said)


def test_a_keyword_of_nothing_but_an_exclusion_leaves_the_normalized_query_to_search(
    client, boxes, engine
):
    ids, body = served_for(
        client, engine, "no plastic ones", normalized_query="lunch box not plastic",
        keywords=["not plastic"],
    )  # fmt: skip

    assert {3001, 3003, 3005} <= set(ids)
    assert not {3002, 3004, 3006} & set(ids), titles_of(ids)
    assert body["retrieval"]["excluded"] == ["plastic"]


def test_no_and_without_in_a_keyword_name_what_the_product_is_without(client, engine):
    """ "no drilling" is wanted, as titles write it: a keyword's "no" or "without" rules nothing
    out."""
    shelved(
        "Bathroom Shelves",
        [(3101, "Corner Shelf No Drilling Self Adhesive"), (3102, "Corner Shelf with Screws")],
    )
    ids, body = served_for(
        client, engine, "corner shelf, no drilling", normalized_query="corner shelf",
        keywords=["corner shelf no drilling", "shelf without screws"],
        categories=["Bathroom Shelves"],
    )  # fmt: skip

    assert ids[0] == 3101
    assert body["retrieval"]["excluded"] == []


def test_a_things_name_with_not_in_it_rules_nothing_out(client, engine):
    """ "not" where titles write it beside the word before it is part of a name."""
    shelved("Seeds", [(3201, "Forget Me Not Flower Seeds"), (3202, "Rose Flower Seeds")])
    ids, body = served_for(
        client, engine, "forget me not seeds", normalized_query="forget me not seeds",
        keywords=["forget me not seeds"], categories=["Seeds"],
    )  # fmt: skip

    assert ids[0] == 3201
    assert body["retrieval"]["excluded"] == []
    assert body["resolved_keywords"] == ["forget me not seeds"]


def test_a_bound_after_not_in_a_keyword_rules_nothing_out(client, boxes, engine):
    _, body = served_for(client, engine, "small lunch box", keywords=["lunch box not over 500 ml"])

    assert body["retrieval"]["excluded"] == []
    assert body["resolved_keywords"] == ["lunch box not over 500 ml"]


def _resolution_of(keywords, normalized_query="lunch box", exclude=()):
    return Resolution(
        normalized_query=normalized_query, keywords=list(keywords), categories=[],
        intent_tags=[], exclude=list(exclude),
    )  # fmt: skip


def test_what_keywords_rule_out_keeps_to_the_engines_caps():
    engines = [f"colour {n}" for n in range(MAX_EXCLUDED)]
    resolution = _resolution_of(["lunch box excluding glass, steel or bag"], exclude=engines)

    apart = set_apart(resolution)

    assert apart.keywords == ["lunch box"]
    assert apart.exclude == engines  # the engine's own list first, and never more than its cap


def test_where_no_keyword_is_left_the_normalized_querys_head_stands_in():
    long_head = "insulated lunch box with three steel containers and a bag for office use"
    apart = set_apart(_resolution_of(["excluding plastic"], f"{long_head} excluding plastic"))

    assert apart.exclude == ["plastic"]
    assert apart.keywords == [long_head[:MAX_PHRASE_CHARS].strip()]

    unchanged = _resolution_of(["excluding plastic"], "excluding plastic")
    assert set_apart(unchanged) == unchanged  # nothing to search else: as the engine wrote it
