"""A catalog imported before products had types and brands gains them (`manage.py
reindex_catalog`, with a progress bar on a terminal) with nothing else lost; an import reads a
type the catalog sends (`product_type`), which wins over the title's."""

import io

import pytest
from django.core.management import call_command

from catalog import search
from catalog.models import Product
from catalog.query import SearchQuery
from tests.catalog.test_import import product_line, run, write_lines
from tests.factories import ProductFactory

pytestmark = pytest.mark.django_db


def test_products_without_a_type_or_brand_gain_them_and_keep_everything_else():
    ProductFactory(title="Cycle Bell for Bicycle", brand=None)
    ProductFactory(title="Nivia Storm Football, Size 5", brand=None)
    ProductFactory(title="Lumora Serum", brand="Lumora")
    # As a release before this one left them: no type, no brand.
    Product.objects.update(product_type=None, brand_key=None)
    before = list(Product.objects.order_by("id").values("id", "title", "price_usd", "tags"))
    out, err = io.StringIO(), io.StringIO()

    call_command("reindex_catalog", "--batch", "2", stdout=out, stderr=err)

    assert out.getvalue() == "reindexed 3 of the catalog's products\n"
    assert list(Product.objects.order_by("id").values_list("product_type", "brand_key")) == [
        ("bell", "cycle"),
        ("footbal", "nivia"),
        ("serum", "lumora"),
    ]
    assert list(Product.objects.order_by("id").values("id", "title", "price_usd", "tags")) == (
        before
    )


def test_a_second_reindex_writes_nothing():
    ProductFactory(title="Cycle Bell for Bicycle")
    call_command("reindex_catalog", stdout=io.StringIO(), stderr=io.StringIO())
    out = io.StringIO()

    call_command("reindex_catalog", stdout=out, stderr=io.StringIO())

    assert out.getvalue() == "reindexed 0 of the catalog's products\n"


def test_a_type_the_import_gives_wins_and_the_product_is_still_searched(tmp_path):
    line = product_line(1, title="Wildcraft Backpack with Rain Cover", product_type="Rain Cover")

    run(write_lines(tmp_path, [line]))

    product = Product.objects.get(pk=1)
    assert (product.declared_type, product.product_type) == ("Rain Cover", "cover")
    assert search.tier_ids("narrow", SearchQuery("", ["backpack"], []), 5) == [1]


def test_a_type_the_import_gives_is_checked_as_text(tmp_path):
    out, err = run(write_lines(tmp_path, [product_line(1, product_type=["cover"])]))

    assert "rejected 1" in out
    assert "product_type must be a string" in err
