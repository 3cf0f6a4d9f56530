"""The A2A agent card, live at /.well-known/agent-card.json: what the gateway's A2A agent can be
asked (agents/a2a/messages.py), at which interfaces (agents/a2a/server.py), signed when a key
is configured (agents/a2a/card_signing.py)."""

import copy
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from agents.a2a import A2A_JSONRPC_PATH, A2A_REST_PATH
from agents.a2a.card_signing import signed_card
from agents.mcp import MCP_PATH
from kernel.conditional import json_with_etag
from kernel.jsonio import dumps
from kernel.wellknown import CONTRACT_VERSION, JWKS_PATH, PROTOCOL_VERSION

# --- The agent card ----------------------------------------------------------------------------
# A2A v1.0 keys (supportedInterfaces, securityRequirements) beside the v0.3 keys (url,
# protocolVersion, preferredTransport, additionalInterfaces) that older clients read. Every
# interface listed answers: the agents app serves them (agents/, mounted by gateway/asgi.py).
# Security schemes are written in the v0.3 form ({"type": "apiKey", "in": ..., "name": ...}),
# which v0.3 clients require and the A2A SDK's v1.0 card resolver converts; they describe the
# REST API that the card's extension points to. No member holds a default value (an
# extension's "required": false is left out): A2A's signing canonicalization (section 8.4.1)
# drops those, and the card signed is the card served (agents/a2a/card_signing.py).

AGENT_CARD_MAX_AGE_S = 300

SECURITY_SCHEMES = {
    "MerchantToken": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Merchant-Token",
        "description": "The registration_token a merchant agent received at registration "
        "(REST API only).",
    },
    "SupplyKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Supply-Key",
        "description": "A supply-team key (SUPPLY_API_KEYS) for the attribution report "
        "(REST API only).",
    },
}


def _operation(name: str, **arguments: object) -> str:
    return dumps({"operation": name, "arguments": arguments}).decode()


# (id, name, description, tags, examples): what an A2A message can ask (agents/a2a/messages.py).
SKILLS: list[tuple[str, str, str, list[str], list[str]]] = [
    (
        "recommend",
        "Recommend products for a shopping intent",
        'Send the shopper\'s words as a text part, or a data part {"intent", "limit", '
        '"region", "channel"}. The completed task\'s artifact holds the shopper guide as '
        "text, one data part per product card (creator short videos and a buy link carrying "
        "its rec_id: hand the link to the user verbatim) and a data part with intent_id, "
        "match_session_id and match_tier.",
        ["shopping", "recommendation", "product-cards"],
        [
            "waterproof trail running shoes under $120",
            dumps({"intent": "espresso machine under $300", "limit": 3, "region": "US"}).decode(),
        ],
    ),
    (
        "cards",
        "Read product cards and creator showcases",
        "A data part naming the operation: get_card {rec_id}, product_card {product_id, "
        "channel}, creator_showcase {username, limit, channel}. The artifact's data part is "
        "the JSON the REST API serves for it.",
        ["product-cards", "creators"],
        [_operation("get_card", rec_id="rec_..."), _operation("product_card", product_id="...")],
    ),
    (
        "intents",
        "State a shopping intent for merchant agents and collect their proposals",
        "A data part naming the operation: create_intent {raw_query, region, budget_range, "
        "...}, get_intent {intent_id}, list_proposals {intent_id, include_expired}. Matching "
        "merchant agents receive the intent as a signed Intent.Surge webhook.",
        ["intent", "demand", "proposals"],
        [
            _operation("create_intent", raw_query="espresso machine under $300", region="US"),
            _operation("list_proposals", intent_id="int_..."),
        ],
    ),
    (
        "match",
        "Rank an intent's proposals and accept one",
        "A data part naming the operation: create_match {intent_id, limit} ranks the live "
        "proposals with explained scores; get_match {match_session_id}; accept "
        "{match_session_id, proposal_id} mints, then confirms, a match token; get_match_token "
        "{match_token_id}.",
        ["matching", "ranking", "match-token"],
        [
            _operation("create_match", intent_id="int_...", limit=3),
            _operation("accept", match_session_id="mss_...", proposal_id="prp_..."),
        ],
    ),
]

MODES = ["text/plain", "application/json"]


def agent_card() -> dict[str, Any]:
    """The gateway described for A2A clients, from its settings."""
    base = settings.PUBLIC_BASE_URL
    jsonrpc, rest = f"{base}{A2A_JSONRPC_PATH}", f"{base}{A2A_REST_PATH}"
    skills = [
        {
            "id": skill_id,
            "name": name,
            "description": description,
            "tags": tags,
            "examples": examples,
            "inputModes": MODES,
            "outputModes": MODES,
        }
        for skill_id, name, description, tags, examples in SKILLS
    ]
    return {
        "name": "Product Recommendation and Intent-Matching Gateway",
        "description": (
            "Turns shoppers' natural-language intents into product cards with creator videos "
            "and attributed buy links, and matches demand agents' intents with merchant agents' "
            f"proposals (intent-matching protocol v{PROTOCOL_VERSION}). Speak A2A to it at the "
            f"interfaces listed here, MCP at {base}{MCP_PATH}, or its REST API, every operation "
            f"of which is in the OpenAPI contract at {base}/openapi.json."
        ),
        "version": CONTRACT_VERSION,
        "provider": {"organization": settings.AGENT_CARD_ORGANIZATION, "url": base},
        "documentationUrl": f"{base}/docs/INTENT_MATCHING_PROTOCOL.md",
        "supportedInterfaces": [
            {"url": jsonrpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": rest, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": jsonrpc, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "url": jsonrpc,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": jsonrpc, "transport": "JSONRPC"}],
        "protocolVersion": "0.3.0",
        "capabilities": {
            "streaming": False,
            "pushNotifications": False,
            "extensions": [
                {
                    "uri": f"{base}/docs/INTENT_MATCHING_PROTOCOL.md",
                    "description": f"Intent-matching protocol v{PROTOCOL_VERSION}: intents, "
                    "Intent.Surge webhooks, proposals, match sessions and tokens, over the REST "
                    "API.",
                    "params": {
                        "openapi": f"{base}/openapi.json",
                        "jwks": f"{base}{JWKS_PATH}",
                        "mcp": f"{base}{MCP_PATH}",
                    },
                }
            ],
        },
        "defaultInputModes": MODES,
        "defaultOutputModes": MODES,
        # A copy: the A2A SDK's card parser rewrites the v0.3 schemes it is given in place.
        "securitySchemes": copy.deepcopy(SECURITY_SCHEMES),
        "skills": skills,
    }


class AgentCardView(APIView):
    @extend_schema(
        operation_id="getAgentCard",
        summary="The live A2A agent card",
        description="A2A v1.0 keys plus the v0.3 keys (url, protocolVersion, preferredTransport) "
        "for older clients; served with an ETag (If-None-Match answers 304) and Cache-Control. "
        "When a signing key is configured the card carries `signatures`: one JWS (A2A v1.0 "
        "AgentCardSignature: `protected`, `signature`) over the RFC 8785 canonical JSON of the "
        "card without `signatures`, its protected header naming alg (ES256 or RS256), kid, typ "
        "JOSE and jku, the JWK Set that publishes the key. Also at /.well-known/agent.json.",
        tags=["discovery"],
        responses={200: OpenApiTypes.OBJECT, 304: None},
    )
    def get(self, request: Request) -> HttpResponse:
        jku = f"{settings.PUBLIC_BASE_URL}{JWKS_PATH}"
        body = dumps(signed_card(agent_card(), jku=jku))
        return json_with_etag(request, body, max_age_s=AGENT_CARD_MAX_AGE_S)


class LegacyAgentCardView(AgentCardView):
    """The same card at /.well-known/agent.json, where A2A v0.2 clients look; the contract lists
    it once, under agent-card.json."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> HttpResponse:
        return super().get(request)
