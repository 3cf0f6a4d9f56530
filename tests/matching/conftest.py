"""Fixtures of the match tests: two merchants' proposals for one intent, and a session of them."""

import pytest

from tests.factories import ProductFactory, VideoFactory
from tests.matching.match_calls import match
from tests.protocol import propose, register, state_intent


@pytest.fixture
def market(client):
    """Two merchants' proposals for a trail-running intent with a $120 budget, and the intent's
    demand credential (only a confirmation with it accepts a match)."""
    shoe = ProductFactory(
        id=1001,
        title="TrailFox GTX Trail Running Shoe",
        category_l2="Running Shoes",
        tags=["trail", "waterproof"],
    )
    VideoFactory(product=shoe)
    ProductFactory(
        id=1002, title="Citywalk Canvas Sneaker", category_l2="Sneakers", tags=["canvas"]
    )
    fast = register(client, "fast-shop")
    slow = register(client, "slow-shop")
    intent, demand_token = state_intent(
        client, intent_tags=["trail", "running"], budget_range={"max": 120, "currency": "USD"}
    )
    good = propose(
        client,
        fast,
        intent["intent_id"],
        1001,
        price=99,
        inventory_status="in_stock",
        shipping_commitment={"max_days": 2, "free": True},
        commission_plan={"rate": 0.1},
        evidence=[{"type": "review"}, {"type": "video"}, {"type": "award"}],
    ).json()["proposal"]
    weak = propose(
        client,
        slow,
        intent["intent_id"],
        1002,
        price=150,
        inventory_status="low_stock",
        shipping_commitment={"max_days": 12},
    ).json()["proposal"]
    return {
        "intent": intent,
        "demand_token": demand_token,
        "good": good,
        "weak": weak,
        "fast": fast,
        "slow": slow,
    }


@pytest.fixture
def session_id(client, market):
    return match(client, market["intent"]["intent_id"]).json()["match_session"]["match_session_id"]


@pytest.fixture
def product(db):
    """The product mandates are signed for."""
    return ProductFactory(id=1001, title="TrailFox GTX Trail Running Shoe")
