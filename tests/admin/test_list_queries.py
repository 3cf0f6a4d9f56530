"""The console's lists link every related record (merchant, intent, product, card, creator) and
read them in the list's own query: a page of five rows costs the queries of a page of one."""

from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalog.models import Creator, Recommendation, Video
from reporting.models import Click
from tests.factories import ProductFactory
from tests.protocol import create_intent, fan_out, propose, register

pytestmark = pytest.mark.django_db


def _queries(staff: Client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert staff.get(url).status_code == 200
    return len(captured)


def _deliveries(staff: Client, n: int) -> None:
    for k in range(n):
        register(staff, f"shop-{n}-{k}", subscription_tags=["trail"])
    create_intent(staff, intent_tags=["trail"])
    fan_out()


def _proposals(staff: Client, n: int) -> None:
    intent_id = create_intent(staff, intent_tags=["trail"])["intent_id"]
    for k in range(n):
        merchant = register(staff, f"shop-{n}-{k}")
        assert propose(staff, merchant, intent_id, 1001, price=100 + k).status_code == 201


def _clicks(staff: Client, n: int) -> None:
    for _ in range(n):
        rec_id = staff.get("/v1/products/1001/card").json()["rec_id"]
        Click.objects.create(recommendation=Recommendation.objects.get(pk=rec_id), client_key="c")


def _videos(staff: Client, n: int) -> None:
    creator = Creator.objects.create(username=f"creator{n}", display_name="C", followers=1)
    for k in range(n):
        Video.objects.create(task_id=f"v-{n}-{k}", creator=creator, product_id=1001)


@pytest.mark.parametrize(
    ("changelist", "add"),
    [
        ("merchants_webhookdelivery", _deliveries),
        ("matching_proposal", _proposals),
        ("reporting_click", _clicks),
        ("catalog_video", _videos),
    ],
)
def test_a_list_of_five_costs_what_a_list_of_one_does(
    staff: Client, changelist: str, add: Callable[[Client, int], None]
) -> None:
    ProductFactory(id=1001, title="TrailFox GTX Trail Running Shoe", tags=["trail"])
    url = reverse(f"admin:{changelist}_changelist")
    add(staff, 1)
    one = _queries(staff, url)

    add(staff, 4)
    five = _queries(staff, url)

    assert five == one
