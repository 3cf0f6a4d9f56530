"""The conversions policy (SECURITY.md): who confirmed a match token is recorded; a sale through
a token the demand side did not confirm with its credential, or for more than the catalog's
price allows, is flagged, kept apart and earns no GMV."""

from decimal import Decimal

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from catalog.models import Product
from matching.models import MatchToken
from reporting.models import Conversion
from tests.protocol import register
from tests.reporting.conftest import OCCURRED, accepted_token, convert, report

pytestmark = pytest.mark.django_db


def test_a_sale_through_a_token_its_own_merchant_accepted_is_flagged_and_earns_nothing(
    client, shop, supply_keys, trail_shoe
):
    token_id = accepted_token(client, shop, 1001, "agent.a", accepted_by=shop.token)
    acceptor = MatchToken.objects.get(pk=token_id).accepted_by
    assert acceptor is not None
    assert acceptor.merchant_id == shop.merchant_id

    response = convert(client, shop, "SELF-1", match_token_id=token_id, amount=99,
                       occurred_at=timezone.now().isoformat())  # fmt: skip
    totals = report(client).json()["totals"]

    assert response.status_code == 201
    assert response.json()["conversion"]["flags"] == ["self_accepted"]
    assert (totals["conversions"], totals["flagged_conversions"], totals["gmv_usd"]) == (0, 1, 0.0)


def test_an_amount_far_above_the_credited_price_is_flagged(client, shop, rec_id, supply_keys):
    huge = convert(client, shop, "BIG-1", rec_id=rec_id, amount=100_000_000, occurred_at=OCCURRED)
    fair = convert(client, shop, "FAIR-1", rec_id=rec_id, amount=179.98, quantity=2,
                   occurred_at=OCCURRED)  # fmt: skip
    many = convert(client, shop, "MANY-1", rec_id=rec_id, amount=899.90, quantity=10,
                   occurred_at=OCCURRED)  # fmt: skip

    assert huge.json()["conversion"]["flags"] == ["amount_above_price"]
    assert fair.json()["conversion"]["flags"] == []
    assert many.json()["conversion"]["flags"] == []
    flagged = Conversion.objects.filter(flagged=True).values_list("order_id", flat=True)
    assert list(flagged) == ["BIG-1"]


def test_flagged_conversions_are_listed_apart_in_the_admin(client, shop, rec_id, django_user_model):
    convert(client, shop, "BIG-1", rec_id=rec_id, amount=100_000_000, occurred_at=OCCURRED)
    convert(client, shop, "FAIR-1", rec_id=rec_id, amount=89.99, occurred_at=OCCURRED)
    client.force_login(django_user_model.objects.create_superuser("staff", "s@x.test", "pw"))

    page = client.get("/admin/reporting/conversion/", {"flagged__exact": "1"})

    assert page.status_code == 200
    assert b"BIG-1" in page.content
    assert b"FAIR-1" not in page.content


def _now() -> str:
    return timezone.now().isoformat()


def test_a_sale_through_a_token_its_merchant_confirmed_without_the_credential_earns_nothing(
    client, shop, supply_keys, trail_shoe
):
    """The merchant mints and confirms its own proposal's token with no credential at all."""
    token_id = accepted_token(client, shop, 1001, "agent.a", as_demand=False)

    response = convert(client, shop, "ANON-1", match_token_id=token_id, amount=99,
                       occurred_at=_now())  # fmt: skip
    totals = report(client).json()["totals"]

    assert MatchToken.objects.get(pk=token_id).confirmed_by == "anonymous"
    assert response.status_code == 201
    assert response.json()["conversion"]["flags"] == ["not_confirmed_by_demand"]
    assert (totals["conversions"], totals["flagged_conversions"], totals["gmv_usd"]) == (0, 1, 0.0)
    assert totals["gmv_by_currency"] == {}
    assert totals["accepted_matches"] == 0  # a confirmation that bound nothing is no match


def test_a_merchant_token_without_the_credential_is_no_demand_decision(
    client, shop, supply_keys, trail_shoe
):
    """Another merchant confirms for a catalog-less offer: still not the demand side's."""
    other = register(client, "shop-b")
    token_id = accepted_token(client, shop, 1001, "agent.a", accepted_by=other.token,
                              as_demand=False)  # fmt: skip

    response = convert(client, shop, "MERCH-1", match_token_id=token_id, amount=99,
                       occurred_at=_now())  # fmt: skip

    assert MatchToken.objects.get(pk=token_id).confirmed_by == "merchant"
    assert response.json()["conversion"]["flags"] == ["not_confirmed_by_demand"]


def test_a_sale_through_a_token_the_demand_side_confirmed_earns_its_gmv(
    client, shop, supply_keys, trail_shoe
):
    token_id = accepted_token(client, shop, 1001, "agent.a")

    response = convert(client, shop, "DEMAND-1", match_token_id=token_id, amount=99,
                       occurred_at=_now())  # fmt: skip
    totals = report(client).json()["totals"]

    assert MatchToken.objects.get(pk=token_id).confirmed_by == "demand"
    assert response.json()["conversion"]["flags"] == []
    assert (totals["conversions"], totals["flagged_conversions"], totals["gmv_usd"]) == (1, 0, 99.0)
    assert totals["accepted_matches"] == 1


def test_the_proposal_price_never_raises_what_a_sale_is_credited(
    client, shop, supply_keys, trail_shoe, settings
):
    """A 3,000,000 proposal price for a product the catalog sells at 89.99: the catalog's price
    times CONVERSION_PRICE_FACTOR (3) times the quantity bounds the credited amount."""
    token_id = accepted_token(client, shop, 1001, "agent.a", price=3_000_000)
    sales = {
        "INFLATED": 9_000_000,
        "FAIR": 269.97,  # 3 x 89.99: the most one unit is credited
        "OVER": 269.98,
    }

    flags = {
        order_id: convert(
            client, shop, order_id, match_token_id=token_id, amount=amount, occurred_at=_now()
        ).json()["conversion"]["flags"]
        for order_id, amount in sales.items()
    }
    totals = report(client).json()["totals"]

    assert flags == {"INFLATED": ["amount_above_price"], "FAIR": [], "OVER": ["amount_above_price"]}
    assert (totals["conversions"], totals["flagged_conversions"]) == (1, 2)
    assert totals["gmv_usd"] == 269.97
    assert Conversion.objects.get(order_id="INFLATED").amount == 9_000_000  # kept as reported


def test_a_strict_factor_credits_the_catalog_price_times_the_quantity(
    client, shop, rec_id, settings
):
    settings.CONVERSION_PRICE_FACTOR = 1.0

    two = convert(client, shop, "TWO", rec_id=rec_id, amount=179.98, quantity=2,
                  occurred_at=OCCURRED)  # fmt: skip
    more = convert(client, shop, "MORE", rec_id=rec_id, amount=179.99, quantity=2,
                   occurred_at=OCCURRED)  # fmt: skip

    assert two.json()["conversion"]["flags"] == []
    assert more.json()["conversion"]["flags"] == ["amount_above_price"]


def test_a_product_without_a_catalog_price_credits_nothing(client, shop, rec_id, trail_shoe):
    Product.objects.filter(pk=trail_shoe.pk).update(price_usd=None)

    response = convert(client, shop, "UNPRICED", rec_id=rec_id, amount=10, occurred_at=OCCURRED)

    assert response.json()["conversion"]["flags"] == ["no_catalog_price"]


def test_a_currency_with_a_rate_is_bounded_in_dollars(client, shop, rec_id, settings):
    settings.USD_RATES = {"EUR": Decimal("1.08")}

    fair = convert(
        client, shop, "EUR-FAIR", rec_id=rec_id, amount=240, currency="EUR", occurred_at=OCCURRED
    )  # 259.20 USD
    high = convert(
        client, shop, "EUR-HIGH", rec_id=rec_id, amount=260, currency="EUR", occurred_at=OCCURRED
    )  # 280.80 USD
    unrated = convert(client, shop, "JPY-1", rec_id=rec_id, amount=9_000_000, currency="JPY",
                      occurred_at=OCCURRED)  # fmt: skip

    assert fair.json()["conversion"]["flags"] == []
    assert high.json()["conversion"]["flags"] == ["amount_above_price"]
    # Never added to dollars by the report (gmv_unconverted), so not judged in dollars either.
    assert unrated.json()["conversion"]["flags"] == []


def test_the_admin_lists_flagged_conversions_with_their_reasons(
    client, shop, rec_id, supply_keys, django_user_model
):
    token_id = accepted_token(client, shop, 1001, "agent.a", as_demand=False)
    convert(client, shop, "ANON-1", match_token_id=token_id, amount=99, occurred_at=_now())
    convert(client, shop, "BIG-1", rec_id=rec_id, amount=100_000_000, occurred_at=OCCURRED)
    convert(client, shop, "FAIR-1", rec_id=rec_id, amount=89.99, occurred_at=OCCURRED)
    staff = django_user_model.objects.create_user("auditor", password="pw", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_conversion"))
    client.force_login(staff)
    changelist = reverse("admin:reporting_conversion_changelist")

    flagged = client.get(changelist, {"flagged__exact": "1"}).content.decode()
    unconfirmed = client.get(changelist, {"reason": "not_confirmed_by_demand"}).content.decode()
    priced = client.get(changelist, {"reason": "amount_above_price"}).content.decode()
    bogus = client.get(changelist, {"reason": "nothing"})
    big = Conversion.objects.get(order_id="BIG-1")
    detail = client.get(reverse("admin:reporting_conversion_change", args=[quote(big.pk)]))

    assert ("ANON-1" in flagged, "BIG-1" in flagged, "FAIR-1" in flagged) == (True, True, False)
    assert '<td class="field-reasons">not_confirmed_by_demand</td>' in flagged
    assert '<td class="field-reasons">amount_above_price</td>' in flagged
    assert ("ANON-1" in unconfirmed, "BIG-1" in unconfirmed) == (True, False)
    assert ("ANON-1" in priced, "BIG-1" in priced) == (False, True)
    assert bogus.status_code == 200
    assert "<code>amount_above_price</code>: the amount is over CONVERSION_PRICE_FACTOR" in (
        detail.content.decode()
    )
    assert b"Save" not in detail.content  # read-only
