"""Documents published under /.well-known/: the A2A agent card and the JWK Set of the mandate
signing keys."""

import hashlib
from typing import Any

from django.conf import settings
from django.http import HttpResponse, HttpResponseNotModified
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gateway.jsonio import dumps
from gateway.signing import signing_keys

# Verifiers may keep the key set this long; a new key is listed (published) for longer than
# this before it is moved first to sign (README, key rotation), so no verifier meets a kid it
# cannot find.
JWKS_MAX_AGE_S = 300


class JwkSerializer(serializers.Serializer):
    kty = serializers.CharField(help_text="Always RSA.")
    n = serializers.CharField(help_text="Modulus, base64url.")
    e = serializers.CharField(help_text="Public exponent, base64url.")
    kid = serializers.CharField(help_text="RFC 7638 SHA-256 thumbprint of the key, base64url.")
    alg = serializers.CharField(help_text="Always RS256.")
    use = serializers.CharField(help_text="Always sig.")


class JwkSetSerializer(serializers.Serializer):
    keys = JwkSerializer(many=True)


class JwksView(APIView):
    @extend_schema(
        operation_id="getJwks",
        summary="The public keys that verify intent mandates (JWK Set)",
        description="Every configured key, the signing one first; a mandate's key_id is the kid "
        "of the key that signed it. Public members only. Empty when signing is not configured.",
        tags=["discovery"],
        responses={200: JwkSetSerializer},
    )
    def get(self, request: Request) -> Response:
        keys = [key.public_jwk() for key in signing_keys()]
        return Response(
            {"keys": keys}, headers={"Cache-Control": f"public, max-age={JWKS_MAX_AGE_S}"}
        )


# --- The agent card ----------------------------------------------------------------------------
# A2A v1.0 keys (supportedInterfaces, securityRequirements) beside the v0.3 keys (url,
# protocolVersion, preferredTransport, security) that older clients read. Security schemes are
# written in the v0.3 form ({"type": "apiKey", "in": ..., "name": ...}), which v0.3 clients
# require and the A2A SDK's v1.0 card resolver converts.

AGENT_CARD_MAX_AGE_S = 300
CONTRACT_VERSION = "0.1.0"
PROTOCOL_VERSION = "0.2"

SECURITY_SCHEMES = {
    "MerchantToken": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Merchant-Token",
        "description": "The registration_token a merchant agent received at registration.",
    },
    "SupplyKey": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Supply-Key",
        "description": "A supply-team key (SUPPLY_API_KEYS) for the attribution report.",
    },
}

# (id, name, description, tags, examples, the scheme it needs or None)
SKILLS: list[tuple[str, str, str, list[str], list[str], str | None]] = [
    (
        "recommend",
        "Recommend products for a shopping intent",
        "GET /v1/recommend?intent=...: natural-language intent in, product cards out, each with "
        "creator short videos and a buy link carrying its rec_id (hand it to the user verbatim).",
        ["shopping", "recommendation", "product-cards"],
        [
            "GET /v1/recommend?intent=trail+running+shoes+under+%24120&limit=3&region=US",
            "waterproof hiking boots for a teenager, under 100 dollars",
        ],
        None,
    ),
    (
        "intents",
        "State a shopping intent for merchant agents",
        "POST /v1/intents: a demand agent states what a shopper wants; matching merchant agents "
        "receive it as a signed Intent.Surge webhook or through their feed.",
        ["intent", "demand"],
        ['POST /v1/intents {"raw_query": "espresso machine under $300", "region": "US"}'],
        None,
    ),
    (
        "proposals",
        "Propose an offer for an intent (merchant agents)",
        "POST /v1/proposals with X-Merchant-Token: a registered merchant agent offers one of "
        "its products for an intent, with price, stock, shipping, commission and evidence.",
        ["merchant", "proposal", "offer"],
        [
            'POST /v1/proposals {"merchant_agent_id": "shop-1", "intent_id": "int_...", '
            '"product_id": "100001", "price": 99, "inventory_status": "in_stock"}'
        ],
        "MerchantToken",
    ),
    (
        "match",
        "Rank proposals and accept one",
        "POST /v1/match ranks an intent's live proposals with explained scores; "
        "POST /v1/match/{id}/accept mints, then confirms, a match token.",
        ["matching", "ranking", "match-token"],
        [
            'POST /v1/match {"intent_id": "int_...", "limit": 3}',
            'POST /v1/match/mss_.../accept {"proposal_id": "prp_..."}',
        ],
        None,
    ),
    (
        "mandates",
        "Sign an intent mandate for checkout",
        "POST /v1/intent-mandates/sign: an RS256 signature over the RFC 8785 form of a mandate "
        "(one product, up to an amount, for a short time), verifiable with the JWK Set.",
        ["checkout", "mandate", "signature"],
        ['POST /v1/intent-mandates/sign {"product_id": "100001", "amount_limit": 120}'],
        None,
    ),
    (
        "attribution",
        "Report attribution to supply teams",
        "GET /v1/report/attribution with X-Supply-Key: cards served, clicks, accepted matches, "
        "conversions and GMV, by day, channel, product and creator.",
        ["attribution", "report"],
        ["GET /v1/report/attribution?days=7&channel=my-agent"],
        "SupplyKey",
    ),
]


def agent_card() -> dict[str, Any]:
    """The gateway described for A2A clients, from its settings."""
    base = settings.PUBLIC_BASE_URL
    api = f"{base}/v1"
    skills = []
    for skill_id, name, description, tags, examples, scheme in SKILLS:
        skill: dict[str, Any] = {
            "id": skill_id,
            "name": name,
            "description": description,
            "tags": tags,
            "examples": examples,
            "inputModes": ["application/json"],
            "outputModes": ["application/json"],
        }
        if scheme:
            skill["security"] = [{scheme: []}]
            skill["securityRequirements"] = [{"schemes": {scheme: {"list": []}}}]
        skills.append(skill)
    return {
        "name": "Product Recommendation and Intent-Matching Gateway",
        "description": (
            "Turns shoppers' natural-language intents into product cards with creator videos "
            "and attributed buy links, and matches demand agents' intents with merchant agents' "
            f"proposals (intent-matching protocol v{PROTOCOL_VERSION}). A REST API in JSON: "
            f"every operation is in the OpenAPI contract at {base}/openapi.json."
        ),
        "version": CONTRACT_VERSION,
        "provider": {"organization": settings.AGENT_CARD_ORGANIZATION, "url": base},
        "documentationUrl": f"{base}/docs/INTENT_MATCHING_PROTOCOL.md",
        "supportedInterfaces": [
            {"url": api, "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        ],
        "url": api,
        "preferredTransport": "HTTP+JSON",
        "protocolVersion": "0.3.0",
        "capabilities": {
            "streaming": False,
            "pushNotifications": False,
            "extensions": [
                {
                    "uri": f"{base}/docs/INTENT_MATCHING_PROTOCOL.md",
                    "description": f"Intent-matching protocol v{PROTOCOL_VERSION}: intents, "
                    "Intent.Surge webhooks, proposals, match sessions and tokens.",
                    "required": False,
                    "params": {
                        "openapi": f"{base}/openapi.json",
                        "jwks": f"{base}/.well-known/jwks.json",
                    },
                }
            ],
        },
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "securitySchemes": SECURITY_SCHEMES,
        "skills": skills,
    }


class AgentCardView(APIView):
    @extend_schema(
        operation_id="getAgentCard",
        summary="The live A2A agent card",
        description="A2A v1.0 keys plus the v0.3 keys (url, protocolVersion, preferredTransport) "
        "for older clients; served with an ETag (If-None-Match answers 304) and Cache-Control. "
        "Also at /.well-known/agent.json.",
        tags=["discovery"],
        responses={200: OpenApiTypes.OBJECT, 304: None},
    )
    def get(self, request: Request) -> HttpResponse:
        body = dumps(agent_card())
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {"ETag": etag, "Cache-Control": f"public, max-age={AGENT_CARD_MAX_AGE_S}"}
        wanted = request.headers.get("If-None-Match", "")
        if etag in {tag.strip() for tag in wanted.split(",")} or wanted.strip() == "*":
            return HttpResponseNotModified(headers=headers)
        return HttpResponse(body, content_type="application/json", headers=headers)


class LegacyAgentCardView(AgentCardView):
    """The same card at /.well-known/agent.json, where A2A v0.2 clients look; the contract lists
    it once, under agent-card.json."""

    @extend_schema(exclude=True)
    def get(self, request: Request) -> HttpResponse:
        return super().get(request)
