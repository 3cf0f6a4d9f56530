"""The staff console in a real browser at 1366 px: the front page, a match session with its
ranking, a webhook delivery with its attempts, the list of deliveries. Each renders with
nothing on the console and nothing past the right edge."""

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils import timezone
from selenium.webdriver.common.by import By

from matching.models import MatchSession
from merchants.delivery import delivery_attempt
from merchants.models import DeliveryStatus, WebhookDelivery
from tests.browser.pages import hidden_columns, visit
from tests.factories import ProductFactory
from tests.protocol import create_intent, fan_out, post, propose, register

pytestmark = pytest.mark.browser


def test_the_front_page_renders_clean(staff_browser, live_server, staff, trail_shoe):
    # Something for the day's tiles to count: a card and its click.
    rec_id = staff.get("/v1/products/1001/card").json()["rec_id"]
    assert staff.get(f"/r/{rec_id}").status_code == 302

    findings = visit(staff_browser, f"{live_server.url}/admin/", ready="#today")

    assert findings.clean, str(findings)
    assert staff_browser.find_element(By.ID, "user-tools").text.startswith("WELCOME, STAFF")
    tiles = [tile.text for tile in staff_browser.find_elements(By.CSS_SELECTOR, "#today .tile")]
    assert "1\nclick" in tiles
    assert "0\nconversions" in tiles


def test_a_match_session_page_shows_its_ranking_clean(staff_browser, live_server, staff):
    for pid, title, tags in [
        (1001, "TrailFox GTX Trail Running Shoe", ["trail", "waterproof"]),
        (1002, "Citywalk Canvas Sneaker", ["canvas"]),
        (1003, "Ridgeline Trail Running Vest With A Long Descriptive Merchant Title", ["trail"]),
    ]:
        ProductFactory(id=pid, title=title, category_l2="Running Shoes", tags=tags)
    intent_id = create_intent(
        staff, intent_tags=["trail", "running"], budget_range={"max": 120, "currency": "USD"}
    )["intent_id"]
    for n, (product_id, price, stock, days) in enumerate(
        [(1001, 99, "in_stock", 2), (1002, 150, "low_stock", 12), (1003, 60, "unknown", 5)]
    ):
        # The longest merchant id there may be, with nowhere to break it.
        shop = register(staff, f"shop{n}".ljust(64, "x"))
        answer = propose(
            staff,
            shop,
            intent_id,
            product_id,
            price=price,
            inventory_status=stock,
            shipping_commitment={"max_days": days},
        )
        assert answer.status_code == 201, answer.content
    created = post(staff, "/v1/match", {"intent_id": intent_id})
    assert created.status_code == 201, created.content
    session = MatchSession.objects.get()
    # quote: the admin's own escaping of ids in URLs ("mss_40..." would read as "mss@...").
    url = reverse("admin:matching_matchsession_change", args=[quote(session.pk)])

    findings = visit(staff_browser, live_server.url + url, ready="table.ranking")

    assert findings.clean, str(findings)
    rows = staff_browser.find_elements(By.CSS_SELECTOR, "table.ranking tbody tr")
    assert [row.find_element(By.CSS_SELECTOR, "td").text for row in rows] == ["1", "2", "3"]
    reasons = [row.find_elements(By.CSS_SELECTOR, ".reason") for row in rows]
    assert all(reasons)
    assert reasons[0][0].text.startswith("matches 2 of 2 intent tags")


def test_a_delivery_page_shows_its_attempts_clean(staff_browser, live_server, staff, receiver):
    receiver.script("500", "200")
    register(staff, "shop-1", agent_endpoint=receiver.url, subscription_tags=["trail"])
    create_intent(staff, intent_tags=["trail"])
    fan_out()
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)
    # The retry falls due now rather than after the schedule's first wait.
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
    delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempt_count) == (DeliveryStatus.SUCCEEDED, 2)
    url = reverse("admin:merchants_webhookdelivery_change", args=[delivery.pk])

    findings = visit(staff_browser, live_server.url + url, ready="#content-main")

    assert findings.clean, str(findings)
    page = staff_browser.find_element(By.ID, "content").text
    assert f"{delivery.event_id} to shop-1" in page
    assert "attempt 1" in page
    assert "attempt 2" in page

    listed = visit(
        staff_browser,
        live_server.url + reverse("admin:merchants_webhookdelivery_changelist"),
        ready="#result_list",
    )

    assert listed.clean, str(listed)
    assert len(staff_browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")) == 1


def test_the_lists_show_every_column_at_1366_px(staff_browser, live_server, staff, trail_shoe):
    # One of each record the lists show, with the longest merchant id there may be.
    merchant_id = "shop".ljust(64, "x")
    shop = register(staff, merchant_id)
    intent_id = create_intent(staff, intent_tags=["trail"])["intent_id"]
    proposal = propose(staff, shop, intent_id, 1001, price=99).json()["proposal"]
    session = post(staff, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    path = f"/v1/match/{session['match_session_id']}/accept"
    minted = post(staff, path, {"proposal_id": proposal["proposal_id"]}).json()
    rec_id = staff.get("/v1/products/1001/card?channel=my-shopping-agent").json()["rec_id"]
    staff.get(f"/r/{rec_id}")
    sale = {
        "merchant_agent_id": merchant_id,
        "rec_id": rec_id,
        "order_id": "SO-2026-11-00001",
        "amount": 89.99,
        "currency": "EUR",
        "occurred_at": timezone.now().isoformat(),
    }
    assert post(staff, "/v1/attribution/conversions", sale, shop.token).status_code == 201
    assert minted["match_token"]["match_token_id"]

    for model in [
        "matching/intent", "matching/proposal", "matching/matchsession", "matching/matchtoken",
        "merchants/merchantagent", "catalog/product", "catalog/creator", "catalog/video",
        "catalog/recommendation",
        "reporting/click", "reporting/conversion",
    ]:  # fmt: skip
        findings = visit(staff_browser, f"{live_server.url}/admin/{model}/", ready="#result_list")

        assert findings.clean, str(findings)
        assert hidden_columns(staff_browser) == [], model
