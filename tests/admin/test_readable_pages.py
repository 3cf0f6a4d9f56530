"""The console reads as staff speak: figures grouped in thousands, a catalog proposal offered by
the catalog, a session's summary in words, no "Api" and no doubled breadcrumb, a next attempt
only while one is pending, and related records a click apart both ways."""

import re
from decimal import Decimal

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils import timezone

from catalog.models import Creator, Video
from kernel.admin_display import Tile
from matching.models import MatchSession, Proposal, Provenance
from merchants.models import DeliveryStatus, HealthProbe, MerchantAgent, WebhookDelivery
from tests.factories import ProductFactory
from tests.protocol import create_intent, fan_out, post, propose, register

pytestmark = pytest.mark.django_db


@pytest.fixture
def creator():
    """A creator with three videos of two products, and a product of no video of theirs."""
    ProductFactory(id=1001, title="Trail Shoe", price_usd=Decimal("1299.00"))
    ProductFactory(id=1002, title="Trail Vest")
    ProductFactory(id=1003, title="Canvas Sneaker")
    runner = Creator.objects.create(username="runner", display_name="Runner", followers=1234567)
    for n, product in enumerate((1001, 1002, 1001)):
        Video.objects.create(
            task_id=f"v-{n}",
            creator=runner,
            product_id=product,
            gmv_usd=Decimal("1204500.50"),
            orders=12345,
            views=9876543,
        )
    return runner


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def _hrefs(response) -> list[str]:
    return [
        h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', response.content.decode())
    ]


def test_figures_are_grouped_in_thousands_and_ids_are_not(staff, creator):
    videos = staff.get(reverse("admin:catalog_video_changelist"))
    creators = staff.get(reverse("admin:catalog_creator_changelist"))
    products = staff.get(reverse("admin:catalog_product_changelist"))
    product = staff.get(reverse("admin:catalog_product_change", args=[1001]))

    assert "1,204,500.50" in _text(videos)
    assert "12,345" in _text(videos)
    assert "9,876,543" in _text(videos)
    assert "1,234,567" in _text(creators)
    assert "1,299.00" in _text(products)
    assert "1,001" not in _text(products)  # an id is not a figure
    assert "1,204,500.50" in _text(product)  # the videos under the product, read-only


def test_a_creator_leads_to_its_videos_and_products_and_back(staff, creator):
    page = staff.get(reverse("admin:catalog_creator_change", args=[creator.pk]))
    videos_url = reverse("admin:catalog_video_changelist") + "?creator=runner"
    products_url = reverse("admin:catalog_product_changelist") + "?creator=runner"

    videos = staff.get(videos_url)
    products = staff.get(products_url)

    assert videos_url in _hrefs(page)
    assert products_url in _hrefs(page)
    assert "3 videos" in _text(page)
    assert "2 products" in _text(page)
    assert videos.status_code == products.status_code == 200
    assert sorted(re.findall(r"\bv-\d\b", _text(videos))) == ["v-0", "v-1", "v-2"]
    assert "Trail Shoe" in _text(products)
    assert "Canvas Sneaker" not in _text(products)
    # Each product once, with its own count of videos.
    assert _text(products).count("Trail Shoe") == 1
    counts = re.findall(r'<td class="field-video_count">(\d+)</td>', products.content.decode())
    assert counts == ["2", "1"]
    # Each video leads back to its creator.
    creator_page = reverse("admin:catalog_creator_change", args=[creator.pk])
    assert _hrefs(videos).count(creator_page) == 3
    # The list says it is filtered, and to what.
    assert "By creator" in _text(videos)


def test_a_filter_to_no_such_record_is_no_error(staff, creator):
    response = staff.get(reverse("admin:catalog_video_changelist"), {"product": "not-a-number"})

    assert response.status_code == 302  # Django's "?e=1": the lookup was refused
    assert response.url.endswith("?e=1")


@pytest.fixture
def session(staff, trail_shoe):
    shop = register(staff, "shop-1")
    intent_id = create_intent(staff, intent_tags=["trail"])["intent_id"]
    assert propose(staff, shop, intent_id, 1001, price=1299).status_code == 201
    # What recommend proposes for the catalog: no merchant.
    Proposal.objects.create(
        proposal_id="prp_catalog1",
        intent_id=intent_id,
        product_id=1001,
        offer_title="TrailFox GTX",
        price=Decimal("1299.00"),
        provenance=Provenance.CATALOG,
    )
    assert post(staff, "/v1/match", {"intent_id": intent_id}).status_code == 201
    return MatchSession.objects.get(intent_id=intent_id)


def test_a_sessions_summary_reads_as_words_not_json(staff, session):
    url = reverse("admin:matching_matchsession_change", args=[quote(session.pk)])

    page = staff.get(url)

    text = _text(page)
    assert 'class="summary"' in page.content.decode()
    assert "2 considered, 2 live and ranked, 2 returned (limit 3)" in text
    # In the ranking's order, whatever order the database keeps the keys in.
    assert "weights relevance 0.3, price_fit 0.2, availability 0.15, shipping 0.1" in text
    assert "ties broken by score desc" in text
    assert "intent tags trail" in text
    assert "&quot;considered&quot;" not in page.content.decode()


def test_a_catalog_proposal_says_it_came_from_the_catalog(staff, session):
    catalog = Proposal.objects.filter(merchant__isnull=True).first()
    assert catalog is not None

    listed = staff.get(reverse("admin:matching_proposal_changelist"))
    page = staff.get(reverse("admin:matching_proposal_change", args=[quote(catalog.pk)]))

    assert "Catalog (gateway)" in _text(listed)
    assert "Catalog (gateway)" in _text(page)
    assert "1,299.00" in _text(listed)


def test_an_intent_leads_to_its_sessions_proposals_and_deliveries(staff, session):
    intent = session.intent
    other = create_intent(staff, intent_tags=["canvas"])["intent_id"]
    MatchSession.objects.create(match_session_id="mss_of_another_intent", intent_id=other)
    page = staff.get(reverse("admin:matching_intent_change", args=[quote(intent.pk)]))
    sessions_url = reverse("admin:matching_matchsession_changelist") + f"?intent={intent.pk}"
    proposals_url = reverse("admin:matching_proposal_changelist") + f"?intent={intent.pk}"

    sessions = staff.get(sessions_url)
    proposals = staff.get(proposals_url)

    assert {sessions_url, proposals_url} <= set(_hrefs(page))
    assert "1 match session" in _text(page)
    assert "2 proposals" in _text(page)
    assert session.pk in _text(sessions)
    assert "mss_of_another_intent" not in _text(sessions)
    assert reverse("admin:matching_intent_change", args=[quote(intent.pk)]) in _hrefs(sessions)
    assert proposals.status_code == 200
    # The intent's tags read as a list, not as JSON.
    assert "[&quot;trail&quot;]" not in page.content.decode()


@pytest.fixture
def deliveries(staff):
    """A delivery to each of two merchants, one of them finished."""
    for merchant_id in ("shop-1", "shop-2"):
        register(staff, merchant_id, subscription_tags=["trail"])
    create_intent(staff, intent_tags=["trail"])
    fan_out()
    WebhookDelivery.objects.filter(merchant__merchant_id="shop-2").update(
        status=DeliveryStatus.SUCCEEDED
    )
    return {d.merchant.merchant_id: d for d in WebhookDelivery.objects.select_related("merchant")}


def test_a_merchant_leads_to_its_deliveries_only(staff, deliveries):
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    page = staff.get(reverse("admin:merchants_merchantagent_change", args=[merchant.pk]))
    url = (
        reverse("admin:merchants_webhookdelivery_changelist")
        + f"?merchant__id__exact={merchant.pk}"
    )

    listed = staff.get(url)

    assert url in _hrefs(page)
    assert "1 webhook delivery" in _text(page)
    own = reverse("admin:merchants_webhookdelivery_change", args=[deliveries["shop-1"].pk])
    other = reverse("admin:merchants_webhookdelivery_change", args=[deliveries["shop-2"].pk])
    # Each row links its delivery, keeping the list's filter for the way back.
    rows = [href.split("?")[0] for href in _hrefs(listed)]
    assert own in rows
    assert other not in rows


def test_a_finished_delivery_shows_no_next_attempt(staff, deliveries):
    pending, finished = deliveries["shop-1"], deliveries["shop-2"]

    pending_page = staff.get(reverse("admin:merchants_webhookdelivery_change", args=[pending.pk]))
    finished_page = staff.get(reverse("admin:merchants_webhookdelivery_change", args=[finished.pk]))

    assert pending.next_attempt_at is not None
    assert "Next attempt at" in _text(pending_page)
    assert "Next attempt at" not in _text(finished_page)


def test_no_doubled_breadcrumb_and_no_api_label(staff, deliveries):
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    HealthProbe.objects.create(
        merchant=merchant, checked_at=timezone.now(), healthy=True, status_code=200, trigger="api"
    )

    merchants = staff.get(reverse("admin:merchants_merchantagent_changelist"))
    probes = staff.get(reverse("admin:merchants_healthprobe_changelist"))

    crumbs = re.search(r'<div class="breadcrumbs">(.*?)</div>', merchants.content.decode(), re.S)
    assert crumbs is not None
    assert re.sub(r"<[^>]+>|\s+|&rsaquo;", " ", crumbs.group(1)).split() == [
        "Home",
        "Merchants",
        "Merchant",
        "agents",
    ]
    assert ">Api<" not in probes.content.decode()
    assert "by its merchant (health API)" in _text(probes)


def test_a_front_page_tile_groups_its_count_and_keeps_an_amount_as_formatted():
    assert Tile("intents", 12345, "/admin/").shown == "12,345"
    assert Tile("GMV, USD", "1,204.50", "/admin/").shown == "1,204.50"
