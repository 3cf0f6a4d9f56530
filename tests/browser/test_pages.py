"""The gateway's other pages in a real browser at 1366 px: the landing page, the Swagger UI of
the contract and the supply report with its charts. Each renders with nothing on the console
and nothing past the right edge."""

import pytest
from selenium.webdriver.common.by import By

from tests.browser.pages import visit
from tests.protocol import register
from tests.reporting.conftest import SUPPLY_KEY, convert, issue_card

pytestmark = pytest.mark.browser


def test_the_landing_page_renders_clean(browser, live_server):
    findings = visit(browser, f"{live_server.url}/", ready=".doors")

    assert findings.clean, str(findings)
    assert browser.find_element(By.TAG_NAME, "h1").text == (
        "Product Recommendation and Intent-Matching Gateway"
    )
    links = {a.get_attribute("href") for a in browser.find_elements(By.CSS_SELECTOR, "a")}
    assert {f"{live_server.url}/docs/", f"{live_server.url}/admin/"} <= links


def test_the_swagger_ui_renders_the_contract_from_local_assets(browser, live_server):
    # Operations are drawn once the page's script has fetched and read /openapi.json.
    findings = visit(browser, f"{live_server.url}/docs/", ready=".swagger-ui .opblock")

    assert findings.clean, str(findings)
    title = browser.find_element(By.CSS_SELECTOR, ".swagger-ui .info .title").text
    assert title.startswith("Product Recommendation and Intent-Matching Gateway")
    assert len(browser.find_elements(By.CSS_SELECTOR, ".swagger-ui .opblock")) >= 20
    loaded = browser.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)"
    )
    assert any(name.endswith("/openapi.json") for name in loaded)
    assert [name for name in loaded if not name.startswith(f"{live_server.url}/")] == []


def test_the_supply_report_renders_its_charts_clean(
    staff_browser, live_server, staff, settings, trail_shoe
):
    settings.SUPPLY_API_KEYS = [SUPPLY_KEY]
    shop = register(staff, "shop-a")
    recs = [issue_card(staff, 1001, channel) for channel in ("agent.a", "agent.a", "agent.b")]
    for n, rec_id in enumerate(recs[:2]):
        assert staff.get(f"/r/{rec_id}", HTTP_USER_AGENT=f"Shopper/{n}").status_code == 302
    assert convert(staff, shop, "A-1", rec_id=recs[0], amount=89.99).status_code == 201

    findings = visit(staff_browser, f"{live_server.url}/reports/", ready="svg")

    assert findings.clean, str(findings)
    charts = staff_browser.find_elements(By.TAG_NAME, "svg")
    assert len(charts) == 4  # cards, clicks and conversions each on its own; GMV
    assert all(chart.is_displayed() and chart.size["width"] > 0 for chart in charts)
    assert len(staff_browser.find_elements(By.CSS_SELECTOR, "rect.bar")) == 30  # a bar a day
    # The labels are drawn in capitals; the figures as the report counts them.
    figures = {
        kpi.find_element(By.CLASS_NAME, "label").text.lower(): kpi.find_element(
            By.CLASS_NAME, "value"
        ).text
        for kpi in staff_browser.find_elements(By.CSS_SELECTOR, ".kpis .kpi")
    }
    assert figures == {
        "cards issued": "3",
        "clicks": "2",
        "match sessions": "0",
        "conversions": "1",
        "gmv": "$89.99",
    }
