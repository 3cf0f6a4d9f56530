"""The conversions policy (SECURITY.md): who accepted a match token is recorded; a self-dealt
sale, or an amount far above the credited price, is flagged, kept apart and earns no GMV."""

import pytest
from django.utils import timezone

from matching.models import MatchToken
from reporting.models import Conversion
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
