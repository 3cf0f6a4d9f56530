"""The errors a person meets, in a real browser at 1366 px: a dead buy link, a console page that
does not exist and one the account may not see, the supply reports for a visitor who is not
signed in, a form whose security token is gone, an unknown address and a bug. Each is a page in
the gateway's style (the console's, inside the console) with a way forward that is followed here
to a page that works; the same URLs asked for JSON answer the envelope."""

import http.client
import json
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth.models import Permission
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from tests.browser.pages import Findings, arrive, follow, visit
from tests.reporting.conftest import SUPPLY_KEY

pytestmark = pytest.mark.browser

DEAD_LINK = "/r/rec_000000000000000000000000"


def _clean_but_its_status(findings: Findings, status: int) -> Findings:
    """The findings without the console's note of the page's own status, which Chromium logs
    for every document answered with an error status: that status is the point of the page."""
    own = f"the server responded with a status of {status}"
    kept = [message for message in findings.console_errors if own not in message]
    return Findings(findings.url, kept, findings.overflow)


def _ways(driver: WebDriver) -> dict[str, str]:
    """The page's links forward: text -> href."""
    return {
        link.text: str(link.get_attribute("href"))
        for link in driver.find_elements(By.CSS_SELECTOR, "ul.ways a")
    }


def _as_a_program(url: str, cookie: str = "") -> tuple[int, dict[str, str]]:
    """The status and JSON body a program that asks for JSON gets at `url`."""
    headers = {"Accept": "application/json", **({"Cookie": cookie} if cookie else {})}
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=30)
    try:
        connection.request("GET", parts.path, headers=headers)
        answer = connection.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        connection.close()


def _signed_in(browser: WebDriver, client, live_server, user) -> str:
    """The browser carrying `user`'s session; the cookie, for a program to send too."""
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    browser.get(f"{live_server.url}/favicon.ico")
    browser.add_cookie({"name": cookie.key, "value": cookie.value, "path": "/"})
    return f"{cookie.key}={cookie.value}"


def test_a_dead_buy_link_tells_the_shopper_and_links_the_shop(browser, live_server, settings):
    settings.SHOP_HOME_URL = "https://shop.test/"

    findings = visit(browser, live_server.url + DEAD_LINK, ready="section.error")

    assert _clean_but_its_status(findings, 404).clean, str(findings)
    assert browser.find_element(By.TAG_NAME, "h1").text == "This offer is no longer available"
    assert _ways(browser)["Visit the shop"] == "https://shop.test/"
    assert _as_a_program(live_server.url + DEAD_LINK) == (
        404,
        {"error": "not found", "message": "No card was issued under that rec_id."},
    )


def test_an_unknown_console_page_stays_in_the_console(staff_browser, live_server, staff):
    browser = staff_browser
    url = f"{live_server.url}/admin/catalog/no-such-page/"
    session = staff.cookies[settings.SESSION_COOKIE_NAME]
    cookie = f"{session.key}={session.value}"

    findings = visit(browser, url, ready="#content-main.error-page")
    heading = browser.find_element(By.CSS_SELECTOR, "#content h1").text
    home = follow(browser, "Staff console home", ready="#content-main")

    assert _clean_but_its_status(findings, 404).clean, str(findings)
    assert heading == "There is nothing here"
    assert home.clean, str(home)
    assert browser.current_url == f"{live_server.url}/admin/"
    assert _as_a_program(url, cookie)[0] == 404
    assert _as_a_program(url, cookie)[1]["error"] == "not found"


def test_a_console_page_the_account_may_not_see_says_who_can_grant_it(
    browser, live_server, client, django_user_model
):
    clerk = django_user_model.objects.create_user("clerk", is_staff=True)
    url = f"{live_server.url}/admin/catalog/product/"
    cookie = _signed_in(browser, client, live_server, clerk)

    findings = visit(browser, url, ready="#content-main.error-page")
    text = browser.find_element(By.ID, "content").text
    home = follow(browser, "Staff console home", ready="#content-main")

    assert _clean_but_its_status(findings, 403).clean, str(findings)
    assert "You may not open this page" in text
    assert "An administrator can grant it" in text
    assert home.clean, str(home)
    assert _as_a_program(url, cookie) == (
        403,
        {"error": "forbidden", "message": "You do not have permission to perform this action."},
    )


def test_the_reports_send_a_visitor_to_a_sign_in_that_says_what_they_need(
    browser, live_server, django_user_model, settings
):
    settings.SUPPLY_API_KEYS = [SUPPLY_KEY]
    analyst = django_user_model.objects.create_user("analyst", password="pw-analyst", is_staff=True)
    analyst.user_permissions.add(Permission.objects.get(codename="view_attribution_report"))

    login = visit(browser, f"{live_server.url}/reports/", ready=".signin-purpose")
    note = browser.find_element(By.CSS_SELECTOR, ".signin-purpose").text
    browser.find_element(By.NAME, "username").send_keys("analyst")
    browser.find_element(By.NAME, "password").send_keys("pw-analyst")
    page = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    reports = arrive(browser, page, ready=".panel")

    assert login.clean, str(login)
    assert "The supply reports need a staff sign-in." in note
    assert "reporting.view_attribution_report" in note
    assert reports.clean, str(reports)
    assert browser.current_url == f"{live_server.url}/reports/"
    status, body = _as_a_program(f"{live_server.url}/reports/")
    assert (status, body["error"]) == (403, "forbidden")


def test_a_form_whose_token_is_gone_explains_and_leads_back_to_it(
    browser, live_server, django_user_model
):
    django_user_model.objects.create_superuser("root", "root@gateway.test", "pw-root")
    visit(browser, f"{live_server.url}/admin/login/?next=/admin/", ready="#login-form")
    browser.delete_cookie(settings.CSRF_COOKIE_NAME)  # as a browser that refused it would
    browser.find_element(By.NAME, "username").send_keys("root")
    browser.find_element(By.NAME, "password").send_keys("pw-root")
    page = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    refused = arrive(browser, page, ready="section.error")
    heading = browser.find_element(By.TAG_NAME, "h1").text

    again = follow(browser, "Open the page again", ready="#login-form")
    browser.find_element(By.NAME, "username").send_keys("root")
    browser.find_element(By.NAME, "password").send_keys("pw-root")
    page = browser.find_element(By.TAG_NAME, "html")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    console = arrive(browser, page, ready="#content-main")

    assert _clean_but_its_status(refused, 403).clean, str(refused)
    assert heading == "This form has expired"
    assert again.clean, str(again)
    assert console.clean, str(console)
    assert browser.current_url == f"{live_server.url}/admin/"


@pytest.mark.urls("tests.gateway.urls")
@pytest.mark.parametrize(
    ("path", "status", "heading"),
    [
        ("/v1/nowhere", 404, "There is nothing here"),
        ("/docs/nothing.md", 404, "There is nothing here"),
        ("/boom", 500, "Something went wrong on our side"),
    ],
)
def test_an_unknown_address_and_a_bug_are_pages_leading_home(
    browser, live_server, path, status, heading
):
    findings = visit(browser, live_server.url + path, ready="section.error")
    shown = browser.find_element(By.TAG_NAME, "h1").text
    home = follow(browser, "The gateway's home page", ready=".doors")

    assert _clean_but_its_status(findings, status).clean, str(findings)
    assert shown == heading
    assert home.clean, str(home)
    assert _as_a_program(live_server.url + path)[0] == status
