"""How /openapi.json describes the gateway (drf-spectacular's settings): its title, servers,
tags and the hooks that finish it (kernel/schema.py)."""

from typing import Any


def spectacular_settings(public_base_url: str) -> dict[str, Any]:
    """drf-spectacular's settings, the servers list naming `public_base_url`."""
    return {
        "TITLE": "Product Recommendation and Intent-Matching Gateway",
        "DESCRIPTION": (
            "Demand-side discovery (product cards with creator videos and attributed buy links) "
            "and agent-to-agent intent matching. All request and response bodies are JSON."
        ),
        "VERSION": "0.1.0",
        "OAS_VERSION": "3.1.0",
        "SERVE_INCLUDE_SCHEMA": False,
        "SWAGGER_UI_DIST": "SIDECAR",
        "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
        "REDOC_DIST": "SIDECAR",
        "COMPONENT_SPLIT_REQUEST": True,
        "SERVERS": [{"url": public_base_url}],
        "ENUM_NAME_OVERRIDES": {
            "MandateVerificationReasonEnum": "matching.mandates.Reason",
            # A mandate's algorithm and a JWK's alg: the same choice under one name.
            "SigningAlgorithmEnum": "kernel.signing.ALGORITHM_CHOICES",
            # A merchant record's verification_state and its verification's state: one choice.
            "VerificationStateEnum": "merchants.serializers.VERIFICATION_STATES",
        },
        "POSTPROCESSING_HOOKS": [
            "drf_spectacular.hooks.postprocess_schema_enums",
            "kernel.schema.retry_after_header",
            "kernel.schema.required_bodies",
            "kernel.schema.empty_query_values",
        ],
        "TAGS": [
            {
                "name": "recommend",
                "description": "Product cards for a natural-language shopping intent, resolved by "
                "the intent engine.",
            },
            {
                "name": "cards",
                "description": "Product cards (PCD): lookups by rec_id, fresh cards for a product, "
                "creator showcases and the attributed buy link.",
            },
            {
                "name": "ucp",
                "description": "The Universal Commerce Protocol's catalog (UCP 2026-04-08, REST "
                "binding): search, lookup and product detail, answered in UCP's shapes.",
            },
            {
                "name": "merchants",
                "description": "The merchant agent registry: registration, lookup, heartbeat, "
                "updates, token rotation, deactivation and health probes; each merchant's "
                "webhook deliveries, and the retry of a failed one.",
            },
            {
                "name": "intents",
                "description": "Shopping intents of demand agents, the merchants' intent feed and "
                "the proposals submitted against an intent.",
            },
            {"name": "proposals", "description": "Merchant offers submitted against an intent."},
            {
                "name": "match",
                "description": "Match sessions that rank an intent's proposals, and the match "
                "tokens minted and confirmed by accepting one.",
            },
            {
                "name": "mandates",
                "description": "Signed intent mandates for checkout flows (ES256 or RS256, as the "
                "signing key is EC or RSA, over RFC 8785 canonical JSON) and their verification.",
            },
            {
                "name": "attribution",
                "description": "Orders reported by merchants as the outcome of a card or a match "
                "token.",
            },
            {
                "name": "report",
                "description": "Attribution figures for supply teams, behind `X-Supply-Key`.",
            },
            {
                "name": "discovery",
                "description": "Documents that describe the gateway: the contract, the agent card, "
                "the UCP profile, the protocol and the mandate keys.",
            },
            {"name": "operations", "description": "Liveness and readiness probes."},
        ],
    }
