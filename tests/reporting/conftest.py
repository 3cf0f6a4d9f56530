"""A small attributed market, built through HTTP as agents, shoppers and merchants build it."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from catalog.models import Recommendation
from tests.factories import CreatorFactory, ProductFactory, VideoFactory
from tests.protocol import Merchant, post, propose, register, state_intent

SUPPLY_KEY = "sk-supply-current-0123456789"
NEXT_SUPPLY_KEY = "sk-supply-next-9876543210ab"


@pytest.fixture
def supply_keys(settings):
    settings.SUPPLY_API_KEYS = [SUPPLY_KEY, NEXT_SUPPLY_KEY]


def report(client, key: str | None = SUPPLY_KEY, **query: Any):
    headers = {"X-Supply-Key": key} if key is not None else {}
    return client.get("/v1/report/attribution", query, headers=headers)


def issue_card(client, product_id: int, channel: str | None) -> str:
    query = {"channel": channel} if channel else {}
    response = client.get(f"/v1/products/{product_id}/card", query)
    assert response.status_code == 200, response.content
    return response.json()["rec_id"]


def convert(client, merchant: Merchant, order_id: str, *, token: str | None = "", **fields: Any):
    body = {
        "merchant_agent_id": merchant.merchant_id,
        "order_id": order_id,
        "amount": 10,
        "currency": "USD",
        "occurred_at": (timezone.now() - timedelta(minutes=1)).isoformat(),
        **fields,
    }
    return post(
        client, "/v1/attribution/conversions", body, token=merchant.token if token == "" else token
    )


def accepted_token(
    client,
    merchant: Merchant,
    product_id: int,
    channel: str,
    *,
    accepted_by: str | None = None,
    as_demand: bool = True,
    price: float = 99,
) -> str:
    """Run the protocol to its end: intent, proposal, match, mint, confirm (by the demand side
    with its credential unless not `as_demand`; with `accepted_by`, a merchant's token too)."""
    intent, demand_token = state_intent(client, intent_tags=["trail"], source_channel=channel)
    intent_id = intent["intent_id"]
    proposal = propose(client, merchant, intent_id, product_id, price=price)
    proposal_id = proposal.json()["proposal"]["proposal_id"]
    session = post(client, "/v1/match", {"intent_id": intent_id}).json()["match_session"]
    accept = f"/v1/match/{session['match_session_id']}/accept"
    token_id = post(client, accept, {"proposal_id": proposal_id}).json()["match_token"][
        "match_token_id"
    ]
    headers = {"X-Demand-Token": demand_token} if as_demand else {}
    if accepted_by is not None:
        headers["X-Merchant-Token"] = accepted_by
    confirmed = client.post(
        accept, {"match_token_id": token_id}, content_type="application/json", headers=headers
    ).json()["match_token"]
    assert confirmed["acceptance_state"] == "accepted"
    return token_id


@pytest.fixture
def bottle(trail_shoe):
    """Product 2002, whose best seller is ana.runs (a creator of the trail shoe too)."""
    product = ProductFactory(id=2002, title="Summit Steel Bottle", url="https://shop.test/p/2002")
    ana = trail_shoe.videos.get(creator__username="ana.runs").creator
    VideoFactory(task_id="v-3", product=product, creator=ana, gmv_usd=Decimal("640.00"))
    VideoFactory(
        task_id="v-4",
        product=product,
        creator=CreatorFactory(username="hydro.hal", display_name="Hal"),
        gmv_usd=Decimal("120.00"),
    )
    return product


@dataclass
class Market:
    shop_a: Merchant
    shop_b: Merchant
    recs: dict[str, str] = field(default_factory=dict)
    token_id: str = ""


@pytest.fixture
def market(client, unthrottled, trail_shoe, bottle, supply_keys) -> Market:
    """Cards on two channels, clicks, one accepted match and four conversions.

    | rec | product | channel | clicks |
    | r1  | 1001    | agent.a | 2      |
    | r2  | 1001    | agent.a | 1      |
    | r3  | 1001    | agent.a | 0      |
    | r4  | 1001    | agent.b | 1      |
    | r5  | 2002    | agent.b | 1      |
    | r6  | 2002    | agent.b | 0      |
    plus the card the match session issues for 1001 (no channel). The match: an intent of
    agent.a, shop-a's proposal of 1001, minted and confirmed.

    Conversions: shop-a A-1 on r1 89.99 USD; shop-a A-2 on the match token 99.00 USD; shop-b
    B-1 on r5 24.00 USD; shop-b B-2 on r4 50.00 EUR.
    """
    market = Market(register(client, "shop-a"), register(client, "shop-b"))
    for name, product_id, channel in [
        ("r1", 1001, "agent.a"),
        ("r2", 1001, "agent.a"),
        ("r3", 1001, "agent.a"),
        ("r4", 1001, "agent.b"),
        ("r5", 2002, "agent.b"),
        ("r6", 2002, "agent.b"),
    ]:
        market.recs[name] = issue_card(client, product_id, channel)
    for n, name in enumerate(["r1", "r1", "r2", "r4", "r5"]):
        shopper = f"192.0.2.{n + 1}"  # five shoppers: a shopper's second follow is no new click
        assert client.get(f"/r/{market.recs[name]}", REMOTE_ADDR=shopper).status_code == 302
    market.token_id = accepted_token(client, market.shop_a, 1001, "agent.a")
    for merchant, order_id, reference, amount, currency in [
        (market.shop_a, "A-1", {"rec_id": market.recs["r1"]}, 89.99, "USD"),
        (market.shop_a, "A-2", {"match_token_id": market.token_id}, 99, "USD"),
        (market.shop_b, "B-1", {"rec_id": market.recs["r5"]}, 24, "USD"),
        (market.shop_b, "B-2", {"rec_id": market.recs["r4"]}, 50, "eur"),
    ]:
        response = convert(
            client, merchant, order_id, amount=amount, currency=currency, **reference
        )
        assert response.status_code == 201, response.content
    return market


# An order the conversion tests report, and when its card was issued (before it).
OCCURRED = "2026-11-01T09:30:00Z"
ISSUED = datetime(2026, 10, 1, tzinfo=UTC)


@pytest.fixture
def shop(client, trail_shoe):
    return register(client, "shop-a")


@pytest.fixture
def rec_id(client, trail_shoe):
    rec_id = issue_card(client, 1001, "agent.a")
    # Issued before the orders these tests report (2026-11-01).
    Recommendation.objects.filter(rec_id=rec_id).update(created_at=ISSUED)
    return rec_id
