"""The live A2A agent card, checked with the official A2A SDK's own parsers (v1.0 and v0.3)."""

from urllib.parse import urlsplit

import pytest
from a2a.client.card_resolver import parse_agent_card
from a2a.compat.v0_3.types import AgentCard as AgentCardV03
from a2a.compat.v0_3.types import APIKeySecurityScheme
from django.conf import settings

from agents.a2a.card import SECURITY_SCHEMES, agent_card

pytestmark = pytest.mark.django_db

SKILLS = {"recommend", "cards", "intents", "match"}


def card(client, path="/.well-known/agent-card.json"):
    response = client.get(path)
    assert response.status_code == 200
    return response


def test_the_card_parses_as_an_a2a_v1_agent_card(client):
    parsed = parse_agent_card(card(client).json())

    assert parsed.name == "Product Recommendation and Intent-Matching Gateway"
    assert parsed.version == "0.1.0"
    base = settings.PUBLIC_BASE_URL
    assert [
        (interface.url, interface.protocol_binding, interface.protocol_version)
        for interface in parsed.supported_interfaces
    ] == [
        (f"{base}/a2a/jsonrpc", "JSONRPC", "1.0"),
        (f"{base}/a2a/rest", "HTTP+JSON", "1.0"),
        (f"{base}/a2a/jsonrpc", "JSONRPC", "0.3"),
    ]
    assert {skill.id for skill in parsed.skills} == SKILLS
    assert all(skill.examples for skill in parsed.skills)
    merchant = parsed.security_schemes["MerchantToken"].api_key_security_scheme
    assert (merchant.location, merchant.name) == ("header", "X-Merchant-Token")
    supply = parsed.security_schemes["SupplyKey"].api_key_security_scheme
    assert (supply.location, supply.name) == ("header", "X-Supply-Key")
    assert (
        parsed.documentation_url == f"{settings.PUBLIC_BASE_URL}/docs/INTENT_MATCHING_PROTOCOL.md"
    )


def test_the_card_validates_as_an_a2a_v0_3_agent_card(client):
    parsed = AgentCardV03.model_validate(card(client).json())

    assert parsed.url == f"{settings.PUBLIC_BASE_URL}/a2a/jsonrpc"
    assert (parsed.protocol_version, parsed.preferred_transport) == ("0.3.0", "JSONRPC")
    assert {skill.id for skill in parsed.skills} == SKILLS
    assert parsed.security_schemes is not None
    scheme = parsed.security_schemes["MerchantToken"].root
    assert isinstance(scheme, APIKeySecurityScheme)
    assert (scheme.in_, scheme.name) == ("header", "X-Merchant-Token")


def test_the_card_stays_a_v0_3_card_after_the_a2a_server_parsed_it(client):
    parse_agent_card(agent_card())  # as agents/a2a/server.py does as a worker starts

    parsed = AgentCardV03.model_validate(card(client).json())

    assert parsed.security_schemes is not None
    assert isinstance(parsed.security_schemes["MerchantToken"].root, APIKeySecurityScheme)
    assert card(client).json()["securitySchemes"] == SECURITY_SCHEMES


def test_every_url_in_the_card_resolves_on_the_gateway(client):
    body = card(client).json()
    extension = body["capabilities"]["extensions"][0]
    urls = [
        body["documentationUrl"],
        extension["uri"],
        extension["params"]["openapi"],
        extension["params"]["jwks"],
        body["provider"]["url"] + "/.well-known/agent-card.json",
    ]

    for url in urls:
        assert url.startswith(settings.PUBLIC_BASE_URL)
        assert client.get(urlsplit(url).path).status_code == 200, url
    # The interfaces themselves answer through the web role: tests/agents.


def test_the_card_is_cacheable_and_revalidates_with_its_etag(client):
    first = card(client)
    etag = first["ETag"]

    again = client.get("/.well-known/agent-card.json", HTTP_IF_NONE_MATCH=etag)

    assert first["Cache-Control"] == "public, max-age=300"
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert (
        client.get("/.well-known/agent-card.json", HTTP_IF_NONE_MATCH='"other"').status_code == 200
    )


def test_the_card_follows_the_public_base_url(client, settings):
    settings.PUBLIC_BASE_URL = "https://gateway.example"

    body = card(client).json()

    assert body["url"] == "https://gateway.example/a2a/jsonrpc"
    assert {interface["url"] for interface in body["supportedInterfaces"]} == {
        "https://gateway.example/a2a/jsonrpc",
        "https://gateway.example/a2a/rest",
    }


def test_older_clients_find_the_same_card_at_agent_json(client):
    assert card(client, "/.well-known/agent.json").json() == card(client).json()
