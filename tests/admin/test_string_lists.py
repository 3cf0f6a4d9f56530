"""Lists of strings (tags, regions, capabilities, a product's gallery) are edited as text, one
item a line, never as JSON: items are trimmed, blanks and repeats dropped, and a bad item is
named in the form's error while nothing is saved."""

import re

import pytest
from django.urls import reverse

from catalog.models import Product
from kernel.admin_lists import StringListField
from merchants.models import MerchantAgent
from tests.factories import ProductFactory
from tests.protocol import register
from tests.support.forms import current_form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def product_url():
    ProductFactory(
        id=1001,
        tags=["trail", "running"],
        regions=["US"],
        gallery=["https://img.example.com/1.jpg"],
    )
    return reverse("admin:catalog_product_change", args=[1001])


def _post(staff, url, **changes):
    data = current_form_data(staff.get(url).content.decode())
    return staff.post(url, {**data, **changes})


def _errors(response) -> list[str]:
    page = response.content.decode()
    return re.findall(r'<ul class="errorlist"[^>]*>(.*?)</ul>', page, re.S)


def test_a_products_lists_are_edited_one_item_a_line_not_as_json(staff, product_url):
    page = staff.get(product_url).content.decode()

    for name, text in [
        ("tags", "trail\nrunning"),
        ("regions", "US"),
        ("gallery", "https://img.example.com/1.jpg"),
    ]:
        editor = re.search(rf'<textarea name="{name}"[^>]*>(.*?)</textarea>', page, re.S)
        assert editor is not None, name
        assert 'class="string-list"' in editor.group(0)
        assert "json-editor" not in editor.group(0)
        assert editor.group(1).strip() == text


def test_items_are_trimmed_and_blanks_and_repeats_dropped(staff, product_url):
    response = _post(
        staff,
        product_url,
        tags=" trail , waterproof\n\n trail ,, Gore-Tex \r\n",
        regions="us, gb\nUS",
        gallery="https://img.example.com/a,b.jpg\n\n  https://img.example.com/2.jpg  \n",
    )

    assert response.status_code == 302, _errors(response)
    product = Product.objects.get(pk=1001)
    assert product.tags == ["trail", "waterproof", "Gore-Tex"]
    assert product.regions == ["US", "GB"]
    # A URL may hold a comma: the gallery splits on lines only.
    assert product.gallery == ["https://img.example.com/a,b.jpg", "https://img.example.com/2.jpg"]


def test_emptying_a_list_saves_an_empty_list(staff, product_url):
    response = _post(staff, product_url, tags=" \n , \n", regions="", gallery="")

    assert response.status_code == 302
    product = Product.objects.get(pk=1001)
    assert (product.tags, product.regions, product.gallery) == ([], [], [])


def test_a_bad_url_in_the_gallery_is_named_and_nothing_saved(staff, product_url):
    response = _post(
        staff,
        product_url,
        gallery="https://img.example.com/2.jpg\nftp://img.example.com/3.jpg\nnot a url",
        tags="changed",
    )

    assert response.status_code == 200
    errors = " ".join(_errors(response))
    assert "“ftp://img.example.com/3.jpg”: Enter a valid URL." in errors
    assert "“not a url”: Enter a valid URL." in errors
    assert "https://img.example.com/2.jpg" not in errors
    # What was typed is shown again, as typed.
    assert "ftp://img.example.com/3.jpg\nnot a url</textarea>" in response.content.decode()
    product = Product.objects.get(pk=1001)
    assert (product.gallery, product.tags) == (
        ["https://img.example.com/1.jpg"],
        ["trail", "running"],
    )


def test_a_bad_country_code_is_named(staff, product_url):
    response = _post(staff, product_url, regions="US, USA, 1A")

    errors = " ".join(_errors(response))
    assert response.status_code == 200
    assert "“USA” is 3 characters long; at most 2." in errors
    assert "“1A”: not a two-letter country code (e.g. US, GB)." in errors
    assert Product.objects.get(pk=1001).regions == ["US"]


def test_too_many_and_too_long_items_are_refused(staff, product_url):
    many = _post(staff, product_url, tags=",".join(f"tag{n}" for n in range(31)))
    long = _post(staff, product_url, tags="ok\n" + "x" * 65)
    gallery = _post(
        staff, product_url, gallery="\n".join(f"https://img.example.com/{n}.jpg" for n in range(21))
    )

    assert "At most 30 items, not 31." in " ".join(_errors(many))
    assert f"“{'x' * 59}…” is 65 characters long; at most 64." in " ".join(_errors(long))
    assert "At most 20 items, not 21." in " ".join(_errors(gallery))
    assert Product.objects.get(pk=1001).tags == ["trail", "running"]


def test_thirty_tags_after_repeats_are_dropped_are_taken(staff, product_url):
    tags = [f"tag{n}" for n in range(30)]

    response = _post(staff, product_url, tags="\n".join(tags + tags))

    assert response.status_code == 302
    assert Product.objects.get(pk=1001).tags == tags


def test_a_merchants_lists_round_trip_as_the_api_keeps_them(staff, client):
    register(client, "shop-1", subscription_tags=["trail"], regions=["US"], capabilities=["ship"])
    merchant = MerchantAgent.objects.get()
    url = reverse("admin:merchants_merchantagent_change", args=[merchant.pk])
    page = staff.get(url).content.decode()

    response = _post(
        staff,
        url,
        subscription_tags="Trail, RUNNING\ntrail",
        capabilities="ship\nreturns",
        regions="us,de",
        category_tags="",
    )

    for name in ("subscription_tags", "capabilities", "regions", "category_tags"):
        assert re.search(rf'<textarea name="{name}"[^>]*class="string-list"', page), name
    assert response.status_code == 302, _errors(response)
    merchant.refresh_from_db()
    # Lower-cased tags and upper-cased regions, as the API's PATCH keeps them.
    assert merchant.subscription_tags == ["trail", "running"]
    assert merchant.capabilities == ["ship", "returns"]
    assert merchant.regions == ["US", "DE"]
    assert merchant.category_tags == []
    # Saved again unchanged, the lists stay as they are.
    assert _post(staff, url).status_code == 302
    merchant.refresh_from_db()
    assert merchant.subscription_tags == ["trail", "running"]


def test_a_merchants_tag_longer_than_the_api_takes_is_refused(staff, client):
    register(client, "shop-1", subscription_tags=["trail"])
    merchant = MerchantAgent.objects.get()
    url = reverse("admin:merchants_merchantagent_change", args=[merchant.pk])

    response = _post(staff, url, subscription_tags="trail\n" + "t" * 65)

    assert response.status_code == 200
    assert "is 65 characters long; at most 64." in " ".join(_errors(response))
    merchant.refresh_from_db()
    assert merchant.subscription_tags == ["trail"]


def test_the_field_reads_a_list_as_given_and_names_a_nul():
    field = StringListField(max_items=3, max_length=10)

    assert field.clean(["a", " b ", "a", ""]) == ["a", "b"]
    assert field.has_changed(["a", "b"], "a\nb") is False
    assert field.has_changed(["a", "b"], "b, a") is True
    with pytest.raises(Exception, match="holds a NUL character"):
        field.clean("ok\nbad\x00")
