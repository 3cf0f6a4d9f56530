"""Recommend on the demo catalog (seed_demo's generator, imported as `make run` imports it):
relevant products first, and a shopper guide whose every sentence is true of its product."""

import re
from datetime import UTC, datetime

import pytest

from catalog.demo import generate_catalog
from catalog.importer import catalog_import
from catalog.models import Product
from kernel.jsonio import dumps

pytestmark = pytest.mark.django_db

TODAY = datetime(2026, 11, 23, tzinfo=UTC)


@pytest.fixture
def demo_catalog(db):
    lines = [dumps(record) for record in generate_catalog(products=1500, seed=7, now=TODAY)]
    summary = catalog_import(lines=lines, strict=True)
    assert summary.created == 1500


def resolution(keywords, categories):
    return {
        "normalized_query": " ".join(keywords),
        "keywords": keywords,
        "categories": categories,
        "intent_tags": keywords,
        "target_audience": None,
        "budget": {"min": None, "max": None, "currency": None},
        "region": None,
        "constraints": [],
        "summary": "",
    }


def picks(client, engine, text, keywords, categories):
    engine.answer(text, **resolution(keywords, categories))
    response = client.get("/v1/recommend", {"intent": text, "limit": 5})
    assert response.status_code == 200
    body = response.json()
    products = {
        product.id: product
        for product in Product.objects.filter(
            id__in=[item["product"]["id"] for item in body["items"]]
        )
    }
    return [products[int(item["product"]["id"])] for item in body["items"]], body["shopper_guide"]


def holds_words(phrase: str, text: str) -> bool:
    """Every word of `phrase`, less a plural ending, starts a word of `text` ("shoes": "Shoe"),
    read independently of the gateway's own analyzer."""
    return all(
        re.search(rf"\b{re.escape(re.sub('(es|s)$', '', word))}", text, re.IGNORECASE)
        for word in phrase.split()
    )


def assert_guide_is_true(guide: str, products: list[Product]) -> None:
    """Each numbered line's claims hold of its product: the title, tags and category named."""
    lines = [line for line in guide.splitlines() if re.match(r"\d+\. ", line)]
    assert len(lines) == len(products)
    for line, product in zip(lines, products, strict=True):
        assert line.split(". ", 1)[1].startswith(product.title)
        for field, text in (("title", product.title), ("tags", " ".join(product.tags))):
            claim = re.search(rf"its {field} mentions? (.*?)(?:;|\. )", line)
            for keyword in re.findall("\u201c(.*?)\u201d", claim.group(1) if claim else ""):
                assert holds_words(keyword, text), (line, keyword)
        if category := re.search("it is in the category \u201c(.*?)\u201d", line):
            assert category.group(1) in (product.category_l1, product.category_l2), line


def test_trail_running_shoes_come_first_and_the_guide_says_why(client, engine, demo_catalog):
    products, guide = picks(
        client, engine, "trail running shoes", ["trail running", "shoes"], ["Running Shoes"]
    )

    assert len(products) == 5
    for product in products[:3]:
        assert holds_words("trail running", product.title), product.title
        assert "sandal" not in product.title.lower()
    assert_guide_is_true(guide, products)


def test_a_blue_yoga_mat_finds_yoga_mats_not_kettlebells(client, engine, demo_catalog):
    # The demo catalog has yoga mats but no blue one: no product holds every keyword.
    products, guide = picks(
        client, engine, "blue yoga mat", ["yoga mat", "blue"], ["Yoga & Fitness"]
    )

    assert [product.title for product in products if "Yoga Mat" not in product.title] == []
    assert "\u201cblue\u201d" not in guide.split("\n", 1)[1]  # no pick claims to be blue
    assert_guide_is_true(guide, products)
