"""The staff console speaks in words and links: proper names in labels (A2A, URL, ID, GMV),
filters in words, every related record a link, a click's page showing what its list shows, and
the login attempts' app named for what it holds."""

import re

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse

from matching.models import Proposal
from merchants.models import MerchantAgent, WebhookDelivery
from reporting.models import Click
from tests.protocol import create_intent, fan_out, propose, register

pytestmark = pytest.mark.django_db


def _link(model: str, pk: int | str, text: object) -> str:
    return f'<a href="{reverse(f"admin:{model}_change", args=[quote(pk)])}">{text}</a>'


def test_labels_spell_proper_names(staff, trail_shoe):
    register(staff, "shop-1")
    merchant = MerchantAgent.objects.get()

    page = staff.get(reverse("admin:merchants_merchantagent_change", args=[merchant.pk]))
    merchants = staff.get(reverse("admin:merchants_merchantagent_changelist"))
    videos = staff.get(reverse("admin:catalog_video_changelist"))

    assert "A2A capabilities:" in page.content.decode()
    assert "Agent endpoint URL:" in page.content.decode()
    assert "A2a" not in page.content.decode()
    assert ">Merchant ID</a>" in merchants.content.decode()
    assert ">Agent endpoint URL</a>" in merchants.content.decode()
    assert "GMV (USD)" in videos.content.decode()


def test_related_records_in_lists_are_links(staff, trail_shoe):
    shop = register(staff, "shop-1", subscription_tags=["trail"])
    intent_id = create_intent(staff, intent_tags=["trail"])["intent_id"]
    assert propose(staff, shop, intent_id, 1001, inventory_status="low_stock").status_code == 201
    fan_out()
    merchant = MerchantAgent.objects.get()
    delivery = WebhookDelivery.objects.get()

    deliveries = staff.get(reverse("admin:merchants_webhookdelivery_changelist")).content.decode()
    proposals = staff.get(reverse("admin:matching_proposal_changelist")).content.decode()

    assert _link("matching_intent", intent_id, intent_id) in deliveries
    assert _link("merchants_merchantagent", merchant.pk, "shop-1") in deliveries
    assert _link("merchants_webhookdelivery", delivery.pk, delivery.pk) in deliveries
    assert _link("matching_intent", intent_id, intent_id) in proposals
    assert _link("catalog_product", 1001, "1001 TrailFox GTX Trail Running Shoe") in proposals
    # The inventory filter and the proposal's page say it in words, never `low_stock`.
    assert ">Low stock</a>" in proposals
    assert ">In stock</a>" in proposals
    assert "low_stock" not in re.sub(r'href="[^"]*"', "", proposals)
    proposal = staff.get(
        reverse("admin:matching_proposal_change", args=[quote(Proposal.objects.get().pk)])
    )
    inventory = re.search(
        r'field-inventory".*?class="readonly">([^<]*)<', proposal.content.decode(), re.S
    )
    assert inventory is not None
    assert inventory.group(1) == "Low stock"


def test_a_click_shows_its_card_product_channel_and_time(staff, trail_shoe):
    rec_id = staff.get("/v1/products/1001/card", {"channel": "tiktok"}).json()["rec_id"]
    staff.get(f"/r/{rec_id}")
    click = Click.objects.get()

    page = staff.get(reverse("admin:reporting_click_change", args=[click.pk])).content.decode()
    listed = staff.get(reverse("admin:reporting_click_changelist")).content.decode()

    for shown in (page, listed):
        assert _link("catalog_recommendation", rec_id, rec_id) in shown
        assert _link("catalog_product", 1001, "1001 TrailFox GTX Trail Running Shoe") in shown
        assert "tiktok" in shown
    assert "Clicked at:" in page
    assert "client_key" not in page
    assert click.client_key not in page


def test_the_login_attempts_app_is_named_in_words(staff):
    index = staff.get(reverse("admin:index")).content.decode()
    attempts = staff.get(reverse("admin:axes_accessattempt_changelist")).content.decode()

    assert "Staff login attempts" in index
    assert ">Axes<" not in index
    assert "Staff login attempts" in attempts  # in the breadcrumbs too
