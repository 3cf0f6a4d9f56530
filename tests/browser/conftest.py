"""The browser suite's fixtures: one headless Chromium for the suite, the gateway on
pytest-django's live server (a real HTTP server in this process, over the test database, so the
rows a test writes are the ones the page shows), and staff logged in."""

import os
from collections.abc import Iterator

import pytest
from django.conf import settings
from selenium.webdriver.chrome.webdriver import WebDriver

from tests.browser import pages


@pytest.fixture(scope="package")
def chromium() -> Iterator[WebDriver]:
    """Started once for the suite (a browser costs about a second, a page a fraction of it) and
    quit when it ends, not kept through the rest of the run."""
    lacking = pages.missing()
    if lacking:
        reason = (
            f"the browser suite needs Debian's Chromium; {' and '.join(lacking)} not found "
            "(apt-get install chromium chromium-driver)"
        )
        if os.environ.get(pages.REQUIRE) == "require":
            pytest.fail(f"{reason}, and {pages.REQUIRE}=require", pytrace=False)
        pytest.skip(reason)
    driver = pages.start()
    yield driver
    driver.quit()


@pytest.fixture
def browser(chromium, live_server) -> WebDriver:
    """The browser on a blank page with no cookies: nobody logged in. The live server makes the
    test's database transactional: its rows are committed where the server can read them."""
    chromium.get("about:blank")
    # Every site's cookies: WebDriver's own command clears only the current page's.
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})
    return chromium


@pytest.fixture
def staff(client, django_user_model):
    """A superuser, logged in on the test client (whose API calls build the pages' records)."""
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw-unused")
    client.force_login(user)
    return client


@pytest.fixture
def staff_browser(browser, staff, live_server) -> WebDriver:
    """The browser carrying the staff member's session cookie, as if they had logged in."""
    # A cookie is set for the site the browser is on: the smallest page of the gateway's.
    browser.get(f"{live_server.url}/favicon.ico")
    cookie = staff.cookies[settings.SESSION_COOKIE_NAME]
    browser.add_cookie({"name": cookie.key, "value": cookie.value, "path": "/"})
    return browser
