"""Helpers of the relevance tests that run through the whole stack: a shelf of products, and
the products a recommend serves from the tiers (before the trending fill)."""

from decimal import Decimal

import pytest

from tests.factories import ProductFactory


def shelve(rows):
    """Products of (id, title, category_l2) rows, alike in all else; a fourth item is the
    price in dollars (a string, or None for none), else $9."""
    for pid, title, category, *price in rows:
        dollars = price[0] if price else "9.00"
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home", category_l2=category,
            price_usd=None if dollars is None else Decimal(dollars), regions=[],
        )  # fmt: skip


def shelf_fixture(rows, name="shelf"):
    """A fixture of a test module (`shelf` unless named): `rows` shelved in the test's
    database."""

    @pytest.fixture(name=name)
    def shelf(db):
        shelve(rows)

    return shelf


def served(
    client,
    engine,
    words,
    keywords,
    categories=(),
    normalized=None,
    budget_max=None,
    audience=None,
    constraints=(),
):
    """The ids the tiers serve for `words`, which the scripted engine resolves to these (with
    `budget_max`, a budget in dollars; `audience`, a target audience)."""
    engine.answer(
        words,
        normalized_query=normalized or words,
        keywords=list(keywords),
        categories=list(categories),
        intent_tags=[],
        budget={"min": None, "max": budget_max, "currency": budget_max and "USD"},
        target_audience=audience,
        constraints=list(constraints),
    )
    body = client.get("/v1/recommend", {"intent": words, "limit": 10}).json()
    hits = body["retrieval"]["intent_hits"]
    return [int(item["product"]["id"]) for item in body["items"][:hits]]
