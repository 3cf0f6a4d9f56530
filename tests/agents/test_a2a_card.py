"""The live A2A agent card in both dialects, checked against A2A's published schemas
(tests/agents/a2a_schemas/) and the official A2A SDK's own parsers (v1.0, and its v0.3
compatibility types); and its HTTP caching: ETag, Last-Modified, Vary."""

import time
from urllib.parse import urlsplit

import pytest
from a2a.client.card_resolver import parse_agent_card
from a2a.compat.v0_3.types import AgentCard as AgentCardV03
from a2a.compat.v0_3.types import APIKeySecurityScheme, HTTPAuthSecurityScheme
from django.conf import settings
from django.core.cache import caches
from django.utils.http import http_date, parse_http_date

from agents.a2a.card import agent_card_v0_3
from tests.agents.a2a_schemas import errors_in

pytestmark = pytest.mark.django_db

CARD = "/.well-known/agent-card.json"
LEGACY = "/.well-known/agent.json"
SKILLS = {"recommend", "cards", "intents", "match"}
V0_3_MEMBERS = {"url", "protocolVersion", "preferredTransport", "additionalInterfaces"}


def card(client, path=CARD, **headers):
    response = client.get(path, headers=headers)
    assert response.status_code == 200
    return response


def v0_3_cards(client):
    """The v0.3 card as each way of asking for it serves it."""
    return {
        "legacy path": card(client, LEGACY),
        "header": card(client, **{"A2A-Version": "0.3"}),
        "query": card(client, f"{CARD}?A2A-Version=0.3"),
    }


def test_the_card_is_a_valid_a2a_v1_agent_card(client):
    body = card(client).json()

    assert errors_in("1.0", "Agent Card", body) == []
    assert not V0_3_MEMBERS & set(body)
    parsed = parse_agent_card(body)
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
    caller = parsed.security_schemes["CallerKey"].http_auth_security_scheme
    assert caller.scheme == "Bearer"
    merchant = parsed.security_schemes["MerchantToken"].api_key_security_scheme
    assert (merchant.location, merchant.name) == ("header", "X-Merchant-Token")
    supply = parsed.security_schemes["SupplyKey"].api_key_security_scheme
    assert (supply.location, supply.name) == ("header", "X-Supply-Key")
    assert not parsed.security_requirements  # the caller key is optional
    assert parsed.documentation_url == f"{base}/docs/INTENT_MATCHING_PROTOCOL.md"


@pytest.mark.parametrize("version", ["1.0", "1.1", "2.0", "latest", ""])
def test_any_version_but_0_x_is_answered_the_v1_card(client, version):
    body = card(client, **{"A2A-Version": version}).json()

    assert errors_in("1.0", "Agent Card", body) == []
    assert body == card(client).json()


def test_the_v0_3_card_is_valid_for_v0_3_however_it_is_asked_for(client):
    v1 = card(client).json()

    for how, response in v0_3_cards(client).items():
        body = response.json()
        assert errors_in("0.3", "AgentCard", body) == [], how
        parsed = AgentCardV03.model_validate(body)
        assert parsed.url == f"{settings.PUBLIC_BASE_URL}/a2a/jsonrpc", how
        assert (parsed.protocol_version, parsed.preferred_transport) == ("0.3.0", "JSONRPC")
        assert {skill.id for skill in parsed.skills} == SKILLS
        assert parsed.security_schemes is not None
        merchant = parsed.security_schemes["MerchantToken"].root
        assert isinstance(merchant, APIKeySecurityScheme)
        assert (merchant.in_, merchant.name) == ("header", "X-Merchant-Token")
        caller = parsed.security_schemes["CallerKey"].root
        assert isinstance(caller, HTTPAuthSecurityScheme)
        assert caller.scheme == "bearer"
        # The v1.0 card with v0.3's members: a v1.0 client reading it finds every interface.
        assert {name: body[name] for name in v1 if name != "securitySchemes"} == {
            name: value for name, value in v1.items() if name != "securitySchemes"
        }
        assert set(body) - set(v1) == V0_3_MEMBERS
        assert (
            parse_agent_card(body).supported_interfaces == parse_agent_card(v1).supported_interfaces
        )


def test_the_v0_3_card_stays_a_v0_3_card_after_the_a2a_server_parsed_it(client):
    parse_agent_card(agent_card_v0_3())  # the SDK's parser rewrites v0.3 schemes in place

    parsed = AgentCardV03.model_validate(card(client, LEGACY).json())

    assert parsed.security_schemes is not None
    assert isinstance(parsed.security_schemes["MerchantToken"].root, APIKeySecurityScheme)


def test_every_url_in_the_card_resolves_on_the_gateway(client):
    body = card(client).json()
    extension = body["capabilities"]["extensions"][0]
    urls = [
        body["documentationUrl"],
        extension["uri"],
        extension["params"]["openapi"],
        extension["params"]["jwks"],
        body["provider"]["url"] + CARD,
        body["provider"]["url"] + LEGACY,
    ]

    for url in urls:
        assert url.startswith(settings.PUBLIC_BASE_URL)
        assert client.get(urlsplit(url).path).status_code == 200, url
    # The interfaces themselves answer through the web role: tests/agents.


def test_the_card_follows_the_public_base_url(client, settings):
    settings.PUBLIC_BASE_URL = "https://gateway.example"

    v1 = card(client).json()
    v0_3 = card(client, LEGACY).json()

    assert {interface["url"] for interface in v1["supportedInterfaces"]} == {
        "https://gateway.example/a2a/jsonrpc",
        "https://gateway.example/a2a/rest",
    }
    assert v0_3["url"] == "https://gateway.example/a2a/jsonrpc"


def test_the_card_is_cacheable_and_revalidates_with_its_etag(client):
    first = card(client)
    etag = first["ETag"]

    again = client.get(CARD, headers={"If-None-Match": etag})
    weak = client.get(CARD, headers={"If-None-Match": f'"other", W/{etag}'})

    assert first["Cache-Control"] == "public, max-age=300"
    assert first["Vary"] == "A2A-Version"
    for answer in (again, weak):
        assert answer.status_code == 304
        assert answer.content == b""
        assert (answer["ETag"], answer["Last-Modified"]) == (etag, first["Last-Modified"])
        assert answer["Vary"] == "A2A-Version"
    assert client.get(CARD, headers={"If-None-Match": '"other"'}).status_code == 200


def test_the_card_revalidates_with_its_last_modified_date(client):
    first = card(client)
    modified = parse_http_date(first["Last-Modified"])
    assert modified <= time.time()

    def status(**headers: str) -> int:
        return client.get(CARD, headers=headers).status_code

    assert status(**{"If-Modified-Since": first["Last-Modified"]}) == 304
    assert status(**{"If-Modified-Since": http_date(modified + 60)}) == 304
    assert status(**{"If-Modified-Since": http_date(modified - 1)}) == 200
    assert status(**{"If-Modified-Since": "yesterday"}) == 200  # no HTTP date: ignored
    # If-None-Match decides whenever it is sent (RFC 9110 section 13.2.2).
    both = {"If-None-Match": '"other"', "If-Modified-Since": first["Last-Modified"]}
    assert status(**both) == 200


def test_the_date_is_the_shared_stores_not_the_process(client):
    """Every worker, and every worker after a restart, dates the card alike: the date is the
    one the shared store recorded when the card was first served, read again on every
    request, not a time this process keeps."""
    first = card(client)
    time.sleep(1.1)  # a date made now would differ

    again = card(client)
    legacy = card(client, LEGACY)

    assert again["Last-Modified"] == first["Last-Modified"]
    assert again["ETag"] == first["ETag"]
    assert legacy["ETag"] != first["ETag"]  # another document, dated on its own
    caches["default"].clear()  # the store lost it: dated afresh, later, never earlier
    later = card(client)
    assert parse_http_date(later["Last-Modified"]) > parse_http_date(first["Last-Modified"])


def test_a_changed_card_has_a_new_etag_and_date(client, settings):
    before = card(client)
    time.sleep(1.1)

    settings.AGENT_CARD_ORGANIZATION = "Another operator"
    after = card(client)

    assert after["ETag"] != before["ETag"]
    assert parse_http_date(after["Last-Modified"]) > parse_http_date(before["Last-Modified"])
    stale = {"If-None-Match": before["ETag"]}
    assert client.get(CARD, headers=stale).status_code == 200


def test_a_card_rolled_back_is_dated_after_the_version_it_replaced(client, settings):
    # A client holding the later version, asking If-Modified-Since its date, must get the card
    # again: dated by its bytes alone, the earlier card would answer it 304.
    organization = settings.AGENT_CARD_ORGANIZATION
    earlier = card(client)
    settings.AGENT_CARD_ORGANIZATION = "Another operator"
    later = card(client)
    settings.AGENT_CARD_ORGANIZATION = organization
    again = card(client)

    assert again["ETag"] == earlier["ETag"] != later["ETag"]
    dates = [parse_http_date(r["Last-Modified"]) for r in (earlier, later, again)]
    assert dates[0] < dates[1] < dates[2]
    held = {"If-Modified-Since": later["Last-Modified"]}
    assert client.get(CARD, headers=held).status_code == 200


def test_each_dialect_has_its_own_etag_and_the_legacy_path_serves_v0_3(client):
    cards = v0_3_cards(client)
    v1 = card(client)

    assert len({response.content for response in cards.values()}) == 1
    assert len({response["ETag"] for response in cards.values()}) == 1
    assert cards["header"]["ETag"] != v1["ETag"]
    held = {"If-None-Match": v1["ETag"], "A2A-Version": "0.3"}
    assert client.get(CARD, headers=held).status_code == 200  # another representation
