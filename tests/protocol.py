"""Helpers that drive the protocol through HTTP, as agents do."""

from dataclasses import dataclass
from typing import Any

from django.test import Client

# A public address literal: accepted as an endpoint without any DNS lookup.
PUBLIC_ENDPOINT = "https://93.184.216.34/agent"


@dataclass
class Merchant:
    merchant_id: str
    token: str
    webhook_secret: str


def _token(token: str | None) -> dict[str, str]:
    return {"X-Merchant-Token": token} if token is not None else {}


def post(client: Client, path: str, body: Any, token: str | None = None):
    return client.post(path, data=body, content_type="application/json", headers=_token(token))


def patch(client: Client, path: str, body: Any, token: str | None = None):
    return client.patch(path, data=body, content_type="application/json", headers=_token(token))


def get(client: Client, path: str, token: str | None = None, **query: Any):
    return client.get(path, query, headers=_token(token))


def register(client: Client, merchant_id: str, *, verified: bool = True, **fields: Any) -> Merchant:
    """Register a merchant through the API; with `verified`, its endpoint's ownership is then
    taken as proven (tests/merchants/test_verification.py proves the echo itself)."""
    body = {"merchant_id": merchant_id, "agent_endpoint": endpoint_of(merchant_id), **fields}
    response = post(client, "/v1/merchant/register", body)
    assert response.status_code == 200, response.content
    data = response.json()
    if verified:
        prove_ownership(merchant_id)
    return Merchant(merchant_id, data["registration_token"], data["webhook_secret"])


def endpoint_of(merchant_id: str) -> str:
    """A merchant's own public endpoint (an event reaches each endpoint URL once)."""
    return f"{PUBLIC_ENDPOINT}/{merchant_id}"


def prove_ownership(merchant_id: str) -> None:
    """What the merchant's echo of its challenge does to its record (merchants/verification.py)."""
    from django.utils import timezone

    from merchants.models import MerchantAgent

    MerchantAgent.objects.filter(merchant_id=merchant_id).update(
        endpoint_verified_at=timezone.now(), next_verification_at=None
    )


def create_intent(client: Client, **fields: Any) -> dict[str, Any]:
    return state_intent(client, **fields)[0]


def state_intent(client: Client, **fields: Any) -> tuple[dict[str, Any], str]:
    """Create an intent as its demand agent: the intent and its demand credential."""
    response = post(client, "/v1/intents", {"raw_query": "trail running shoes", **fields})
    assert response.status_code == 201, response.content
    return response.json()["intent"], response.json()["demand_token"]


def propose(client: Client, merchant: Merchant, intent_id: str, product_id: int, **fields: Any):
    body = {
        "merchant_agent_id": merchant.merchant_id,
        "intent_id": intent_id,
        "product_id": str(product_id),
        **fields,
    }
    return post(client, "/v1/proposals", body, token=merchant.token)


def fan_out() -> int:
    """The fan-out task's work, done here: every event written so far becomes its deliveries
    (in tests without a worker, the task that would do it is never sent)."""
    from merchants.delivery import event_fan_out
    from merchants.models import WebhookEvent

    pending = WebhookEvent.objects.filter(fanned_out_at__isnull=True).order_by("created_at")
    return sum(
        event_fan_out(event_id=event_id) for event_id in pending.values_list("pk", flat=True)
    )
