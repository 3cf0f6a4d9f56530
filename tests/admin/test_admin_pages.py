"""Every admin page staff can open renders, and immutable records stay read-only."""

import pytest
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.urls import reverse

from catalog.models import Recommendation
from reporting.models import Click

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model, trail_shoe):
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-not-used")
    client.force_login(user)
    rec_id = client.get("/v1/products/1001/card").json()["rec_id"]
    client.get(f"/r/{rec_id}")
    return client


def test_every_changelist_and_change_page_renders(staff_client):
    for model in admin.site._registry:
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        assert staff_client.get(changelist).status_code == 200, changelist
        assert staff_client.get(changelist, {"q": "trail"}).status_code == 200, changelist
        obj = model._default_manager.first()
        if obj is not None:
            change = reverse(
                f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)]
            )
            assert staff_client.get(change).status_code == 200, change


def test_card_json_is_shown_pretty_and_escaped(staff_client):
    rec = Recommendation.objects.get()
    page = staff_client.get(reverse("admin:catalog_recommendation_change", args=[quote(rec.pk)]))

    assert b"<pre" in page.content
    assert b"&quot;rec_id&quot;: &quot;" + rec.pk.encode() in page.content


@pytest.mark.parametrize("model_name", ["recommendation", "click"])
def test_immutable_records_cannot_be_added_or_deleted(staff_client, model_name):
    app = "reporting" if model_name == "click" else "catalog"

    assert staff_client.get(reverse(f"admin:{app}_{model_name}_add")).status_code == 403
    click = Click.objects.get()
    pk = click.pk if model_name == "click" else click.recommendation_id
    assert (
        staff_client.post(reverse(f"admin:{app}_{model_name}_delete", args=[quote(pk)])).status_code
        == 403
    )
