"""The supply page's charts: cards, clicks and conversions each on a chart and scale of its own,
so a few clicks beside many cards still rise off the baseline; named and described for screen
readers."""

import re
from datetime import date, timedelta

import pytest
from django.contrib.auth.models import Permission

from reporting import charts
from tests.protocol import register
from tests.reporting.conftest import convert, issue_card

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(client, django_user_model):
    user = django_user_model.objects.create_user("supply", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_attribution_report"))
    client.force_login(user)
    return client


def _svgs(page: str) -> dict[str, str]:
    """Each chart's SVG by its title."""
    found = {}
    for svg in re.findall(r"<svg .*?</svg>", page, flags=re.S):
        (title,) = re.findall(r'<title id="[^"]+">([^<]+)</title>', svg)
        found[title] = svg
    return found


def _gridlines(svg: str) -> list[tuple[float, str]]:
    return [
        (float(y), label)
        for y, label in re.findall(
            r'<line class="grid"[^>]* y1="([\d.]+)"[^>]*/><text class="axis"[^>]*>([^<]+)</text>',
            svg,
        )
    ]


def _highest_point(svg: str) -> float:
    (points,) = re.findall(r'<polyline class="[^"]+" points="([^"]+)"', svg)
    return min(float(point.split(",")[1]) for point in points.split())


def test_clicks_and_conversions_rise_to_the_top_of_their_own_charts(
    reader, client, unthrottled, trail_shoe, supply_keys
):
    """25 cards, one click, one conversion: on a shared axis the click and the conversion would
    sit at 1/25 of its height; each on its own scale, they reach its top."""
    recs = [issue_card(client, 1001, "agent.a") for _ in range(25)]
    assert client.get(f"/r/{recs[0]}").status_code == 302
    shop = register(client, "shop-a")
    assert convert(client, shop, "A-1", rec_id=recs[0]).status_code == 201

    svgs = _svgs(reader.get("/reports/").content.decode())

    for title, top_label, axis in [
        ("Cards issued per day", "25", "cards"),
        ("Buy-link clicks per day", "1", "clicks"),
        ("Conversions per day", "1", "conversions"),
    ]:
        svg = svgs[title]
        lines = _gridlines(svg)
        (top_y, label), (_, bottom_label) = min(lines), max(lines)
        assert (label, bottom_label) == (top_label, "0"), title
        assert _highest_point(svg) == top_y, title  # today's figure is the chart's peak
        assert f">{axis}</text>" in svg  # the vertical axis says what it counts
        assert 'role="img"' in svg
        assert "<desc " in svg
    assert "1 click in 30 days; the most on" in svgs["Buy-link clicks per day"]
    assert "GMV per day in US dollars" in svgs


def test_a_chart_of_nothing_has_a_scale_and_says_so():
    days = [date(2026, 11, 1) + timedelta(days=n) for n in range(7)]

    chart = charts.line_chart(
        days, [0] * 7, key="clicks-chart", title="Clicks", noun=("click", "clicks"), css="clicks"
    )

    assert [line.label for line in chart.gridlines] == ["0", "0.5", "1"]  # from the baseline up
    assert chart.summary == "No clicks in 7 days."
    assert {point.split(",")[1] for point in chart.series[0].points.split()} == {
        f"{chart.baseline:.1f}"
    }
    assert chart.bars[0].title == "Sun Nov 01: 0 clicks"


def test_one_of_a_thing_is_worded_in_the_singular():
    days = [date(2026, 11, 1)]

    chart = charts.line_chart(
        days, [1], key="c", title="Conversions", noun=("conversion", "conversions"), css="c"
    )

    assert chart.summary == "1 conversion in 1 day; the most on Nov 01: 1 conversion."
    assert chart.bars[0].title == "Sun Nov 01: 1 conversion"
