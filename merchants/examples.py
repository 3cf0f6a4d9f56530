"""Example bodies of the merchant registry, for the contract."""

from typing import Any

from drf_spectacular.utils import OpenApiExample

MERCHANT: dict[str, Any] = {
    "merchant_id": "acme-running",
    "agent_endpoint": "https://agent.acme-running.example/a2a",
    "subscription_tags": ["running", "shoes"],
    "capabilities": ["stock_check", "price_quote"],
    "regions": ["US"],
    "category_tags": ["running shoes"],
    "inventory_scope": [],
    "protocol_version": "0.2",
    "a2a_capabilities": {},
    "metadata": {},
    "status": "active",
    "registered_at": "2025-11-20T09:00:00Z",
    "last_seen_at": "2025-11-20T09:00:00Z",
    "deactivated_at": None,
    "deliveries_disabled_at": None,
}

REGISTER_REQUEST = OpenApiExample(
    "Register",
    summary="A new merchant agent",
    value={
        "merchant_id": "acme-running",
        "agent_endpoint": "https://agent.acme-running.example/a2a",
        "subscription_tags": ["running", "shoes"],
        "capabilities": ["stock_check", "price_quote"],
        "regions": ["US"],
        "category_tags": ["running shoes"],
    },
    request_only=True,
)

REGISTERED = OpenApiExample(
    "Registered",
    summary="Created: the token and the webhook secret, shown once",
    value={
        "status": "active",
        "created": True,
        "merchant_id": "acme-running",
        "registration_token": "mrt_cGTd6o-eZzdw_gGmB_lRfn2-r7Zgf-fO2a4K9R0oKdM",
        "webhook_secret": "whsec_J0cp22V/LpyA+I0kPhhc3THrPn1crz/P",
        "merchant": MERCHANT,
    },
    response_only=True,
)

MERCHANT_RECORD = OpenApiExample(
    "Merchant",
    summary="An active merchant agent",
    value={"status": "active", "merchant": MERCHANT},
    response_only=True,
)
