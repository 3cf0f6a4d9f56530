"""Every page of the staff console, walked in a real browser at 1366 px as a superuser: each
registered model's list and one record's page (models registered later are walked too). Each
must render with nothing on the console and nothing past the right edge, every list column in
view, no JSON text (`[]`, `{}`, `{"`) where a value is shown, no word broken across two lines
(`intent.surg` / `e`), no raw code (`in_stock`) among a list's filters."""

import pytest
from axes.models import AccessFailureLog
from django.contrib import admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Group
from django.db.models import Model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from selenium.webdriver.chrome.webdriver import WebDriver

from matching.models import MatchSession
from merchants.models import HealthProbe, MerchantAgent, ProbeTrigger
from tests.browser.pages import hidden_columns, visit
from tests.protocol import create_intent, fan_out, post, propose, register

pytestmark = pytest.mark.browser

# Text of the values a page shows (cells, read-only fields, lists), not of what staff type nor
# of a signed body's exact bytes, which are shown as sent on purpose.
RAW_JSON_JS = """
const found = [];
const values = document.querySelectorAll(
  "#content td, #content th, #content .readonly, #content li, #content p");
for (const el of values) {
  if (el.closest("pre.exact-bytes, textarea, select, #changelist-filter")) continue;
  const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join("");
  for (const raw of ["[]", "{}", '{"', '":']) {
    if (own.includes(raw)) {
      found.push(`${el.tagName.toLowerCase()}: ${own.trim().slice(0, 80)}`);
      break;
    }
  }
}
return found;
"""

# Text broken between two letters or digits: the second one starts a lower line than the first.
# A break after a separator (`intent.` / `surge`) or a space is a line's ordinary end.
BROKEN_WORDS_JS = """
const found = [];
const alnum = /[A-Za-z0-9]/;
const range = document.createRange();
const root = document.querySelector("#content") || document.body;
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const text = node.data;
  if (!/[A-Za-z0-9]{2}/.test(text)) continue;
  const parent = node.parentElement;
  if (!parent || parent.closest("pre.exact-bytes, script, style, textarea, select")) continue;
  if (!parent.getClientRects().length) continue;
  let last = null;
  for (let i = 0; i < text.length; i++) {
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const box = range.getClientRects()[0];
    if (!box || !box.height) { last = null; continue; }
    const lower = last && box.top > last.top + last.height / 2;
    if (lower && alnum.test(text[i]) && alnum.test(text[i - 1])) {
      found.push(`${parent.tagName.toLowerCase()}.${parent.className}: ` +
        `${text.slice(Math.max(0, i - 20), i)}|${text.slice(i, i + 20)}`);
      break;
    }
    last = box;
  }
}
return found;
"""

# A filter's choice that reads as a code (`in_stock`, `self_accepted`), not words.
RAW_FILTERS_JS = """
return [...document.querySelectorAll("#changelist-filter li a")]
  .map((a) => a.textContent.trim())
  .filter((text) => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(text));
"""


@pytest.fixture
def every_record(staff, trail_shoe, signing_key):
    """At least one record of every registered model, made as they are made: through the API
    (a card and its click, a merchant, an intent with its budget and metadata, a proposal with
    its terms, a session, an accepted token, a mandate, a conversion, a POST with an
    Idempotency-Key), the fan-out (deliveries), a probe's row, a group, and logins (attempts,
    logs)."""
    card = staff.get("/v1/products/1001/card")
    assert card.status_code == 200, card.content
    rec_id = card.json()["rec_id"]
    staff.get(f"/r/{rec_id}")
    shop = register(
        staff,
        "shop-1",
        subscription_tags=["trail"],
        a2a_capabilities={"streaming": False, "skills": ["quote"]},
        metadata={"tier": "gold"},
        inventory_scope=[{"sku_prefix": "TF-"}],
    )
    intent_id = create_intent(
        staff,
        intent_tags=["trail"],
        budget_range={"min": 50, "max": 150, "currency": "USD"},
        constraints=["waterproof"],
        metadata={"source": "chat"},
    )["intent_id"]
    proposal = propose(
        staff,
        shop,
        intent_id,
        1001,
        price=79.5,
        inventory_status="in_stock",
        shipping_commitment={"max_days": 3, "free": True},
        commission_plan={"rate": 0.12},
        metadata={"campaign": "spring"},
    ).json()["proposal"]
    session = post(staff, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    accepted = post(
        staff,
        f"/v1/match/{session['match_session_id']}/accept",
        {"proposal_id": proposal["proposal_id"]},
    )
    assert accepted.status_code in (200, 201), accepted.content
    signed = post(staff, "/v1/intent-mandates/sign", {"product_id": "1001", "amount_limit": 120})
    assert signed.status_code in (200, 201), signed.content
    conversion = {
        "merchant_agent_id": "shop-1",
        "rec_id": rec_id,
        "order_id": "ORD-1",
        "amount": 89.99,
        "currency": "USD",
        "occurred_at": timezone.now().isoformat(),
    }
    assert post(staff, "/v1/attribution/conversions", conversion, shop.token).status_code == 201
    staff.post(
        "/v1/intents",
        {"raw_query": "rain jacket"},
        content_type="application/json",
        headers={"Idempotency-Key": "walk-1"},
    )
    fan_out()
    HealthProbe.objects.create(
        merchant=MerchantAgent.objects.get(),
        checked_at=timezone.now(),
        healthy=True,
        status_code=200,
        latency_ms=42,
        trigger=ProbeTrigger.SCHEDULE,
    )
    Group.objects.create(name="Support")  # staff's own groups: no API makes them
    stranger = Client()
    # Right, then wrong: a login that succeeds clears the attempts (AXES_RESET_ON_SUCCESS).
    stranger.post("/admin/login/", {"username": "staff", "password": "pw-unused"})
    stranger.post("/admin/login/", {"username": "staff", "password": "wrong"})
    # The failure log is off in the settings (AXES_ENABLE_ACCESS_FAILURE_LOG): one row, as
    # axes would write it.
    AccessFailureLog.objects.create(
        username="staff",
        ip_address="127.0.0.1",
        user_agent="Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0",
        http_accept="text/html",
        path_info="/admin/login/",
        locked_out=False,
    )


def _pages(model: type[Model]) -> list[str]:
    opts = model._meta
    record = model._default_manager.first()
    assert record is not None, f"no {opts.label} to walk"
    return [
        reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"),
        reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(record.pk)]),
    ]


def _problems(driver: WebDriver, url: str) -> list[str]:
    findings = visit(driver, url, ready="#content")
    problems = [] if findings.clean else [str(findings)]
    problems += [f"hidden: {column}" for column in hidden_columns(driver)]
    problems += [f"JSON: {text}" for text in driver.execute_script(RAW_JSON_JS)]
    problems += [f"broken word: {text}" for text in driver.execute_script(BROKEN_WORDS_JS)]
    problems += [f"raw filter: {text}" for text in driver.execute_script(RAW_FILTERS_JS)]
    return [f"{url}: {problem}" for problem in problems]


def test_every_list_and_record_page_reads_clean(staff_browser, live_server, every_record):
    urls = ["/admin/"] + [url for model in admin.site._registry for url in _pages(model)]

    problems = [
        problem for url in urls for problem in _problems(staff_browser, live_server.url + url)
    ]

    assert len(urls) == 1 + 2 * len(admin.site._registry)
    assert problems == [], "\n".join(problems)


def test_the_checks_see_a_broken_word_and_json(staff_browser, live_server):
    """The walk's own checks find what they look for (a page made to fail them)."""
    staff_browser.get("about:blank")
    staff_browser.execute_script(
        "document.body.innerHTML = '<div id=content><table><tr>"
        '<td style="width:40px;overflow-wrap:anywhere">intent.surge.everywhere</td>'
        "<td>{}</td></tr></table></div>'"
    )

    assert staff_browser.execute_script(BROKEN_WORDS_JS) != []
    assert staff_browser.execute_script(RAW_JSON_JS) == ["td: {}"]


def test_a_proposal_id_of_any_digits_stays_on_one_line_in_a_ranking(
    staff_browser, live_server, every_record
):
    session = MatchSession.objects.first()
    assert session is not None
    url = reverse("admin:matching_matchsession_change", args=[quote(session.pk)])
    visit(staff_browser, live_server.url + url, ready="table.ranking")

    # Ids are random: each hex digit 24 times over stands for the widest one an id can draw.
    lines = staff_browser.execute_script(
        """
        const link = document.querySelector("table.ranking td:nth-child(2) a");
        const lines = {};
        for (const digit of "0123456789abcdef") {
          link.textContent = "prp_" + digit.repeat(24);
          lines[digit] = link.getClientRects().length;
        }
        return lines;
        """
    )

    assert set(lines.values()) == {1}, lines
