"""The supply pages at /reports/: staff with the permission read the report, as HTML or CSV."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from catalog.models import Recommendation
from reporting.models import Click, Conversion
from tests.reporting.conftest import issue_card
from tests.support.accept import BROWSER

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(client, django_user_model):
    """A staff member allowed to read the reports, and no more."""
    user = django_user_model.objects.create_user("supply", "supply@gateway.test", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_attribution_report"))
    client.force_login(user)
    return client


def rows_of(response) -> list[list[str]]:
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_page_shows_headline_figures_a_chart_and_the_top_tables(reader, market):
    response = reader.get("/reports/")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    assert html.count("<svg") == 4  # cards, clicks and conversions each on its own; GMV
    assert html.count('<polyline class="') == 3
    assert html.count('<rect class="bar"') == 30  # one GMV bar a day
    assert 'Cards issued</div><div class="value">7</div>' in html
    assert (
        'Clicks</div><div class="value">5</div><div class="sub">5 unique, 71.4% click-through'
        in html
    )
    assert 'Conversions</div><div class="value">4</div><div class="sub">80.0% of clicks' in html
    # No USD_RATES rate for EUR: the EUR sale is apart from the dollars, not added, not $0.
    assert '<div class="value">$212.99 + EUR 50.00</div>' in html
    assert "EUR 50.00 (no rate) · USD 212.99" in html
    assert "TrailFox GTX Trail Running Shoe" in html
    assert "@milesrun" in html
    assert "Summit Steel Bottle" in html
    assert "agent.a" in html
    assert "<script" not in html
    assert "cdn" not in html.lower()


def test_the_page_follows_its_filters(reader, market):
    html = reader.get("/reports/", {"days": "7", "channel": "agent.b", "product_id": "2002"})

    page = html.content.decode()
    assert html.status_code == 200
    assert '<option value="7" selected>' in page
    assert '<option value="agent.b" selected>agent.b</option>' in page
    assert 'Cards issued</div><div class="value">2</div>' in page
    assert "TrailFox" not in page
    assert html.content.decode().count('<rect class="bar"') == 7


def test_bad_filters_are_named_and_the_default_window_shown(reader, market):
    response = reader.get("/reports/", {"days": "0"})

    assert response.status_code == 400
    page = response.content.decode()
    assert "The filters were not understood" in page
    assert "<strong>days</strong>" in page
    assert 'Cards issued</div><div class="value">7</div>' in page
    # The export links carry the window in effect, not the refused one.
    links = re.findall(r'href="attribution.csv\?([^"]+)"', page)
    assert len(links) == 4
    assert all("days=30" in link and "days=0" not in link for link in links)
    for link in links:
        exported = reader.get("/reports/attribution.csv?" + link.replace("&amp;", "&"))
        assert exported.status_code == 200


def test_merchant_data_is_escaped_everywhere(reader, supply_keys, trail_shoe, client):
    trail_shoe.title = '<script>alert("x")</script> Shoe'
    trail_shoe.save()
    issue_card(client, 1001, "agent.a")

    html = reader.get("/reports/").content.decode()
    exported = reader.get("/reports/attribution.csv", {"breakdown": "product"})

    assert "<script>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; Shoe" in html
    assert rows_of(exported)[1][1] == '<script>alert("x")</script> Shoe'  # CSV is not HTML


@pytest.mark.parametrize(
    "lead",
    # Leading blanks and fullwidth forms are what a spreadsheet skips or reads as ASCII.
    [
        "=",
        "+",
        "-",
        "@",
        "\t",
        "\r",
        " =",
        "  +",
        "\u00a0=",
        "\u3000@",
        "\uff1d",
        "\uff0b",
        "|",
        "%",
        "\u200b=",  # a zero-width space
        "\ufeff+",  # a byte order mark
        "\u2060 @",  # a word joiner, then a blank
        "\u200e\u200b\t-",  # a bidi mark, a zero-width space and a tab
        "\u00ad=",  # a soft hyphen
    ],
)
def test_a_title_that_looks_like_a_formula_is_defused_in_csv(
    reader, supply_keys, trail_shoe, client, lead
):
    trail_shoe.title = lead + 'HYPERLINK("https://evil.test")'
    trail_shoe.save()
    issue_card(client, 1001, None)

    rows = rows_of(reader.get("/reports/attribution.csv", {"breakdown": "product"}))

    assert rows[1][1] == "'" + lead + 'HYPERLINK("https://evil.test")'


def test_csv_by_day_has_a_header_and_one_row_a_day(reader, market):
    response = reader.get("/reports/attribution.csv", {"days": "7"})

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="attribution-day-7d-')
    rows = rows_of(response)
    assert rows[0] == [
        "date",
        "recommendations",
        "clicks",
        "unique_clicks",
        "click_through_rate",
        "match_sessions",
        "accepted_matches",
        "conversions",
        "flagged_conversions",
        "gmv_usd",
        "conversion_rate",
        "gmv_usd_total",
        "currencies_without_rate",
        "gmv_eur",
    ]
    assert len(rows) == 8
    assert rows[1][1:] == ["0", "0", "0", "", "0", "0", "0", "0", "0.00", "", "0.00", "", "0.00"]
    assert rows[-1][1:] == [
        *["7", "5", "5", "0.7143", "1", "1", "4", "0", "212.99", "0.8"],
        *["212.99", "EUR", "50.00"],
    ]


def test_csv_by_product_channel_and_creator(reader, market):
    def csv_of(breakdown, **query):
        return rows_of(reader.get("/reports/attribution.csv", {"breakdown": breakdown, **query}))

    products = csv_of("product")
    channels = csv_of("channel", channel="agent.a")
    creators = csv_of("creator")

    assert products[0][:3] == ["product_id", "title", "creator"]
    assert [row[:4] for row in products[1:]] == [
        ["1001", "TrailFox GTX Trail Running Shoe", "milesrun", "5"],
        ["2002", "Summit Steel Bottle", "ana.runs", "2"],
    ]
    # agent.a sold in USD alone: no column of another currency.
    assert channels[1:] == [
        ["agent.a", "3", "3", "3", "1.0", "1", "1", "2", "0", "188.99", "0.6667", "188.99", ""]
    ]
    assert [row[:4] for row in creators[1:]] == [
        ["milesrun", "Miles", "1", "5"],
        ["ana.runs", "Ana", "1", "2"],
    ]


def test_csv_refuses_a_filter_given_twice(reader, supply_keys):
    response = reader.get("/reports/attribution.csv?days=7&days=30&breakdown=day")

    assert response.status_code == 400
    assert response.content.decode().splitlines() == [
        "Invalid filters.",
        "days: Given more than once.",
    ]


def test_csv_refuses_bad_filters(reader, supply_keys):
    response = reader.get("/reports/attribution.csv", {"days": "366", "breakdown": "week"})

    assert response.status_code == 400
    assert response.content.decode().splitlines()[0] == "Invalid filters."
    assert sorted(line.split(":")[0] for line in response.content.decode().splitlines()[1:]) == [
        "breakdown",
        "days",
    ]


@pytest.mark.parametrize("path", ["/reports/", "/reports/attribution.csv?days=7"])
def test_anonymous_visitors_are_sent_to_the_login_which_says_what_the_reports_need(client, path):
    response = client.get(path, HTTP_ACCEPT=BROWSER)
    login = client.get(response["Location"], HTTP_ACCEPT=BROWSER)

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=/reports/")
    assert "Accept" in response["Vary"]
    assert login.status_code == 200
    assert "The supply reports need a staff sign-in." in login.content.decode()
    assert "reporting.view_attribution_report" in login.content.decode()


def test_the_login_says_nothing_of_the_reports_when_another_page_sent_the_visitor(client):
    login = client.get("/admin/login/?next=/admin/", HTTP_ACCEPT=BROWSER)

    assert login.status_code == 200
    assert "supply reports" not in login.content.decode()


@pytest.mark.parametrize("accept", [None, "application/json", "*/*"])
def test_programs_that_are_not_signed_in_get_the_envelope(client, accept):
    headers = {"HTTP_ACCEPT": accept} if accept else {}

    response = client.get("/reports/attribution.csv?days=7", **headers)

    assert response.status_code == 403
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "error": "forbidden",
        "message": "The supply reports are for signed-in staff with the permission "
        "reporting.view_attribution_report; programs read the same figures at "
        "GET /v1/report/attribution with the supply key (X-Supply-Key).",
    }
    assert "Accept" in response["Vary"]


def test_a_user_who_is_not_staff_is_sent_to_the_login(client, django_user_model):
    user = django_user_model.objects.create_user("shopper", is_staff=False)
    user.user_permissions.add(Permission.objects.get(codename="view_attribution_report"))
    client.force_login(user)

    assert client.get("/reports/", HTTP_ACCEPT=BROWSER).status_code == 302


@pytest.mark.parametrize("path", ["/reports/", "/reports/attribution.csv"])
def test_staff_without_the_permission_are_refused_with_a_page_naming_it(
    client, django_user_model, path
):
    client.force_login(django_user_model.objects.create_user("clerk", is_staff=True))

    response = client.get(path, HTTP_ACCEPT=BROWSER)
    program = client.get(path, HTTP_ACCEPT="application/json")

    assert response.status_code == 403
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert "You may not read the supply reports" in response.content.decode()
    assert b"reporting.view_attribution_report" in response.content
    assert b"Cards issued" not in response.content
    assert program.status_code == 403
    assert program.json() == {
        "error": "forbidden",
        "message": "Your account does not have the permission reporting.view_attribution_report.",
    }


def test_superusers_read_the_reports(client, django_user_model, supply_keys):
    client.force_login(django_user_model.objects.create_superuser("root", "root@gateway.test"))

    assert client.get("/reports/").status_code == 200
    assert client.get("/reports/attribution.csv").status_code == 200


def test_the_pages_only_answer_get(reader):
    assert reader.post("/reports/").status_code == 405


def test_the_page_reads_the_database_a_bounded_number_of_times(
    reader, market, django_assert_max_num_queries
):
    # The report's 11, plus the session and the user with their permissions.
    with django_assert_max_num_queries(16):
        assert reader.get("/reports/").status_code == 200


def _channel_options(page: str) -> list[str]:
    select = page[page.index('<select name="channel">') :]
    return re.findall(r'<option value="([^"]*)"', select[: select.index("</select>")])


def test_the_channel_filter_offers_the_channels_of_the_window(reader, market):
    page = reader.get("/reports/").content.decode()

    # "All channels" first; the facts without a channel are no choice of their own.
    assert _channel_options(page) == ["", "agent.a", "agent.b"]
    assert '<option value="" selected>All channels</option>' in page


def test_the_chosen_channel_stays_offered_outside_its_window(reader, market):
    Recommendation.objects.filter(channel="agent.b").update(
        created_at=timezone.now() - timedelta(days=20)
    )
    Click.objects.filter(recommendation__channel="agent.b").update(
        clicked_at=timezone.now() - timedelta(days=20)
    )
    Conversion.objects.filter(channel="agent.b").update(
        occurred_at=timezone.now() - timedelta(days=20)
    )

    week = reader.get("/reports/", {"days": "7"}).content.decode()
    chosen = reader.get("/reports/", {"days": "7", "channel": "agent.b"}).content.decode()

    assert _channel_options(week) == ["", "agent.a"]
    assert _channel_options(chosen) == ["", "agent.a", "agent.b"]
    assert '<option value="agent.b" selected>agent.b</option>' in chosen


def test_choosing_all_channels_submits_no_channel(reader, market):
    response = reader.get("/reports/", {"days": "30", "channel": "", "product_id": ""})

    assert response.status_code == 200
    assert 'Cards issued</div><div class="value">7</div>' in response.content.decode()


def test_each_activity_chart_has_its_own_scale_and_name(reader, market):
    page = reader.get("/reports/").content.decode()

    for title in ("Cards issued per day", "Buy-link clicks per day", "Conversions per day"):
        assert f'-title">{title}</title>' in page
    # Today's peaks: 7 cards, 5 clicks, 4 conversions; each chart's top gridline fits its own.
    assert "7 cards in 30 days; the most on" in page
    assert "4 conversions in 30 days; the most on" in page


def test_a_window_of_one_day_is_worded_in_the_singular(reader, market):
    page = reader.get("/reports/", {"days": "1"}).content.decode()

    assert '<option value="1" selected>Last 1 day</option>' in page
    assert "last 1 day<" in page
    assert "1 days" not in page


def test_the_page_says_when_the_report_api_has_no_keys(reader, market, settings):
    with_keys = reader.get("/reports/").content.decode()
    settings.SUPPLY_API_KEYS = []
    without = reader.get("/reports/").content.decode()

    assert "supply_keys_not_configured" not in with_keys
    assert "supply_keys_not_configured" in without
    assert "<code>SUPPLY_API_KEYS</code>" in without
    assert 'Cards issued</div><div class="value">7</div>' in without  # the page itself works
