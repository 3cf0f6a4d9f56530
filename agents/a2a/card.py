"""The A2A agent card, live at /.well-known/agent-card.json: what the gateway's A2A agent can be
asked (agents/a2a/messages.py), at which interfaces (agents/a2a/server.py), signed when a key
is configured (agents/a2a/card_signing.py); in A2A v1.0's dialect, or v0.3's for the clients
that ask for it or look at /.well-known/agent.json."""

from typing import Any

from a2a.utils.constants import PROTOCOL_VERSION_0_3 as V0_3
from a2a.utils.constants import PROTOCOL_VERSION_1_0 as V1_0
from a2a.utils.constants import VERSION_HEADER
from django.conf import settings
from django.http import HttpResponse
from django.utils.cache import patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from agents.a2a import A2A_JSONRPC_PATH, A2A_REST_PATH
from agents.a2a.callers import CALLER_KEY_SCHEME
from agents.a2a.card_signing import signed_card
from agents.mcp import MCP_PATH
from kernel.conditional import json_with_etag
from kernel.jsonio import dumps
from kernel.wellknown import CONTRACT_VERSION, JWKS_PATH, PROTOCOL_VERSION

# --- The agent card ----------------------------------------------------------------------------
# Two dialects of one card. The v1.0 card holds A2A v1.0's members alone, as its schema asks
# (no member it does not name): its interfaces in supportedInterfaces, its security schemes in
# v1.0's form ({"apiKeySecurityScheme": {...}}). The v0.3 card is that card with the v0.3
# members older clients read (url, protocolVersion, preferredTransport, additionalInterfaces)
# and its schemes in v0.3's form ({"type": "apiKey", "in": ...}); its supportedInterfaces stay,
# so that a v1.0 client that reads it still finds every interface. Every interface listed
# answers: the agents app serves them (agents/, mounted by gateway/asgi.py). No member holds a
# default value (an extension's "required": false is left out): A2A's signing
# canonicalization (section 8.4.1) drops those, and the card signed is the card served
# (agents/a2a/card_signing.py).

AGENT_CARD_MAX_AGE_S = 300

# The security schemes, by name: (the kind of the v1.0 scheme, its members; the v0.3 scheme). The
# caller key is A2A's own (agents/a2a/callers.py) and optional, so no security requirement names
# it; the other two are the REST API's, which the card's extension points to.
SECURITY_SCHEMES: dict[str, tuple[str, dict[str, str], dict[str, str]]] = {
    CALLER_KEY_SCHEME: (
        "httpAuthSecurityScheme",
        {"scheme": "Bearer"},
        {"type": "http", "scheme": "bearer"},
    ),
    "MerchantToken": (
        "apiKeySecurityScheme",
        {"location": "header", "name": "X-Merchant-Token"},
        {"type": "apiKey", "in": "header", "name": "X-Merchant-Token"},
    ),
    "SupplyKey": (
        "apiKeySecurityScheme",
        {"location": "header", "name": "X-Supply-Key"},
        {"type": "apiKey", "in": "header", "name": "X-Supply-Key"},
    ),
}
SCHEME_DESCRIPTIONS = {
    CALLER_KEY_SCHEME: "Optional, A2A only: a secret of your own (32 to 256 characters, as "
    "secrets.token_urlsafe(32) makes one) sent as a bearer token with every A2A request. Your "
    "tasks are then yours alone, and ListTasks lists them; without one you are anonymous, and "
    "ListTasks answers an empty list.",
    "MerchantToken": "The registration_token a merchant agent received at registration "
    "(REST API only).",
    "SupplyKey": "A supply-team key (SUPPLY_API_KEYS) for the attribution report (REST API only).",
}


def security_schemes(version: str) -> dict[str, Any]:
    """The card's securitySchemes in A2A `version`'s form ("1.0" or "0.3"): new objects every
    time, since the A2A SDK's card parser rewrites the v0.3 schemes it is given in place."""
    schemes: dict[str, Any] = {}
    for name, (kind, members, legacy) in SECURITY_SCHEMES.items():
        description = {"description": SCHEME_DESCRIPTIONS[name]}
        if version == V0_3:
            schemes[name] = {**legacy, **description}
        else:
            schemes[name] = {kind: {**members, **description}}
    return schemes


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
    """The gateway described for A2A v1.0 clients, from its settings."""
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
            {"url": jsonrpc, "protocolBinding": "JSONRPC", "protocolVersion": V1_0},
            {"url": rest, "protocolBinding": "HTTP+JSON", "protocolVersion": V1_0},
            {"url": jsonrpc, "protocolBinding": "JSONRPC", "protocolVersion": V0_3},
        ],
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
        "securitySchemes": security_schemes(V1_0),
        "skills": skills,
    }


def agent_card_v0_3() -> dict[str, Any]:
    """The card for A2A v0.3 clients: the v1.0 card with v0.3's members (beside
    supportedInterfaces, where the interfaces are), its security schemes in v0.3's form."""
    card = agent_card()
    jsonrpc = f"{settings.PUBLIC_BASE_URL}{A2A_JSONRPC_PATH}"
    legacy = {
        "url": jsonrpc,
        "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": jsonrpc, "transport": "JSONRPC"}],
        "protocolVersion": "0.3.0",
    }
    ordered: dict[str, Any] = {}
    for name, value in card.items():
        ordered[name] = value
        if name == "supportedInterfaces":
            ordered.update(legacy)
    ordered["securitySchemes"] = security_schemes(V0_3)
    return ordered


def dialect(request: Request) -> str:
    """The card's dialect a request asks for: v0.3 when its `A2A-Version` (the header, or the
    query parameter A2A section 3.6.1 allows instead) names a 0.x version; v1.0 otherwise,
    also without any, since neither v1.0's clients nor its conformance kit name one when they
    fetch a card, and v0.3's SDK reads no card a v1.0 schema admits."""
    asked = request.headers.get(VERSION_HEADER) or request.query_params.get(VERSION_HEADER, "")
    return V0_3 if asked.strip().partition(".")[0] == "0" else V1_0


def served(request: Request, card: dict[str, Any], version: str) -> HttpResponse:
    """`card`, of the dialect `version`, signed, with its ETag, Last-Modified (dated apart from
    the other dialect's) and Cache-Control, or 304."""
    jku = f"{settings.PUBLIC_BASE_URL}{JWKS_PATH}"
    body = dumps(signed_card(card, jku=jku))
    dated = f"a2a-agent-card-{version}"
    return json_with_etag(request, body, max_age_s=AGENT_CARD_MAX_AGE_S, dated=dated)


class AgentCardView(APIView):
    @extend_schema(
        operation_id="getAgentCard",
        summary="The live A2A agent card",
        description="An A2A v1.0 agent card, valid against v1.0's schema. Asked with the header "
        "(or query parameter) `A2A-Version: 0.3`, the v0.3 card instead: the same card with "
        "v0.3's members (url, protocolVersion, preferredTransport, additionalInterfaces) and "
        "its security schemes in v0.3's form, also served at /.well-known/agent.json. Served "
        "with an ETag, a Last-Modified (If-None-Match, or else If-Modified-Since, answers 304), "
        "Cache-Control and `Vary: A2A-Version`. When a signing key is configured the card "
        "carries `signatures`: one JWS (A2A v1.0 AgentCardSignature: `protected`, `signature`) "
        "over the RFC 8785 canonical JSON of the card without `signatures`, its protected "
        "header naming alg (ES256 or RS256), kid, typ JOSE and jku, the JWK Set that publishes "
        "the key.",
        tags=["discovery"],
        parameters=[
            OpenApiParameter(
                VERSION_HEADER,
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="`0.3` (any 0.x) for the v0.3 card; otherwise, or absent, v1.0's.",
            )
        ],
        responses={200: OpenApiTypes.OBJECT, 304: None},
    )
    def get(self, request: Request) -> HttpResponse:
        version = dialect(request)
        response = served(request, agent_card_v0_3() if version == V0_3 else agent_card(), version)
        patch_vary_headers(response, [VERSION_HEADER])
        return response


class LegacyAgentCardView(APIView):
    """The v0.3 card at /.well-known/agent.json, where clients before v1.0 may look (A2A v0.2's
    path; a2a-sdk 0.3's PREV_AGENT_CARD_WELL_KNOWN_PATH). The contract lists the card once,
    under agent-card.json."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> HttpResponse:
        return served(request, agent_card_v0_3(), V0_3)
