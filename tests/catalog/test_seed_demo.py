"""The demo catalog: large, varied, internally consistent, deterministic, and importable."""

import io
from datetime import UTC, datetime

import jsonschema
import pytest
from django.core.management import call_command
from django.db.models import Count

from catalog.demo import generate_catalog
from catalog.import_format import parse_line
from catalog.models import Creator, Product, Video
from kernel.jsonio import dumps

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def seed(tmp_path, *args: str) -> str:
    out = io.StringIO()
    call_command("seed_demo", "--output", str(tmp_path / "demo.jsonl"), *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_default_demo_catalog_has_thousands_of_products_in_a_dozen_categories(tmp_path):
    out = seed(tmp_path)

    assert "created 3000, updated 0, rejected 0" in out
    assert Product.objects.count() == 3000
    per_category = dict(
        Product.objects.values_list("category_l2")
        .annotate(n=Count("id"))
        .values_list("category_l2", "n")
    )
    assert len(per_category) >= 12
    assert min(per_category.values()) >= 100
    assert Creator.objects.count() >= 300
    assert Video.objects.count() >= 4000


@pytest.mark.django_db
def test_if_empty_leaves_an_existing_catalog_alone(tmp_path):
    seed(tmp_path, "--products", "20")

    out = seed(tmp_path, "--products", "50", "--if-empty")

    assert "already has products" in out
    assert Product.objects.count() == 20


def test_demo_catalog_is_deterministic():
    first = [dumps(record) for record in generate_catalog(products=200, seed=3, now=NOW)]
    again = [dumps(record) for record in generate_catalog(products=200, seed=3, now=NOW)]
    other = [dumps(record) for record in generate_catalog(products=200, seed=4, now=NOW)]

    assert first == again
    assert first != other


def test_demo_statistics_are_mutually_consistent():
    records = list(generate_catalog(products=2000, seed=7, now=NOW))
    creators: dict[str, dict] = {}

    for record in records:
        parse_line(dumps(record))  # every line passes the importer's validation
        if record["original_price_usd"] is not None:
            assert record["original_price_usd"] > record["price_usd"]
        for video in record["videos"]:
            assert 0 <= video["orders"] <= video["views"]
            assert video["gmv_usd"] <= video["orders"] * record["price_usd"] + 0.01
            published = datetime.fromisoformat(video["published_at"])
            assert (NOW - published).days <= 120
            creator = video["creator"]
            assert creators.setdefault(creator["username"], creator) == creator

    assert len({record["id"] for record in records}) == 2000
    assert len({record["title"] for record in records}) > 1500
    discounted = sum(record["original_price_usd"] is not None for record in records)
    assert 0.3 < discounted / len(records) < 0.6


@pytest.mark.django_db
def test_demo_products_make_complete_cards(client, tmp_path):
    seed(tmp_path, "--products", "40")
    schema = client.get("/openapi.json").json()
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/components/schemas/Card", "components": schema["components"]}
    )

    for product_id in Product.objects.values_list("id", flat=True):
        response = client.get(f"/v1/products/{product_id}/card")
        assert response.status_code == 200
        validator.validate(response.json())
