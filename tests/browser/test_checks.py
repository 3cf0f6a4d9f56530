"""The suite's checks can fail: on a real page that passes, whatever is put in that a page must
not have (something wider than the screen, an error on the console, a script that throws, an
asset from outside) is reported by the same `look` every page test goes through."""

import pytest
from selenium.webdriver.support.wait import WebDriverWait

from tests.browser.pages import look, visit

pytestmark = pytest.mark.browser


@pytest.fixture
def landing(browser, live_server):
    """The landing page, found clean before anything is put in."""
    findings = visit(browser, f"{live_server.url}/", ready=".doors")
    assert findings.clean, str(findings)
    return browser


def test_an_element_wider_than_the_screen_is_overflow(landing):
    right = landing.execute_script(
        "const wide = document.createElement('div');"
        "wide.id = 'too-wide'; wide.style.width = '2000px'; wide.textContent = 'wide';"
        "document.querySelector('.doors').before(wide);"
        "return Math.round(wide.getBoundingClientRect().right);"
    )

    findings = look(landing)

    assert right > 2000
    assert findings.overflow == [
        f"the document is {right} px wide",
        f"the body is {right} px wide",
        f"div#too-wide ends at {right} px",
    ]
    assert findings.console_errors == []
    assert not findings.clean


def test_a_wide_element_in_a_scrolling_box_is_not_overflow(landing):
    landing.execute_script(
        "const box = document.createElement('div'); box.style.overflowX = 'auto';"
        "box.innerHTML = '<table style=\"width: 2000px\"><tr><td>wide</td></tr></table>';"
        "document.querySelector('.doors').before(box);"
    )

    findings = look(landing)

    assert findings.clean, str(findings)


def test_an_error_on_the_console_is_reported(landing):
    landing.execute_script("console.error('the cart is empty');")

    findings = look(landing)

    assert len(findings.console_errors) == 1
    assert "the cart is empty" in findings.console_errors[0]
    assert findings.overflow == []


def test_a_script_that_throws_is_reported(landing):
    landing.execute_script(
        "const script = document.createElement('script');"
        "script.textContent = 'throw new Error(\"no such widget\")';"
        "document.body.append(script);"
    )

    findings = look(landing)

    assert len(findings.console_errors) == 1
    assert "Uncaught Error: no such widget" in findings.console_errors[0]


def test_an_asset_from_outside_fails_to_load_and_is_reported(landing):
    # What a page that took its scripts from a CDN would meet: the browser reaches nothing but
    # loopback, and the failed load is on the console.
    asset = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/favicon-32x32.png"
    landing.execute_script(
        "const image = document.createElement('img');"
        "image.id = 'outside'; image.src = arguments[0];"
        "image.onerror = () => { image.dataset.failed = 'yes'; };"
        "document.body.append(image);",
        asset,
    )
    WebDriverWait(landing, 20).until(
        lambda page: page.execute_script("return document.getElementById('outside').dataset.failed")
    )

    findings = look(landing)

    assert len(findings.console_errors) == 1
    assert findings.console_errors[0].startswith(f"{asset} - Failed to load resource")
