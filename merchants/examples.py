"""Example bodies of the merchant registry and of a merchant's deliveries, for the contract."""

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
    "endpoint_verified_at": "2025-11-20T09:00:01Z",
    "verification_state": "verified",
    "verification_error": None,
    "verification": None,
}

# Where the verification of acme-running's endpoint stands, as the merchant itself sees it.
VERIFICATION: dict[str, Any] = {
    "webhook_id": "evt_5e2b8c0f4d1a49b7a3c6e910",
    "state": "verified",
    "attempt_count": 2,
    "next_attempt_at": None,
    "last_error": None,
    "parked_at": None,
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

UNVERIFIED_ERROR = 'The endpoint answered 2xx without {"challenge": "<the challenge sent>"}.'
OWN_MERCHANT_RECORD = OpenApiExample(
    "Own merchant, endpoint unverified",
    summary="Looked up with its own token: why its endpoint is not verified yet",
    value={
        "status": "active",
        "merchant": {
            **MERCHANT,
            "endpoint_verified_at": None,
            "verification_state": "pending",
            "verification_error": UNVERIFIED_ERROR,
            "verification": {
                **VERIFICATION,
                "state": "pending",
                "attempt_count": 3,
                "next_attempt_at": "2025-11-20T09:35:10Z",
                "last_error": UNVERIFIED_ERROR,
            },
        },
    },
    response_only=True,
)


# --- A merchant's deliveries -------------------------------------------------------------------
# The intent of the matching examples (matching/examples.py), announced to acme-running.
SURGED_INTENT_ID = "int_475554141124282ba19858a1"


def _attempt(number: int, started_at: str, status_code: int | None, latency_ms: int) -> dict:
    """An attempt as the API shows it, with the error the gateway records for its answer."""
    if status_code is None:
        outcome, error = "failed", "No answer within 10 s."
    elif status_code < 300:
        outcome, error = "succeeded", None
    else:
        outcome, error = "failed", f"The endpoint answered {status_code}."
    return {
        "number": number,
        "started_at": started_at,
        "outcome": outcome,
        "status_code": status_code,
        "latency_ms": latency_ms,
        "error": error,
    }


DELIVERED: dict[str, Any] = {
    "delivery_id": 4812,
    "event": {
        "webhook_id": "evt_9c41d07be2a35f6810c4aa17",
        "type": "intent.surge",
        "intent_id": SURGED_INTENT_ID,
    },
    "status": "succeeded",
    "attempt_count": 2,
    "attempts": [
        _attempt(1, "2025-11-20T09:31:05Z", 500, 182),
        _attempt(2, "2025-11-20T09:31:10Z", 200, 94),
    ],
    "last_status_code": 200,
    "last_error": None,
    "next_retry_at": None,
    "created_at": "2025-11-20T09:31:05Z",
    "delivered_at": "2025-11-20T09:31:10Z",
    "failed_at": None,
}

# Eight attempts on the Standard Webhooks schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
FAILED_ATTEMPTS = [
    _attempt(1, "2025-11-18T06:00:00Z", 503, 211),
    _attempt(2, "2025-11-18T06:00:05Z", 503, 198),
    _attempt(3, "2025-11-18T06:05:05Z", None, 10000),
    _attempt(4, "2025-11-18T06:35:05Z", 503, 240),
    _attempt(5, "2025-11-18T08:35:05Z", 503, 187),
    _attempt(6, "2025-11-18T13:35:05Z", 503, 205),
    _attempt(7, "2025-11-18T23:35:05Z", 503, 193),
    _attempt(8, "2025-11-19T09:35:05Z", 503, 201),
]

FAILED: dict[str, Any] = {
    "delivery_id": 4790,
    "event": {
        "webhook_id": "evt_3a0f6c2d91b847e5a6d2c018",
        "type": "intent.surge",
        "intent_id": "int_6b1e0d5c7a2f48e39d14c2b7",
    },
    "status": "failed",
    "attempt_count": 8,
    "attempts": FAILED_ATTEMPTS,
    "last_status_code": 503,
    "last_error": "The endpoint answered 503.",
    "next_retry_at": None,
    "created_at": "2025-11-18T06:00:00Z",
    "delivered_at": None,
    "failed_at": "2025-11-19T09:35:05Z",
}

DELIVERIES = OpenApiExample(
    "Deliveries",
    summary="The newest deliveries: one delivered at its second attempt, one failed",
    value={
        "merchant_id": "acme-running",
        "verification": {
            **VERIFICATION,
            "attempts": [
                _attempt(1, "2025-11-17T08:00:00Z", 503, 143),
                _attempt(2, "2025-11-17T08:00:05Z", 200, 88),
            ],
        },
        "count": 2,
        "deliveries": [DELIVERED, FAILED],
        "next_cursor": None,
    },
    response_only=True,
)

RETRIED = OpenApiExample(
    "Retried",
    summary="The failed delivery, due again now",
    value={
        "delivery": {
            **FAILED,
            "status": "pending",
            "next_retry_at": "2025-11-20T10:02:00Z",
            "failed_at": None,
        }
    },
    response_only=True,
    status_codes=["202"],
)
