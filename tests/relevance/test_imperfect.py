"""Resolutions made imperfect on purpose (relevance/imperfect.py, `RELEVANCE_IMPERFECT`): each
mode changes the model's part of a query as a model would, and nothing the judge reads. Pure
functions: no gateway involved."""

import pytest

from relevance import imperfect, run
from relevance.judging import Query, Rule, patterns
from relevance.sets import OWN, QuerySet


def query(**resolution: object) -> Query:
    rule = Rule.of({"title_all": ["headphones?"]})
    return Query("own", "q1", "imperfect", "words", resolution, rule, patterns(("wired",)))


ASKED = query(
    normalized_query="Noise cancelling headphones for travel under $100",
    keywords=["headphones", "noise cancelling"],
    categories=["Headphones"],
)


def test_long_keyword_writes_the_normalized_query_up_to_its_first_joining_word():
    made = imperfect.made(ASKED, ["long-keyword"])

    assert made.resolution["keywords"] == ["noise cancelling headphones", "noise cancelling"]
    assert made.resolution["categories"] == ["Headphones"]
    assert ASKED.resolution["keywords"] == ["headphones", "noise cancelling"]  # a copy changed


def test_long_keyword_leaves_a_resolution_with_no_keyword_or_no_phrase_as_it_is():
    bare = query(normalized_query="for the gym", keywords=["gym"])
    unread = query(normalized_query="a gift", keywords=[])

    assert imperfect.made(bare, ["long-keyword"]) is bare
    assert imperfect.made(unread, ["long-keyword"]) is unread


def test_modes_apply_in_their_order_and_leave_the_judge_alone():
    made = imperfect.made(ASKED, ["long-keyword", "shopping-word", "no-categories"])

    assert made.resolution["keywords"][0] == "best noise cancelling headphones"
    assert made.resolution["categories"] == []
    assert (made.rule, made.excluded, made.text, made.id) == (
        ASKED.rule, ASKED.excluded, ASKED.text, ASKED.id
    )  # fmt: skip
    assert imperfect.made(ASKED, []) is ASKED


def test_an_unknown_mode_is_refused_with_the_known_ones(monkeypatch):
    monkeypatch.setenv("RELEVANCE_IMPERFECT", "long-keyword,typos")

    with pytest.raises(SystemExit, match=r"unknown \['typos'\]; known: long-keyword"):
        imperfect.chosen()


def test_make_relevance_serves_and_judges_the_queries_made_imperfect(monkeypatch):
    own = QuerySet("own", OWN, released=False)
    monkeypatch.setattr(run, "chosen_sets", lambda: [own])
    as_labelled = own.queries()
    monkeypatch.setenv("RELEVANCE_IMPERFECT", "no-categories")

    served = run.all_queries()

    assert [one.id for one in served] == [one.id for one in as_labelled]
    assert any(one.resolution.get("categories") for one in as_labelled)
    assert all(one.resolution["categories"] == [] for one in served)
    assert [one.resolution["keywords"] for one in served] == [
        one.resolution["keywords"] for one in as_labelled
    ]
