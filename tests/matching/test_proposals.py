"""Proposals: submission rules, lookup, listing with expiry, withdrawal on deactivation."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from matching.models import Proposal
from tests.factories import ProductFactory
from tests.protocol import create_intent, post, propose, register

pytestmark = pytest.mark.django_db


@pytest.fixture
def shoe():
    return ProductFactory(
        id=1001,
        title="TrailFox GTX Trail Running Shoe",
        price_usd=Decimal("89.99"),
        category_l2="Running Shoes",
        tags=["trail", "waterproof"],
    )


def test_a_merchant_submits_a_proposal(client, shoe):
    shop = register(client, "shop-1")
    intent = create_intent(client, intent_tags=["trail", "running"])
    valid_until = (timezone.now() + timedelta(days=2)).isoformat()

    response = propose(
        client,
        shop,
        intent["intent_id"],
        1001,
        price=84.5,
        inventory_status="in_stock",
        shipping_commitment={"max_days": 2, "free": True},
        commission_plan={"rate": 0.1},
        evidence=[{"type": "review_score", "value": 4.7}],
        valid_until=valid_until,
        metadata={"sku": "TF-GTX-42"},
    )

    assert response.status_code == 201
    proposal = response.json()["proposal"]
    assert proposal["proposal_id"].startswith("prp_")
    assert proposal["merchant_agent_id"] == "shop-1"
    assert proposal["intent_id"] == intent["intent_id"]
    assert proposal["product_id"] == 1001
    assert proposal["offer_title"] == "TrailFox GTX Trail Running Shoe"
    assert proposal["price"] == 84.5
    assert proposal["status"] == "submitted"
    assert proposal["provenance"] == "merchant"
    assert proposal["product_snapshot"]["title"] == "TrailFox GTX Trail Running Shoe"
    inputs = proposal["proposal_score_inputs"]
    assert inputs["shipping_days"] == 2
    assert inputs["free_shipping"] is True
    assert inputs["commission_rate"] == 0.1
    assert inputs["evidence_count"] == 1
    assert {"trail", "run", "shoe"} <= set(inputs["product_fields"]["title"].split())
    assert client.get(f"/v1/proposals/{proposal['proposal_id']}").json() == {"proposal": proposal}


@pytest.mark.parametrize(
    ("change", "status", "error"),
    [
        ({"intent_id": "int_000000000000000000000000"}, 404, "intent_not_found"),
        ({"merchant_agent_id": "ghost"}, 404, "merchant_not_found"),
        ({"product_id": "999"}, 404, "product_not_found"),
        ({"product_id": "abc"}, 404, "product_not_found"),
        ({"price": -1}, 400, "invalid_body"),
        ({"price": 1.234}, 400, "invalid_body"),
        ({"inventory_status": "plenty"}, 400, "invalid_body"),
        ({"valid_until": "2001-01-01T00:00:00Z"}, 400, "invalid_body"),
        ({"evidence": {"not": "a list"}}, 400, "invalid_body"),
        ({"intent_id": None}, 400, "invalid_body"),
    ],
)
def test_bad_proposals_are_refused(client, shoe, change, status, error):
    shop = register(client, "shop-1")
    intent = create_intent(client)
    body = {"merchant_agent_id": "shop-1", "intent_id": intent["intent_id"], "product_id": "1001"}

    response = post(client, "/v1/proposals", {**body, **change}, token=shop.token)

    assert (response.status_code, response.json()["error"]) == (status, error)
    assert not Proposal.objects.exists()


def test_a_price_of_many_decimals_is_refused_for_its_decimals(client, shoe):
    """DRF counts every digit before it counts decimals: the message names both bounds."""
    shop = register(client, "shop-1")
    intent = create_intent(client)
    body = {"merchant_agent_id": "shop-1", "intent_id": intent["intent_id"], "product_id": "1001"}

    response = post(client, "/v1/proposals", {**body, "price": 74.123456789123}, token=shop.token)

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "price": ["Give at most 12 digits, at most two after the point."]
    }


def test_a_proposal_without_required_fields_is_missing_fields(client):
    shop = register(client, "shop-1")

    response = post(client, "/v1/proposals", {"merchant_agent_id": "shop-1"}, token=shop.token)

    assert response.status_code == 400
    assert response.json()["error"] == "missing_fields"
    assert set(response.json()["fields"]) == {"intent_id", "product_id"}


def test_a_resubmission_supersedes_the_earlier_proposal(client, shoe):
    shop = register(client, "shop-1")
    intent_id = create_intent(client)["intent_id"]
    first = propose(client, shop, intent_id, 1001, price=90).json()["proposal"]

    second = propose(client, shop, intent_id, 1001, price=85).json()["proposal"]

    assert (
        client.get(f"/v1/proposals/{first['proposal_id']}").json()["proposal"]["status"]
        == "superseded"
    )
    assert second["status"] == "submitted"


@pytest.mark.parametrize("proposal_id", ["prp_000000000000000000000000", "x", "prp_%00"])
def test_unknown_proposal_is_404(client, proposal_id):
    response = client.get(f"/v1/proposals/{proposal_id}")

    assert (response.status_code, response.json()["error"]) == (404, "proposal_not_found")


def test_listing_omits_expired_proposals_unless_asked(client, shoe):
    shop = register(client, "shop-1")
    intent_id = create_intent(client)["intent_id"]
    live = propose(client, shop, intent_id, 1001).json()["proposal"]
    ProductFactory(id=1002)
    expired = propose(client, shop, intent_id, 1002).json()["proposal"]
    Proposal.objects.filter(pk=expired["proposal_id"]).update(
        valid_until=timezone.now() - timedelta(minutes=1)
    )

    default = client.get(f"/v1/intents/{intent_id}/proposals").json()
    everything = client.get(f"/v1/intents/{intent_id}/proposals?include_expired=true").json()

    assert default["count"] == 1
    assert [p["proposal_id"] for p in default["proposals"]] == [live["proposal_id"]]
    assert everything["count"] == 2
    assert {p["proposal_id"]: p["status"] for p in everything["proposals"]} == {
        live["proposal_id"]: "submitted",
        expired["proposal_id"]: "expired",
    }


def test_deactivation_withdraws_open_proposals_and_stops_new_ones(client, shoe):
    shop = register(client, "shop-1")
    intent_id = create_intent(client)["intent_id"]
    proposal = propose(client, shop, intent_id, 1001).json()["proposal"]

    response = post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token)

    assert response.status_code == 200
    assert response.json()["status"] == "deactivated"
    assert response.json()["merchant"]["deactivated_at"] is not None
    assert Proposal.objects.get(pk=proposal["proposal_id"]).status == "withdrawn"
    again = propose(client, shop, intent_id, 1001)
    assert (again.status_code, again.json()["error"]) == (403, "merchant_deactivated")
    assert Proposal.objects.count() == 1


def test_deactivating_twice_is_harmless(client):
    shop = register(client, "shop-1")
    first = post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token).json()

    second = post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token).json()

    assert second == first


def test_the_database_holds_one_live_proposal_per_merchant_intent_and_product(client, shoe):
    from django.db import IntegrityError, transaction

    shop = register(client, "shop-1")
    intent_id = create_intent(client)["intent_id"]
    live = Proposal.objects.get(
        pk=propose(client, shop, intent_id, 1001).json()["proposal"]["proposal_id"]
    )

    live.pk = "prp_111111111111111111111111"
    with pytest.raises(IntegrityError), transaction.atomic():
        live.save(force_insert=True)


def test_listing_hides_superseded_proposals_unless_asked(client, shoe):
    shop = register(client, "shop-1")
    intent_id = create_intent(client)["intent_id"]
    first = propose(client, shop, intent_id, 1001, price=90).json()["proposal"]
    second = propose(client, shop, intent_id, 1001, price=85).json()["proposal"]

    default = client.get(f"/v1/intents/{intent_id}/proposals").json()
    everything = client.get(f"/v1/intents/{intent_id}/proposals?include_superseded=true").json()

    assert [p["proposal_id"] for p in default["proposals"]] == [second["proposal_id"]]
    assert [p["proposal_id"] for p in everything["proposals"]] == [
        first["proposal_id"],
        second["proposal_id"],
    ]


def test_the_listing_comes_in_pages_that_miss_nothing(client, shoe, unthrottled):
    shops = [register(client, f"shop-{n}") for n in range(7)]
    intent_id = create_intent(client)["intent_id"]
    made = [
        propose(client, shop, intent_id, 1001).json()["proposal"]["proposal_id"] for shop in shops
    ]

    seen, cursor, pages = [], None, 0
    while True:
        query = f"?limit=3&cursor={cursor}" if cursor else "?limit=3"
        page = client.get(f"/v1/intents/{intent_id}/proposals{query}").json()
        seen += [p["proposal_id"] for p in page["proposals"]]
        pages += 1
        assert page["count"] == len(page["proposals"]) <= 3
        cursor = page["next_cursor"]
        if cursor is None:
            break

    assert seen == made  # oldest first, each once
    assert pages == 3
    forged = client.get(f"/v1/intents/{intent_id}/proposals?cursor=abc")
    assert (forged.status_code, forged.json()["error"]) == (400, "invalid_parameter")
    too_many = client.get(f"/v1/intents/{intent_id}/proposals?limit=201")
    assert too_many.status_code == 400


@pytest.mark.parametrize(
    "query", ["limit=", "include_expired=", "include_superseded=", "include_expired=maybe"]
)
def test_a_listing_parameter_given_empty_is_refused_not_read_as_absent(client, query):
    """An integer or a boolean given empty is neither; DRF would read it as absent, and its
    default, where the contract asks for an integer or a boolean."""
    intent_id = create_intent(client)["intent_id"]

    response = client.get(f"/v1/intents/{intent_id}/proposals?{query}")

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_parameter"
    assert list(response.json()["fields"]) == [query.partition("=")[0]]


def test_proposals_are_throttled_per_merchant(client, shoe, settings):
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["proposals"]
    allowed = int(rate.split("/")[0])
    busy, other = register(client, "busy"), register(client, "other")
    intent_id = create_intent(client)["intent_id"]
    ProductFactory(id=1002)

    statuses = [
        propose(client, busy, intent_id, 1001 + n % 2).status_code for n in range(allowed + 1)
    ]
    others = propose(client, other, intent_id, 1001)

    assert statuses[:allowed] == [201] * allowed
    assert statuses[-1] == 429
    assert others.status_code == 201  # another merchant, from the same address, is not held
