"""GET /v1/report/attribution: exact figures of a scripted market, the key, the window."""

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import Recommendation
from reporting.models import Click, Conversion
from tests.reporting.conftest import NEXT_SUPPLY_KEY, SUPPLY_KEY, issue_card, report

pytestmark = pytest.mark.django_db

ZERO: dict[str, Any] = {
    "recommendations": 0,
    "clicks": 0,
    "unique_clicks": 0,
    "click_through_rate": None,
    "match_sessions": 0,
    "accepted_matches": 0,
    "conversions": 0,
    "flagged_conversions": 0,
    "gmv_usd": 0.0,
    "conversion_rate": None,
    "gmv_by_currency": {},
    "gmv_usd_total": 0.0,
    "gmv_unconverted": {},
}


def figures(recs, clicks, sessions, accepted, conversions, gmv, ctr, rate):
    """A slice's figures; `gmv` its amounts per currency. The default USD_RATES prices only
    the rupee, so the USD total is the USD amount, and every other currency stays apart."""
    usd = gmv.get("USD", 0.0)
    return {
        "recommendations": recs,
        "clicks": clicks,
        "unique_clicks": clicks,  # the market's clicks are by different clients or cards
        "click_through_rate": ctr,
        "match_sessions": sessions,
        "accepted_matches": accepted,
        "conversions": conversions,
        "flagged_conversions": 0,
        "gmv_usd": usd,
        "conversion_rate": rate,
        "gmv_by_currency": gmv,
        "gmv_usd_total": usd,
        "gmv_unconverted": {code: amount for code, amount in gmv.items() if code != "USD"},
    }


# Hand count of the market fixture (tests/reporting/conftest.py). Cards: r1-r3 agent.a and r4
# of 1001, r5-r6 agent.b of 2002, and the match session's card of 1001 without a channel: 7.
# Clicks: r1 twice (two shoppers), r2, r4, r5: 5. One match session and one accepted token,
# both agent.a and 1001. Conversions: A-1 (r1, 89.99), A-2 (token, 99.00), B-1 (r5, 24.00),
# B-2 (r4, 50 EUR).
TOTAL = figures(7, 5, 1, 1, 4, {"EUR": 50.0, "USD": 212.99}, 0.7143, 0.8)
AGENT_A = figures(3, 3, 1, 1, 2, {"USD": 188.99}, 1.0, 0.6667)
AGENT_B = figures(3, 2, 0, 0, 2, {"EUR": 50.0, "USD": 24.0}, 0.6667, 1.0)
NO_CHANNEL = figures(1, 0, 0, 0, 0, {}, 0.0, None)
SHOE = figures(5, 4, 1, 1, 3, {"EUR": 50.0, "USD": 188.99}, 0.8, 0.75)
BOTTLE = figures(2, 1, 0, 0, 1, {"USD": 24.0}, 0.5, 1.0)


def test_report_of_the_whole_market(client, market):
    response = report(client)

    assert response.status_code == 200
    body = response.json()
    today = timezone.now().date()
    assert body["window"]["days"] == 30
    assert body["window"]["since"] == f"{today - timedelta(days=29)}T00:00:00Z"
    assert body["filters"] == {"channel": None, "product_id": None}
    assert body["usd_rates"] == {"INR": pytest.approx(1 / 82.5)}  # the default table
    assert body["totals"] == TOTAL
    assert len(body["by_day"]) == 30
    assert body["by_day"][0] == {"date": str(today - timedelta(days=29)), **ZERO}
    assert body["by_day"][-1] == {"date": str(today), **TOTAL}
    assert body["by_channel"] == [
        {"channel": "agent.a", **AGENT_A},
        {"channel": "agent.b", **AGENT_B},
        {"channel": None, **NO_CHANNEL},
    ]
    assert body["by_product"] == [
        {
            "product_id": 1001,
            "title": "TrailFox GTX Trail Running Shoe",
            "creator": "milesrun",
            **SHOE,
        },
        {"product_id": 2002, "title": "Summit Steel Bottle", "creator": "ana.runs", **BOTTLE},
    ]
    # Each product's figures go to the creator of its best-selling video: the shoe to Miles,
    # the bottle to Ana (who also has a video of the shoe, and gets nothing of it).
    assert body["by_creator"] == [
        {"username": "milesrun", "display_name": "Miles", "products": 1, **SHOE},
        {"username": "ana.runs", "display_name": "Ana", "products": 1, **BOTTLE},
    ]


def test_report_of_one_channel(client, market):
    body = report(client, channel="agent.a").json()

    assert body["filters"] == {"channel": "agent.a", "product_id": None}
    assert body["totals"] == AGENT_A
    assert body["by_channel"] == [{"channel": "agent.a", **AGENT_A}]
    assert body["by_product"] == [
        {
            "product_id": 1001,
            "title": "TrailFox GTX Trail Running Shoe",
            "creator": "milesrun",
            **AGENT_A,
        }
    ]


def test_report_of_the_other_channel(client, market):
    body = report(client, channel="agent.b").json()

    assert body["totals"] == AGENT_B
    # r4 (1001) was clicked and converted in EUR; r5-r6 (2002) in USD. Without a rate the EUR
    # sale is apart, not a USD 0.
    products = [
        (row["product_id"], row["clicks"], row["gmv_by_currency"], row["gmv_unconverted"])
        for row in body["by_product"]
    ]
    assert products == [(2002, 1, {"USD": 24.0}, {}), (1001, 1, {"EUR": 50.0}, {"EUR": 50.0})]


def test_report_of_an_unknown_channel_is_all_zero(client, market):
    body = report(client, channel="nobody").json()

    assert body["totals"] == ZERO
    assert (body["by_channel"], body["by_product"], body["by_creator"]) == ([], [], [])


def test_report_of_one_product(client, market):
    body = report(client, product_id="2002").json()

    assert body["filters"] == {"channel": None, "product_id": 2002}
    assert body["totals"] == BOTTLE
    assert body["by_channel"] == [{"channel": "agent.b", **BOTTLE}]
    assert [row["username"] for row in body["by_creator"]] == ["ana.runs"]


def test_report_of_one_product_and_channel(client, market):
    body = report(client, product_id="1001", channel="agent.b").json()

    assert body["totals"] == figures(1, 1, 0, 0, 1, {"EUR": 50.0}, 1.0, 1.0)


def test_the_window_counts_facts_by_their_own_day(client, market):
    # The bottle's cards, click and conversion move back ten days; the rest stays today.
    ten_days_ago = timezone.now() - timedelta(days=10)
    bottle_recs = Recommendation.objects.filter(product_id=2002)
    bottle_recs.update(created_at=ten_days_ago)
    Click.objects.filter(recommendation__product_id=2002).update(clicked_at=ten_days_ago)
    Conversion.objects.filter(product_id=2002).update(occurred_at=ten_days_ago)

    week = report(client, days="7").json()
    month = report(client, days="30").json()
    eleven = report(client, days="11").json()
    ten = report(client, days="10").json()

    assert week["totals"] == SHOE  # the bottle's facts are ten days old
    assert len(week["by_day"]) == 7
    assert [row["product_id"] for row in week["by_product"]] == [1001]
    assert month["totals"] == TOTAL
    back_then = str(ten_days_ago.date())
    assert [row for row in month["by_day"] if row["date"] == back_then] == [
        {"date": back_then, **BOTTLE}
    ]
    # days=11 starts at midnight of ten days ago; days=10 the day after.
    assert eleven["totals"]["recommendations"] == 7
    assert ten["totals"]["recommendations"] == 5


def test_days_default_to_30_and_accept_1_and_365(client, market):
    assert report(client).json()["window"]["days"] == 30
    assert report(client, days="1").json()["totals"]["recommendations"] == 7
    assert len(report(client, days="365").json()["by_day"]) == 365


@pytest.mark.parametrize("days", ["0", "366", "abc", "-1", "2.0", "1e2", ""])
def test_days_outside_1_to_365_are_invalid(client, supply_keys, days):
    response = report(client, days=days)

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_parameter"
    assert list(body["fields"]) == ["days"]


@pytest.mark.parametrize(
    ("query", "field"),
    [({"product_id": "abc"}, "product_id"), ({"channel": "a b"}, "channel")],
)
def test_malformed_filters_are_invalid(client, supply_keys, query, field):
    response = report(client, **query)

    assert (response.status_code, response.json()["error"]) == (400, "invalid_parameter")
    assert list(response.json()["fields"]) == [field]


def test_a_missing_key_is_unauthorized(client, supply_keys):
    response = report(client, key=None)

    assert response.status_code == 401
    assert response.json() == {
        "error": "unauthorized",
        "message": "Send a valid supply key in the X-Supply-Key header.",
    }
    assert response["WWW-Authenticate"] == "X-Supply-Key"


@pytest.mark.parametrize("key", ["wrong-key-0123456789", SUPPLY_KEY + "x", SUPPLY_KEY[:-1], " "])
def test_a_wrong_key_is_unauthorized(client, supply_keys, key):
    response = report(client, key=key)

    assert (response.status_code, response.json()["error"]) == (401, "unauthorized")


def test_no_key_is_accepted_while_none_is_configured(client, settings):
    settings.SUPPLY_API_KEYS = []

    for key in (None, "", SUPPLY_KEY):
        response = report(client, key=key)
        # Not the 401 of a wrong key: the gateway itself lacks its keys, and says which setting.
        assert response.status_code == 503
        assert response.json() == {
            "error": "supply_keys_not_configured",
            "message": "The attribution report is closed: no supply keys are configured on "
            "this gateway (SUPPLY_API_KEYS).",
        }
        assert "WWW-Authenticate" not in response


def test_once_keys_are_configured_a_wrong_key_is_401_again(client, settings):
    settings.SUPPLY_API_KEYS = []
    assert report(client, key="wrong-key-0123456789").status_code == 503

    settings.SUPPLY_API_KEYS = [SUPPLY_KEY]

    assert report(client, key="wrong-key-0123456789").status_code == 401
    assert report(client, key=None).status_code == 401
    assert report(client, key=SUPPLY_KEY).status_code == 200


def test_both_keys_of_a_rotation_are_accepted(client, supply_keys):
    assert report(client, key=SUPPLY_KEY).status_code == 200
    assert report(client, key=NEXT_SUPPLY_KEY).status_code == 200


def test_the_key_is_checked_before_the_query(client, supply_keys):
    response = report(client, key="wrong-key-0123456789", days="0")

    assert response.status_code == 401


def test_wrong_keys_are_throttled_too(client, supply_keys, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "report": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    statuses = [report(client, key="wrong-key-0123456789").status_code for _ in range(2)]
    throttled = report(client, key=SUPPLY_KEY)

    assert statuses == [401, 401]
    assert throttled.status_code == 429
    assert throttled.json()["error"] == "throttled"
    assert int(throttled["Retry-After"]) > 0


def test_the_key_never_reaches_the_logs(client, supply_keys, caplog):
    with caplog.at_level("DEBUG"):
        report(client, key=SUPPLY_KEY)
        report(client, key="wrong-key-0123456789")

    assert SUPPLY_KEY not in caplog.text
    assert "wrong-key-0123456789" not in caplog.text


def _report_queries(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert report(client, days="30").status_code == 200
    return len(queries)


def test_the_report_takes_the_same_queries_for_one_row_or_many(
    client, market, django_assert_max_num_queries
):
    with_market = _report_queries(client)
    # Many more facts of every kind, on more products and channels.
    for index in range(12):
        rec_id = issue_card(client, 1001 if index % 2 else 2002, f"bulk.{index % 5}")
        client.get(f"/r/{rec_id}")
    Recommendation.objects.filter(channel__startswith="bulk.0").update(
        created_at=timezone.now() - timedelta(days=3)
    )

    with django_assert_max_num_queries(11):
        assert report(client, days="30").status_code == 200
    assert _report_queries(client) == with_market == 11


def test_an_empty_report_takes_fewer_queries(client, supply_keys, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        body = report(client).json()

    assert body["totals"] == ZERO
    assert len(body["by_day"]) == 30


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_report_reads_one_snapshot_on_postgresql(client, supply_keys):
    with CaptureQueriesContext(connection) as queries:
        response = report(client)

    assert response.status_code == 200
    statements = [q["sql"] for q in queries.captured_queries if q["sql"] != "BEGIN"]
    snapshot = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
    if connection.vendor == "postgresql":
        assert statements[0] == snapshot
    else:  # SQLite: a read transaction would hold the writer's lock
        assert snapshot not in statements


def test_the_contract_describes_the_report_as_one_object(client, market):
    """Served by a `list` action, the report is one object, not an array of them."""
    from jsonschema import Draft202012Validator

    schema = client.get("/openapi.json").json()
    answer = schema["paths"]["/v1/report/attribution"]["get"]["responses"]["200"]["content"]
    declared = answer["application/json"]["schema"]
    body = report(client).json()

    assert declared == {"$ref": "#/components/schemas/AttributionReport"}
    Draft202012Validator({**declared, "components": schema["components"]}).validate(body)
