"""Every form of the staff console validates into messages: never a 500, never a raw
constraint name; records only the API creates cannot be added; related records are picked by
search. JSON is never typed as JSON: tests/admin/test_string_lists.py, test_key_values.py."""

import re

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.test import RequestFactory
from django.urls import reverse

from catalog.models import Creator, Product, Video
from merchants.models import MerchantAgent
from tests.factories import ProductFactory
from tests.protocol import register
from tests.support.forms import current_form_data

pytestmark = pytest.mark.django_db

# Created by the API (or by the gateway as it serves it) and nowhere else.
API_ONLY = [
    "matching.intent",
    "matching.proposal",
    "matching.matchsession",
    "matching.matchtoken",
    "matching.intentmandate",
    "merchants.merchantagent",
    "merchants.webhookdelivery",
    "merchants.healthprobe",
    "kernel.idempotencykey",
    "catalog.recommendation",
    "catalog.searchword",  # written by the database as products are
    "reporting.click",
    "reporting.conversion",
]


@pytest.fixture
def staff(client, django_user_model):
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-not-used")
    client.force_login(user)
    client.user = user
    return client


def _model_admins():
    return sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label_lower)


def _form_fields(staff, model_admin, obj=None):
    request = RequestFactory().get("/")
    request.user = staff.user
    return model_admin.get_form(request, obj).base_fields


def _hostile(field) -> str:
    """A value each kind of form field must refuse with a message."""
    name = type(field).__name__
    if name in {"DecimalField", "IntegerField", "FloatField"}:
        return "-1"
    if name == "JSONField":
        return "{not json"
    if name in {"URLField"}:
        return "http://10.0.0.5/" + "x" * 2000
    if name in {"ModelChoiceField", "TypedChoiceField", "ChoiceField"}:
        return "no-such-choice"
    return "x" * 5000


def _assert_refused_with_messages(response, url):
    assert response.status_code == 200, url
    page = response.content.decode()
    assert 'class="errornote"' in page, url
    assert "Constraint “" not in page, url
    assert "constraint" not in page.lower().split("errornote")[1], url


def test_records_only_the_api_creates_cannot_be_added(staff):
    for model, _ in _model_admins():
        opts = model._meta
        add = staff.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
        if opts.label_lower in API_ONLY or opts.app_label == "axes":  # the login lockout's
            assert add.status_code == 403, opts.label_lower
        else:
            assert add.status_code == 200, opts.label_lower


def test_every_add_form_refuses_empty_and_hostile_input_with_messages(staff):
    ProductFactory(id=1001)
    for model, model_admin in _model_admins():
        opts = model._meta
        if opts.label_lower in API_ONLY or opts.app_label == "axes":
            continue
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_add")
        fields = _form_fields(staff, model_admin)
        count = model._default_manager.count()

        empty = staff.post(url, {})
        hostile = staff.post(url, {name: _hostile(field) for name, field in fields.items()})

        _assert_refused_with_messages(empty, url)
        _assert_refused_with_messages(hostile, url)
        assert model._default_manager.count() == count, url


def test_every_change_form_refuses_hostile_input_with_messages(staff, client):
    ProductFactory(id=1001, price_usd=20)
    product = Product.objects.get(pk=1001)
    creator = Creator.objects.create(username="runner", display_name="Runner")
    Video.objects.create(task_id="v-1", creator=creator, product=product)
    register(client, "shop-1")
    for model in (Product, Creator, Video, MerchantAgent):
        model_admin = admin.site._registry[model]
        obj = model._default_manager.get()
        opts = model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)])
        fields = _form_fields(staff, model_admin, obj)
        for name, field in fields.items():
            data = current_form_data(staff.get(url).content.decode())
            data[name] = _hostile(field)
            response = staff.post(url, data)

            if response.status_code == 302:  # the field takes any text: saved, not a 500
                continue
            _assert_refused_with_messages(response, f"{url} {name}")


def test_a_negative_price_is_refused_beside_its_field(staff):
    ProductFactory(id=1001, price_usd=20)
    product = Product.objects.get(pk=1001)
    url = reverse("admin:catalog_product_change", args=[product.pk])
    data = current_form_data(staff.get(url).content.decode())

    response = staff.post(url, {**data, "price_usd": "-5"})

    page = response.content.decode()
    assert response.status_code == 200
    assert "Ensure this value is greater than or equal to 0." in page
    assert re.search(r'class="errorlist"[^>]*id="id_price_usd_error"', page)
    product.refresh_from_db()
    assert product.price_usd == 20


def test_related_records_are_picked_by_search(staff):
    page = staff.get(reverse("admin:catalog_video_add")).content.decode()
    ProductFactory(id=1001, title="Trail Running Shoe")
    product = Product.objects.get(pk=1001)

    found = staff.get(
        reverse("admin:autocomplete"),
        {"term": "trail", "app_label": "catalog", "model_name": "video", "field_name": "product"},
    )

    assert 'class="admin-autocomplete' in page
    assert found.json()["results"] == [{"id": str(product.pk), "text": str(product)}]
