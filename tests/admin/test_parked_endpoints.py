"""Staff see parked endpoints, with the gateway's reason, in the merchants' list and page."""

import pytest
from django.urls import reverse

from merchants.models import MerchantAgent
from tests.merchants.verification_calls import parked
from tests.protocol import register
from tests.support.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client, django_user_model):
    user = django_user_model.objects.create_superuser("staff", "staff@gateway.test", "pw")
    client.force_login(user)
    return client


def test_the_admin_lists_parked_endpoints_with_their_reasons(client, loopback, staff):
    with Receiver() as victim:
        victim.echo_challenges = False
        parked(client, "squatter", victim.url)
    register(client, "proven")
    changelist = reverse("admin:merchants_merchantagent_changelist")

    parked_only = staff.get(changelist, {"verification": "parked"})
    verified_only = staff.get(changelist, {"verification": "verified"})

    assert parked_only.status_code == verified_only.status_code == 200
    rows = parked_only.content.decode().split("<tbody>")[-1]
    assert "squatter" in rows
    assert "proven" not in rows
    assert "parked: The endpoint answered 2xx without" in rows
    assert "Asked 8 times without the challenge echoed; parked." in rows
    assert "squatter" not in verified_only.content.decode().split("<tbody>")[-1]
    page = staff.get(
        reverse(
            "admin:merchants_merchantagent_change",
            args=[MerchantAgent.objects.get(merchant_id="squatter").pk],
        )
    )
    assert page.status_code == 200
    assert "Asked 8 times" in page.content.decode()
