"""Helpers of the relevance tests that run through the whole stack: a shelf of products, and
the products a recommend serves from the tiers (before the trending fill)."""

from decimal import Decimal

from tests.factories import ProductFactory


def shelve(rows):
    """Products of (id, title, category_l2) rows, alike in all else."""
    for pid, title, category in rows:
        ProductFactory(
            id=pid, title=title, tags=[], brand=None, category_l1="Home",
            category_l2=category, price_usd=Decimal("9.00"), regions=[],
        )  # fmt: skip


def served(client, engine, words, keywords, categories=(), normalized=None):
    """The ids the tiers serve for `words`, which the scripted engine resolves to these."""
    engine.answer(
        words,
        normalized_query=normalized or words,
        keywords=list(keywords),
        categories=list(categories),
        intent_tags=[],
        budget={"min": None, "max": None, "currency": None},
    )
    body = client.get("/v1/recommend", {"intent": words, "limit": 10}).json()
    hits = body["retrieval"]["intent_hits"]
    return [int(item["product"]["id"]) for item in body["items"][:hits]]
