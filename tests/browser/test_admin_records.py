"""The staff console's record pages in a real browser at 1366 px: lists of strings edited as
text and saved as typed, a match session's summary in words, and related records followed by
their links both ways (creator -> videos -> creator, intent -> sessions -> session, merchant ->
its deliveries -> merchant). Every page renders with nothing on the console, nothing past the
right edge and every list column in view."""

from decimal import Decimal

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from catalog.models import Creator, Product, Video
from matching.models import MatchSession
from merchants.models import MerchantAgent, WebhookDelivery
from tests.browser.pages import Findings, arrive, follow, hidden_columns, visit
from tests.factories import ProductFactory
from tests.protocol import create_intent, fan_out, post, propose, register

pytestmark = pytest.mark.browser


def _white_space(driver: WebDriver, selector: str) -> set[str]:
    """How the cells matching `selector` wrap (computed white-space), all of them."""
    return set(
        driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])]"
            ".map((cell) => getComputedStyle(cell).whiteSpace)",
            selector,
        )
    )


def _replace(driver: WebDriver, name: str, text: str) -> None:
    box = driver.find_element(By.NAME, name)
    box.clear()
    box.send_keys(text)


def _save_and_continue(driver: WebDriver) -> Findings:
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.NAME, "_continue").click()
    return arrive(driver, page, ready="#content-main")


def _lists_as_text(driver: WebDriver, names: tuple[str, ...]) -> dict[str, str]:
    """The text of each named list editor; each is a list widget, none a JSON editor."""
    shown = {}
    for name in names:
        box = driver.find_element(By.NAME, name)
        classes = (box.get_attribute("class") or "").split()
        assert "string-list" in classes, name
        assert "json-editor" not in classes, name
        shown[name] = str(box.get_property("value"))
    return shown


def test_a_products_lists_are_edited_as_text_and_saved_as_typed(staff_browser, live_server):
    ProductFactory(id=1001, tags=["trail"], regions=["US"], gallery=["https://img.test/1.jpg"])
    url = live_server.url + reverse("admin:catalog_product_change", args=[1001])

    findings = visit(staff_browser, url, ready="textarea.string-list")

    assert findings.clean, str(findings)
    names = ("tags", "regions", "gallery")
    assert _lists_as_text(staff_browser, names) == {
        "tags": "trail",
        "regions": "US",
        "gallery": "https://img.test/1.jpg",
    }
    _replace(staff_browser, "tags", "trail, Waterproof\n\ntrail")
    _replace(staff_browser, "regions", "us, gb")
    _replace(staff_browser, "gallery", "https://img.test/1.jpg\nhttps://img.test/a,b.jpg\n")

    saved = _save_and_continue(staff_browser)

    assert saved.clean, str(saved)
    assert staff_browser.find_elements(By.CSS_SELECTOR, ".errorlist") == []
    product = Product.objects.get(pk=1001)
    assert product.tags == ["trail", "Waterproof"]
    assert product.regions == ["US", "GB"]
    assert product.gallery == ["https://img.test/1.jpg", "https://img.test/a,b.jpg"]
    assert _lists_as_text(staff_browser, names) == {
        "tags": "trail\nWaterproof",
        "regions": "US\nGB",
        "gallery": "https://img.test/1.jpg\nhttps://img.test/a,b.jpg",
    }


def test_a_bad_gallery_url_is_named_beside_its_field(staff_browser, live_server):
    ProductFactory(id=1001, gallery=["https://img.test/1.jpg"])
    url = live_server.url + reverse("admin:catalog_product_change", args=[1001])
    visit(staff_browser, url, ready="textarea.string-list")
    _replace(staff_browser, "gallery", "https://img.test/1.jpg\nimg.test/2.jpg")

    refused = _save_and_continue(staff_browser)

    assert refused.clean, str(refused)
    errors = staff_browser.find_element(By.ID, "id_gallery_error").text
    assert errors == "“img.test/2.jpg”: Enter a valid URL."
    assert Product.objects.get(pk=1001).gallery == ["https://img.test/1.jpg"]


def test_a_merchants_lists_are_edited_as_text_and_saved_as_the_api_keeps_them(
    staff_browser, live_server, staff
):
    register(staff, "shop-1", subscription_tags=["trail"], regions=["US"])
    merchant = MerchantAgent.objects.get()
    url = live_server.url + reverse("admin:merchants_merchantagent_change", args=[merchant.pk])

    findings = visit(staff_browser, url, ready="textarea.string-list")

    assert findings.clean, str(findings)
    names = ("subscription_tags", "capabilities", "regions", "category_tags")
    assert _lists_as_text(staff_browser, names)["subscription_tags"] == "trail"
    _replace(staff_browser, "subscription_tags", "Trail\nRunning, trail")
    _replace(staff_browser, "regions", "us\nde")

    saved = _save_and_continue(staff_browser)

    assert saved.clean, str(saved)
    merchant.refresh_from_db()
    assert merchant.subscription_tags == ["trail", "running"]
    assert merchant.regions == ["US", "DE"]
    assert _lists_as_text(staff_browser, names)["subscription_tags"] == "trail\nrunning"


def test_creator_to_videos_to_creator(staff_browser, live_server):
    ProductFactory(id=1001, title="TrailFox GTX Trail Running Shoe")
    ProductFactory(id=1002, title="Ridgeline Trail Vest")
    runner = Creator.objects.create(username="runner", display_name="Runner", followers=1234567)
    for n, product in enumerate((1001, 1002)):
        Video.objects.create(
            task_id=f"v-{n}",
            creator=runner,
            product_id=product,
            gmv_usd=Decimal("1204500.50"),
            orders=12345,
            views=9876543,
        )
    url = live_server.url + reverse("admin:catalog_creator_change", args=[runner.pk])

    creator = visit(staff_browser, url, ready="#content-main")
    videos = follow(staff_browser, "2 videos", ready="#result_list")
    columns = hidden_columns(staff_browser)
    figures = staff_browser.find_element(By.ID, "result_list").text
    unbroken = _white_space(staff_browser, "#result_list tbody th, #result_list td.field-gmv")
    back = follow(staff_browser, "@runner", ready="#content-main")

    assert creator.clean, str(creator)
    assert videos.clean, str(videos)
    assert columns == []
    assert "1,204,500.50 12,345 9,876,543" in figures
    assert unbroken == {"nowrap"}  # the task ids and the amounts never wrap
    assert back.clean, str(back)
    assert staff_browser.current_url == url
    products = follow(staff_browser, "2 products", ready="#result_list")
    assert products.clean, str(products)
    assert hidden_columns(staff_browser) == []
    assert "Ridgeline Trail Vest" in staff_browser.find_element(By.ID, "result_list").text


def test_intent_to_sessions_to_a_session_with_its_summary(staff_browser, live_server, staff):
    ProductFactory(id=1001, title="TrailFox GTX Trail Running Shoe", tags=["trail"])
    intent_id = create_intent(staff, intent_tags=["trail"])["intent_id"]
    shop = register(staff, "shop".ljust(64, "x"))
    assert propose(staff, shop, intent_id, 1001, price=1299).status_code == 201
    assert post(staff, "/v1/match", {"intent_id": intent_id}).status_code == 201
    session = MatchSession.objects.get()
    url = live_server.url + reverse("admin:matching_intent_change", args=[quote(intent_id)])

    intent = visit(staff_browser, url, ready="#content-main")
    sessions = follow(staff_browser, "1 match session", ready="#result_list")
    columns = hidden_columns(staff_browser)
    unbroken = _white_space(staff_browser, "#result_list tbody th")
    opened = follow(staff_browser, session.pk, ready="table.summary")

    assert intent.clean, str(intent)
    assert sessions.clean, str(sessions)
    assert columns == []
    assert unbroken == {"nowrap"}
    assert opened.clean, str(opened)
    summary = staff_browser.find_element(By.CSS_SELECTOR, "table.summary").text
    assert "proposals 1 considered, 1 live and ranked, 1 returned (limit 3)" in summary
    assert "weights relevance 0.3" in summary
    assert "{" not in summary
    # And back to the intent, from the session's page.
    back = follow(staff_browser, intent_id, ready="#content-main")
    assert back.clean, str(back)
    assert staff_browser.current_url == url


def test_merchant_to_its_deliveries_and_back(staff_browser, live_server, staff):
    for merchant_id in ("shop-1", "shop-2"):
        register(staff, merchant_id, subscription_tags=["trail"])
    create_intent(staff, intent_tags=["trail"])
    fan_out()
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    own = WebhookDelivery.objects.get(merchant=merchant)
    url = live_server.url + reverse("admin:merchants_merchantagent_change", args=[merchant.pk])

    page = visit(staff_browser, url, ready="#content-main")
    listed = follow(staff_browser, "1 webhook delivery", ready="#result_list")
    rows = [
        row.text for row in staff_browser.find_elements(By.CSS_SELECTOR, "#result_list tbody tr")
    ]
    columns = hidden_columns(staff_browser)
    delivery = follow(staff_browser, str(own.pk), ready="#content-main")
    back = follow(staff_browser, "shop-1", ready="#content-main")

    assert page.clean, str(page)
    assert listed.clean, str(listed)
    assert len(rows) == 1
    assert "shop-1" in rows[0]
    assert columns == []
    assert delivery.clean, str(delivery)
    assert back.clean, str(back)
    assert staff_browser.current_url == url
