"""Example bodies of the intent-matching endpoints, for the contract: one coherent story, from
an intent through a merchant's proposal and a match to an accepted match token."""

from typing import Any

from drf_spectacular.utils import OpenApiExample

from catalog.examples import CARD, GENERATED_AT
from kernel.errors import INTENT_ENGINE_UNAVAILABLE

INTENT_ID = "int_475554141124282ba19858a1"
PROPOSAL_ID = "prp_90ffe9c83589755145f6c093"
MATCH_SESSION_ID = "mss_3d9d011e91e948e2a8be1a78"
MATCH_TOKEN_ID = "mtk_0cfe683f602b3ee7592c435e"
DEMAND_TOKEN = "dmt_q3XGvJ0c8mT2yK5wN7rB1eH4uL9aD6sF0pZ3xC8vB2n"
CREATED_AT = "2025-11-20T09:31:05Z"

INTENT: dict[str, Any] = {
    "intent_id": INTENT_ID,
    "raw_query": "cushioned running shoes for road runs under $90",
    "normalized_query": None,
    "intent_tags": ["running", "shoes"],
    "target_audience": None,
    "budget_range": {"min": None, "max": 90.0, "currency": "USD"},
    "region": "US",
    "constraints": ["wide fit"],
    "source_channel": "my-agent",
    "resolution_source": "client",
    "resolution_summary": None,
    "metadata": {},
    "created_at": CREATED_AT,
    "updated_at": CREATED_AT,
}

PROPOSAL: dict[str, Any] = {
    "proposal_id": PROPOSAL_ID,
    "merchant_agent_id": "acme-running",
    "intent_id": INTENT_ID,
    "product_id": 100001,
    "offer_title": "Stride 5 in wide fit, ships in 2 days",
    "price": 69.99,
    "inventory_status": "in_stock",
    "shipping_commitment": {"max_days": 2, "free": True},
    "commission_plan": {"rate": 0.12},
    "service_terms": {"returns_days": 30},
    "evidence": [],
    "valid_until": "2025-11-27T00:00:00Z",
    "proposal_score_inputs": {
        "price": 69.99,
        "inventory_status": "in_stock",
        "shipping_days": 2,
        "free_shipping": True,
        "commission_rate": 0.12,
        "evidence_count": 0,
    },
    "product_snapshot": {
        "id": "100001",
        "title": "Stridewell Stride 5 Stability Cushioned Road Running Shoe",
        "brand": "Stridewell",
        "price_usd": 74.99,
        "category_l1": "Sports & Outdoors",
        "category_l2": "Running Shoes",
    },
    "metadata": {},
    "provenance": "merchant",
    "status": "submitted",
    "created_at": "2025-11-20T09:32:40Z",
    "updated_at": "2025-11-20T09:32:40Z",
}

RANKED: dict[str, Any] = {
    "rank": 1,
    "proposal_id": PROPOSAL_ID,
    "score": 0.88,
    "components": {
        "relevance": 1.0,
        "price_fit": 1.0,
        "availability": 1.0,
        "shipping": 1.0,
        "reliability": 1.0,
        "evidence": 0.0,
        "commission": 0.6,
    },
    "reasons": [
        "matches 2 of 2 intent tags: running (title, category), shoes (title, category)",
        "within budget: 69.99 vs max 90.00",
        "in stock",
        "ships in 2 days, free",
    ],
    "product_id": 100001,
    "merchant_agent_id": "acme-running",
}

MATCH_SESSION: dict[str, Any] = {
    "match_session_id": MATCH_SESSION_ID,
    "intent_id": INTENT_ID,
    "best_proposal_id": PROPOSAL_ID,
    "ranked_proposals": [RANKED],
    "summary": {
        "weights": {
            "relevance": 0.3,
            "price_fit": 0.2,
            "availability": 0.15,
            "shipping": 0.1,
            "reliability": 0.1,
            "evidence": 0.1,
            "commission": 0.05,
        },
        "considered": 1,
        "ranked": 1,
        "returned": 1,
        "excluded": [],
        "limit": 3,
        "tie_break": "score desc, then price asc (none last), then submission time, "
        "then proposal_id",
    },
    "status": "open",
    "created_at": "2025-11-20T09:33:00Z",
    "updated_at": "2025-11-20T09:33:00Z",
}

MATCH_TOKEN: dict[str, Any] = {
    "match_token_id": MATCH_TOKEN_ID,
    "match_session_id": MATCH_SESSION_ID,
    "intent_id": INTENT_ID,
    "proposal_id": PROPOSAL_ID,
    "acceptance_state": "accepted",
    "intent_snapshot": INTENT,
    "proposal_snapshot": PROPOSAL,
    "ranking_snapshot": RANKED,
    "trace_ids": {
        "rec_id": None,
        "intent_id": INTENT_ID,
        "match_session_id": MATCH_SESSION_ID,
        "proposal_id": PROPOSAL_ID,
        "request_id": "req_14b652c33a65e724c3f2c13e",
    },
    "issued_at": "2025-11-20T09:33:30Z",
    "expires_at": "2025-11-21T09:33:30Z",
    "accepted_at": "2025-11-20T09:34:10Z",
    "confirmed_by": "demand",
}

INTENT_REQUEST = OpenApiExample(
    "Intent",
    summary="An intent with a budget and the demand agent's own tags",
    value={
        "raw_query": "cushioned running shoes for road runs under $90",
        "region": "US",
        "budget_range": {"max": 90, "currency": "USD"},
        "constraints": ["wide fit"],
        "intent_tags": ["running", "shoes"],
        "source_channel": "my-agent",
    },
    request_only=True,
)
INTENT_RESPONSE = OpenApiExample(
    "Intent created",
    value={"intent": INTENT, "demand_token": DEMAND_TOKEN},
    response_only=True,
    status_codes=[201],
)
INTENT_FOUND = OpenApiExample("Intent", value={"intent": INTENT}, response_only=True)

PROPOSAL_REQUEST = OpenApiExample(
    "Proposal",
    summary="An offer for a catalog product",
    value={
        "merchant_agent_id": "acme-running",
        "intent_id": INTENT_ID,
        "product_id": "100001",
        "offer_title": "Stride 5 in wide fit, ships in 2 days",
        "price": 69.99,
        "inventory_status": "in_stock",
        "shipping_commitment": {"max_days": 2, "free": True},
        "commission_plan": {"rate": 0.12},
        "service_terms": {"returns_days": 30},
    },
    request_only=True,
)
PROPOSAL_RESPONSE = OpenApiExample(
    "Proposal submitted", value={"proposal": PROPOSAL}, response_only=True, status_codes=[201]
)

MATCH_REQUEST = OpenApiExample(
    "Match",
    summary="Rank every live proposal of the intent",
    value={"intent_id": INTENT_ID, "limit": 3},
    request_only=True,
)
MATCH_RESPONSE = OpenApiExample(
    "Match session",
    value={"match_session": MATCH_SESSION},
    response_only=True,
    status_codes=[201],
)

ACCEPT_MINT = OpenApiExample(
    "Mint",
    summary="Mint the token of a ranked proposal",
    value={"proposal_id": PROPOSAL_ID},
    request_only=True,
)
ACCEPT_CONFIRM = OpenApiExample(
    "Confirm",
    summary="Confirm a minted token (as the demand side: with X-Demand-Token)",
    value={"match_token_id": MATCH_TOKEN_ID},
    request_only=True,
)
ACCEPT_RESPONSE = OpenApiExample(
    "Accepted",
    summary="The confirmed token, with its frozen snapshots",
    value={"match_token": MATCH_TOKEN},
    response_only=True,
)

MANDATE: dict[str, Any] = {
    "mandate_id": "mdt_02a9b7aaa34542bbfe9c47cd",
    "type": "intent_mandate",
    "issuer": "https://gateway.example.com",
    "product_id": "100001",
    "amount_limit": 80,
    "currency": "USD",
    "issued_at": "2025-11-20T09:35:00Z",
    "expires_at": "2025-11-20T09:50:00Z",
    "nonce": "O0LufETZKJoOOYezAMF25Q",
}
SIGNATURE = "ieLehia7JcNweWqXG91Fl8_DiYTUSW89s5Q6fu4N7upvZ611hSbzASI67XY0oO2_BlXJ2rG9qv5sOKDRXkd3iw"
# The key that made SIGNATURE, an EC P-256 key (ES256, the default of new deployments), as
# /.well-known/jwks.json publishes it (docs/INTENT_MATCHING_PROTOCOL.md shows it too).
SIGNING_JWK = {
    "kty": "EC",
    "crv": "P-256",
    "x": "xueOw97pY9FNZS43Hi6iJImb0kkel0J7hgLiZz46Xio",
    "y": "fV_JGRdw1vkErFLC_-gQH43Zj3cnEv1SM3cDN_6M2xU",
    "kid": "2Bq4ALoM7a7ANhubpLyXCScUyL29H1D05ippCzU9jfQ",
    "alg": "ES256",
    "use": "sig",
}
KEY_ID = SIGNING_JWK["kid"]

SIGN_REQUEST = OpenApiExample(
    "Sign",
    summary="Up to 80 USD for product 100001",
    value={"product_id": "100001", "amount_limit": 80, "currency": "USD"},
    request_only=True,
)
SIGN_RESPONSE = OpenApiExample(
    "Signed mandate",
    value={
        "mandate": MANDATE,
        "canonical_payload": (
            '{"amount_limit":80,"currency":"USD","expires_at":"2025-11-20T09:50:00Z",'
            '"issued_at":"2025-11-20T09:35:00Z","issuer":"https://gateway.example.com",'
            '"mandate_id":"mdt_02a9b7aaa34542bbfe9c47cd","nonce":"O0LufETZKJoOOYezAMF25Q",'
            '"product_id":"100001","type":"intent_mandate"}'
        ),
        "signature": SIGNATURE,
        "algorithm": "ES256",
        "key_id": KEY_ID,
        "jwks_url": "https://gateway.example.com/.well-known/jwks.json",
    },
    response_only=True,
    status_codes=[201],
)
VERIFY_REQUEST = OpenApiExample(
    "Verify",
    summary="A mandate as it was signed",
    value={"mandate": MANDATE, "signature": SIGNATURE, "key_id": KEY_ID, "algorithm": "ES256"},
    request_only=True,
)
VERIFY_VALID = OpenApiExample("Valid", value={"valid": True, "reason": None}, response_only=True)
VERIFY_EXPIRED = OpenApiExample(
    "Expired",
    summary="A mandate past its expires_at",
    value={"valid": False, "reason": "expired"},
    response_only=True,
)

RECOMMEND_RESPONSE = OpenApiExample(
    "Recommendation",
    summary="A strict match within the budget",
    value={
        "intent": "cushioned running shoes for road runs under $90",
        "intent_id": INTENT_ID,
        "count": 1,
        "items": [CARD],
        "proposals": [
            {
                **PROPOSAL,
                "proposal_id": "prp_5b1f0c2d9e8a7f6b4c3d2e1f",
                "merchant_agent_id": "catalog",
                "offer_title": CARD["product"]["title"],
                "price": 74.99,
                "inventory_status": "in_stock",
                "shipping_commitment": {},
                "commission_plan": {},
                "service_terms": {},
                "valid_until": None,
                "provenance": "catalog",
                "created_at": GENERATED_AT,
                "updated_at": GENERATED_AT,
            }
        ],
        "proposal_count": 1,
        "match_session_id": MATCH_SESSION_ID,
        "demand_token": DEMAND_TOKEN,
        "shopper_guide": "You asked for cushioned road-running shoes under $90. The Stridewell "
        "Stride 5 is a stability trainer at $74.99 that creators have sold 343 times.",
        "note": None,
        "match_tier": "strict",
        "intent_source": "engine",
        "resolved_keywords": ["running shoes", "cushioned"],
        "resolved_categories": ["Running Shoes"],
        "retrieval": {
            "intent_hits": 1,
            "trending_fill": 0,
            "excluded": [],
            "budget": {
                "min": None,
                "max": 90.0,
                "currency": "USD",
                "applied": True,
                "usd_per_unit": 1.0,
                "min_usd": None,
                "max_usd": 90.0,
            },
        },
        "generated_at": GENERATED_AT,
    },
    response_only=True,
)

ENGINE_UNAVAILABLE = OpenApiExample(
    "Engine not configured",
    value={
        "error": INTENT_ENGINE_UNAVAILABLE.code,
        "message": INTENT_ENGINE_UNAVAILABLE.message,
    },
    response_only=True,
    status_codes=[503],
)
