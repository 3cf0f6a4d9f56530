"""GMV in every currency: kept per currency, converted to US dollars only at a configured rate,
and a currency without one shown apart, never as $0.00, in the API, the pages and the CSVs."""

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from gateway.environment import usd_rates
from tests.protocol import register
from tests.reporting.conftest import convert, issue_card, report

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(client, django_user_model):
    user = django_user_model.objects.create_user("supply", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_attribution_report"))
    client.force_login(user)
    return client


@pytest.fixture
def euro_sales(client, unthrottled, trail_shoe, supply_keys):
    """The trail shoe (1001), sold only in EUR: two counted orders (60.00 and 33.33) and one
    flagged (its merchant accepted its own match token, so it earns nothing)."""
    shop = register(client, "shop-eu")
    rec_id = issue_card(client, 1001, "agent.eu")
    for order_id, amount in [("E-1", 60), ("E-2", 33.33)]:
        response = convert(client, shop, order_id, rec_id=rec_id, amount=amount, currency="EUR")
        assert response.status_code == 201, response.content
    return shop


def test_a_product_sold_only_in_eur_is_not_zero_dollars_without_a_rate(client, euro_sales):
    body = report(client).json()

    assert "EUR" not in body["usd_rates"]
    (product,) = body["by_product"]
    for figures in (body["totals"], product, body["by_day"][-1], body["by_channel"][0]):
        assert figures["gmv_by_currency"] == {"EUR": 93.33}
        assert figures["gmv_unconverted"] == {"EUR": 93.33}  # apart: there is no rate
        assert figures["gmv_usd_total"] == 0.0
        assert figures["gmv_usd"] == 0.0
        assert figures["conversions"] == 2


def test_a_configured_rate_converts_eur_into_the_usd_total(client, euro_sales, settings):
    settings.USD_RATES = {"EUR": Decimal("1.08")}

    body = report(client).json()

    assert body["usd_rates"] == {"EUR": 1.08}
    (product,) = body["by_product"]
    for figures in (body["totals"], product, body["by_creator"][0]):
        assert figures["gmv_by_currency"] == {"EUR": 93.33}
        # 93.33 x 1.08 = 100.7964, to the cent
        assert figures["gmv_usd_total"] == 100.8
        assert figures["gmv_unconverted"] == {}
        assert figures["gmv_usd"] == 0.0  # still the USD conversions alone


def test_only_the_currencies_with_a_rate_are_added_to_the_total(client, euro_sales, settings):
    settings.USD_RATES = {"GBP": Decimal("1.25")}
    rec_id = issue_card(client, 1001, "agent.eu")
    for order_id, amount, currency in [("G-1", 10, "GBP"), ("U-1", 5.5, "USD")]:
        response = convert(
            client, euro_sales, order_id, rec_id=rec_id, amount=amount, currency=currency
        )
        assert response.status_code == 201, response.content

    totals = report(client).json()["totals"]

    assert totals["gmv_by_currency"] == {"EUR": 93.33, "GBP": 10.0, "USD": 5.5}
    assert totals["gmv_usd_total"] == 18.0  # 5.50 + 10 x 1.25; EUR is not in it
    assert totals["gmv_unconverted"] == {"EUR": 93.33}
    assert totals["gmv_usd"] == 5.5


def test_a_rate_decides_the_ranking_of_a_sale_in_another_currency(
    client, unthrottled, trail_shoe, supply_keys, settings
):
    shop = register(client, "shop-mix")
    eur_card = issue_card(client, 1001, "agent.eu")
    usd_card = issue_card(client, 1001, "agent.us")
    for order_id, rec_id, amount, currency in [
        ("E-1", eur_card, 50, "EUR"),
        ("U-1", usd_card, 30, "USD"),
    ]:
        response = convert(client, shop, order_id, rec_id=rec_id, amount=amount, currency=currency)
        assert response.status_code == 201, response.content

    unpriced = [row["channel"] for row in report(client).json()["by_channel"]]
    settings.USD_RATES = {"EUR": Decimal("1.08")}
    priced = [row["channel"] for row in report(client).json()["by_channel"]]

    assert unpriced == ["agent.us", "agent.eu"]  # $30 against nothing convertible
    assert priced == ["agent.eu", "agent.us"]  # $54 against $30


def test_a_currency_of_flagged_conversions_alone_is_not_listed(client, euro_sales):
    from reporting.models import Conversion

    Conversion.objects.filter(order_id="E-2").update(flagged=True, flags=["self_accepted"])
    rec_id = issue_card(client, 1001, None)
    response = convert(client, euro_sales, "J-1", rec_id=rec_id, amount=900, currency="JPY")
    assert response.status_code == 201
    Conversion.objects.filter(order_id="J-1").update(flagged=True, flags=["self_accepted"])

    totals = report(client).json()["totals"]

    assert totals["gmv_by_currency"] == {"EUR": 60.0}
    assert (totals["conversions"], totals["flagged_conversions"]) == (1, 2)


def test_the_page_shows_eur_apart_and_never_zero_dollars(reader, euro_sales):
    html = reader.get("/reports/").content.decode()

    today = timezone.now().date()
    assert '<div class="value">EUR 93.33</div>' in html  # the headline figure
    assert f"<title>{today:%a %b %d}: EUR 93.33</title>" in html  # the day's bar
    assert ">EUR 93.33</td>" in html  # the product, creator and channel rows
    assert ">$0.00</td>" not in html
    assert "EUR 93.33 in 30 days." in html  # the GMV chart's description
    assert "EUR 93.33 (no rate)" in html
    assert "Not in this chart, for want of a rate in <code>USD_RATES</code>: EUR 93.33." in html


def test_the_page_converts_at_a_configured_rate(reader, euro_sales, settings):
    settings.USD_RATES = {"EUR": Decimal("1.08")}

    html = reader.get("/reports/").content.decode()

    assert '<div class="value">$100.80</div>' in html
    assert "EUR 93.33 at $1.08" in html
    assert ">$100.80</td>" in html
    assert "Not in this chart" not in html
    assert "$100.80 in 30 days." in html  # the GMV chart's description


def _csv(reader, **query):
    response = reader.get("/reports/attribution.csv", query)
    assert response.status_code == 200
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_csv_carries_each_currency_and_what_has_no_rate(reader, euro_sales):
    head, *rows = _csv(reader, breakdown="product")

    assert head[-5:] == [
        "gmv_usd",
        "conversion_rate",
        "gmv_usd_total",
        "currencies_without_rate",
        "gmv_eur",
    ]
    (row,) = rows
    values = dict(zip(head, row, strict=True))
    assert (values["product_id"], values["conversions"]) == ("1001", "2")
    assert (values["gmv_usd"], values["gmv_usd_total"]) == ("0.00", "0.00")
    assert (values["currencies_without_rate"], values["gmv_eur"]) == ("EUR", "93.33")


def test_the_csv_converts_at_a_configured_rate(reader, euro_sales, settings):
    settings.USD_RATES = {"EUR": Decimal("1.08")}

    head, *rows = _csv(reader, breakdown="day", days="7")

    today = dict(zip(head, rows[-1], strict=True))
    assert today["date"] == timezone.now().date().isoformat()
    assert (today["gmv_usd_total"], today["currencies_without_rate"]) == ("100.80", "")
    assert today["gmv_eur"] == "93.33"
    yesterday = dict(zip(head, rows[-2], strict=True))
    assert yesterday["date"] == (timezone.now().date() - timedelta(days=1)).isoformat()
    assert (yesterday["gmv_usd_total"], yesterday["gmv_eur"]) == ("0.00", "0.00")


def test_usd_rates_are_read_from_code_rate_pairs():
    assert usd_rates("") == {}
    assert usd_rates(" eur=1.08, GBP = 1.27 ,JPY=0.0067,inr = 1/82.5") == {
        "EUR": Decimal("1.08"),
        "GBP": Decimal("1.27"),
        "JPY": Decimal("0.0067"),
        "INR": Decimal(1) / Decimal("82.5"),  # one over the rupees a dollar buys
    }


@pytest.mark.parametrize(
    "raw",
    [
        "EUR",
        "EUR=",
        "EUR=0",
        "EUR=-1",
        "EUR=nan",
        "EUR=inf",
        "EURO=1",
        "USD=1",
        "EUR=1,EUR=2",
        "INR=1/0",
        "INR=1/",
        "INR=/82.5",
        "INR=1/-82.5",
    ],
)
def test_bad_usd_rates_are_refused(raw):
    with pytest.raises(ImproperlyConfigured, match="USD_RATES must be"):
        usd_rates(raw)
