"""UCP's two releases over the REST binding: each release's profile (the current one names the
earlier one's), and a platform that declares the release it speaks in its own profile
(`ucp.version`), named by the UCP-Agent header, answered in that release, each answer valid
under that release's schemas; a release the gateway does not speak, and a profile it cannot
use, are the errors UCP's negotiation names. The platforms' profiles are served on loopback by a
real HTTP server, which the gateway fetches; what a fetch may cost: test_ucp_profile_fetches.py."""

import socket
from typing import Any

import pytest
from django.conf import settings

from matching.models import Intent
from tests.agents.test_ucp import SHOES, post
from tests.agents.ucp_validation import APRIL, AUGUST, RELEASES, Release

pytestmark = pytest.mark.django_db


def agent(url: str) -> dict[str, str]:
    """The UCP-Agent header naming the profile at `url`."""
    return {"UCP-Agent": f'profile="{url}"'}


def answered(client, path: str, body: Any, url: str, status: int = 200) -> dict[str, Any]:
    response = post(client, path, body, **agent(url))
    assert response.status_code == status, response.content
    return response.json()


def valid(release: Release, ref: str, document: Any) -> Any:
    problems = release.errors(ref, document)
    assert not problems, problems
    return document


def stated(answer: dict[str, Any], version: str) -> None:
    """The answer's envelope names `version`, for itself and each capability that answered."""
    assert answer["ucp"]["version"] == version
    for entries in answer["ucp"].get("capabilities", {}).values():
        assert [entry["version"] for entry in entries] == [version]


# --- The profiles -------------------------------------------------------------------------------


def test_the_profile_is_a_ucp_2026_08_25_business_profile_with_the_served_endpoints_and_keys(
    client, signing_key
):
    response = client.get("/.well-known/ucp")

    assert response.status_code == 200
    profile = response.json()
    valid(AUGUST, AUGUST.BUSINESS_PROFILE, profile)
    valid(AUGUST, AUGUST.PROFILE, profile)
    base = settings.PUBLIC_BASE_URL
    assert profile["ucp"]["version"] == "2026-08-25"
    services = profile["ucp"]["services"]["dev.ucp.shopping"]
    assert {(s["transport"], s["endpoint"], s["version"]) for s in services} == {
        ("rest", f"{base}/ucp", "2026-08-25"),
        ("mcp", f"{base}/mcp", "2026-08-25"),
    }
    capabilities = profile["ucp"]["capabilities"]
    assert set(capabilities) == {
        "dev.ucp.shopping.catalog.search",
        "dev.ucp.shopping.catalog.lookup",
    }
    assert capabilities["dev.ucp.shopping.catalog.search"][0]["spec"] == (
        "https://ucp.dev/2026-08-25/specification/shopping/catalog/search"
    )
    assert profile["ucp"]["payment_handlers"] == {}  # present, and empty: no payments taken
    assert profile["ucp"]["supported_versions"] == {
        "2026-04-08": f"{base}/.well-known/ucp/2026-04-08"
    }
    assert profile["keys"] == client.get("/.well-known/jwks.json").json()["keys"]
    assert profile["keys"], "the configured key is published"
    assert "signing_keys" not in profile
    again = client.get("/.well-known/ucp", headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304


def test_the_profile_of_2026_04_08_is_the_one_served_before_2026_08_25(client, signing_key):
    url = client.get("/.well-known/ucp").json()["ucp"]["supported_versions"]["2026-04-08"]
    response = client.get(url.removeprefix(settings.PUBLIC_BASE_URL))

    assert response.status_code == 200
    profile = valid(APRIL, APRIL.BUSINESS_PROFILE, response.json())
    valid(APRIL, APRIL.PROFILE, profile)
    base = settings.PUBLIC_BASE_URL
    assert profile["ucp"]["version"] == "2026-04-08"  # a leaf: it names no other release
    assert "supported_versions" not in profile["ucp"]
    services = profile["ucp"]["services"]["dev.ucp.shopping"]
    assert {(s["transport"], s["endpoint"]) for s in services} == {
        ("rest", f"{base}/ucp"),
        ("mcp", f"{base}/mcp"),
    }
    assert profile["ucp"]["capabilities"]["dev.ucp.shopping.catalog.lookup"] == [
        {
            "version": "2026-04-08",
            "spec": "https://ucp.dev/2026-04-08/specification/catalog/lookup",
            "schema": "https://ucp.dev/2026-04-08/schemas/shopping/catalog_lookup.json",
        }
    ]
    assert profile["ucp"]["payment_handlers"] == {}
    assert profile["signing_keys"] == client.get("/.well-known/jwks.json").json()["keys"]
    assert "keys" not in profile
    again = client.get(url, headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304


def test_without_a_signing_key_the_profiles_publish_no_key(client, no_signing_key):
    current = client.get("/.well-known/ucp").json()
    earlier = client.get("/.well-known/ucp/2026-04-08").json()

    valid(AUGUST, AUGUST.BUSINESS_PROFILE, current)
    valid(APRIL, APRIL.BUSINESS_PROFILE, earlier)
    assert (current["keys"], earlier["signing_keys"]) == ([], [])


# --- Answers -----------------------------------------------------------------------------------


@pytest.mark.parametrize("version", list(RELEASES))
def test_a_platform_is_answered_in_the_release_its_profile_declares(
    client, shelf, engine, platforms, version
):
    release = RELEASES[version]
    url = platforms.platform(version)
    engine.answer("running shoes", **SHOES)
    asked: dict[str, Any] = {"query": "running shoes", "pagination": {"limit": 2}}

    first = answered(client, "/ucp/catalog/search", asked, url)
    cursor = first["pagination"]["cursor"]
    following = {**asked, "pagination": {"limit": 2, "cursor": cursor}}
    second = answered(client, "/ucp/catalog/search", following, url)
    ids = [product["id"] for product in first["products"]]
    looked_up = answered(client, "/ucp/catalog/lookup", {"ids": [*ids, "9999"]}, url)
    detail = answered(client, "/ucp/catalog/product", {"id": ids[0]}, url)
    missing = answered(client, "/ucp/catalog/product", {"id": "4242"}, url)
    forged = {**asked, "pagination": {"cursor": "not-a-cursor"}}
    refused = answered(client, "/ucp/catalog/search", forged, url, status=400)

    for answer in (first, second):
        stated(valid(release, release.SEARCH_RESPONSE, answer), version)
    stated(valid(release, release.LOOKUP_RESPONSE, looked_up), version)
    stated(valid(release, release.PRODUCT_RESPONSE, detail), version)
    for error in (missing, refused):
        stated(valid(release, release.ERROR_RESPONSE, error), version)
    assert [product["id"] for product in looked_up["products"]] == ids
    assert detail["product"]["id"] == ids[0]
    assert missing["messages"][0]["code"] == "not_found"
    assert refused["messages"][0]["code"] == "invalid_cursor"
    assert platforms.fetches(url) == 1  # remembered for as long as its Cache-Control lets


def test_a_platform_of_2026_04_08_reads_what_a_client_without_the_header_reads(
    client, shelf, platforms
):
    url = platforms.platform("2026-04-08")

    declared = answered(client, "/ucp/catalog/lookup", {"ids": ["2001", "0"]}, url)
    undeclared = post(client, "/ucp/catalog/lookup", {"ids": ["2001", "0"]}).json()

    assert declared["ucp"] == undeclared["ucp"]
    assert declared["messages"] == undeclared["messages"]
    assert declared["ucp"]["version"] == "2026-04-08"


@pytest.mark.parametrize("header", ["", "  "])
def test_an_empty_ucp_agent_header_names_no_platform(client, shelf, header):
    # An RFC 8941 dictionary of no member: answered as a request without the header.
    response = post(client, "/ucp/catalog/lookup", {"ids": ["2001"]}, **{"UCP-Agent": header})

    assert response.status_code == 200
    assert response.json()["ucp"]["version"] == "2026-04-08"


def test_a_release_the_gateway_does_not_speak_is_version_unsupported(
    client, shelf, engine, platforms
):
    url = platforms.platform("2026-01-23")
    engine.answer("running shoes", **SHOES)

    refused = answered(client, "/ucp/catalog/search", {"query": "running shoes"}, url, 422)

    valid(AUGUST, AUGUST.ERROR_RESPONSE, refused)
    message = refused["messages"][0]
    assert (message["code"], message["severity"]) == ("version_unsupported", "unrecoverable")
    assert "2026-01-23" in message["content"]
    assert "2026-08-25 and 2026-04-08" in message["content"]
    assert refused["ucp"]["version"] == "2026-08-25"  # the gateway's own
    assert engine.calls == []
    assert Intent.objects.count() == 0


@pytest.mark.parametrize(
    ("served", "status", "code"),
    [
        ((404, b"{}"), 424, "profile_unreachable"),
        ((302, b""), 424, "profile_unreachable"),  # a redirect is never followed
        ((200, b"<html>a profile</html>"), 422, "profile_malformed"),
        ((200, b'{"ucp": {"version": "latest"}}'), 422, "profile_malformed"),
        ((200, b'["2026-08-25"]'), 422, "profile_malformed"),
        ((200, b'{"ucp": {"version": "2026-08-25"}, "x": "' + b"y" * 300_000 + b'"}'), 424, None),
    ],
)
def test_a_profile_the_gateway_cannot_use_is_refused_before_anything_is_recorded(
    client, shelf, platforms, served, status, code
):
    url = platforms.serve(served[1], served[0], {"Location": "http://127.0.0.1:9/"})

    refused = answered(client, "/ucp/catalog/lookup", {"ids": ["2001"]}, url, status)

    valid(AUGUST, AUGUST.ERROR_RESPONSE, refused)
    assert refused["messages"][0]["code"] == (code or "profile_unreachable")
    assert platforms.fetches(url) == 1
    # Remembered for a while: the platform does not make the gateway fetch on every request.
    answered(client, "/ucp/catalog/lookup", {"ids": ["2001"]}, url, status)
    assert platforms.fetches(url) == 1


@pytest.mark.parametrize(
    "header",
    [
        "profile=https://platform.example/profile.json",  # a token, not a string
        'agent="https://platform.example/profile.json"',
        'profile="ftp://platform.example/profile.json"',
        'profile="https://"',
        'profile="https://platform.invalid/profile.json"',  # resolves to nothing
    ],
)
def test_a_ucp_agent_header_that_names_no_usable_profile_is_invalid_profile_url(
    client, shelf, header, monkeypatch
):
    def getaddrinfo(host, *args, **kwargs):  # the lookup answered here: no name resolves
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    response = post(client, "/ucp/catalog/lookup", {"ids": ["2001"]}, **{"UCP-Agent": header})

    assert response.status_code == 400
    refused = valid(AUGUST, AUGUST.ERROR_RESPONSE, response.json())
    assert refused["messages"][0]["code"] == "invalid_profile_url"


def test_a_profile_at_a_private_address_is_never_fetched(client, shelf, platforms, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    url = platforms.platform("2026-08-25")

    refused = answered(client, "/ucp/catalog/lookup", {"ids": ["2001"]}, url, 400)

    assert refused["messages"][0]["code"] == "invalid_profile_url"
    assert platforms.fetches(url) == 0


@pytest.mark.parametrize("cache_control", ["no-store", "no-cache", "max-age=0"])
def test_a_profile_served_not_to_be_kept_is_still_kept_a_minute(
    client, shelf, platforms, cache_control
):
    # Else a platform could make the gateway fetch its profile on every request.
    url = platforms.platform("2026-08-25", {"Cache-Control": cache_control})

    for _ in range(3):
        stated(answered(client, "/ucp/catalog/lookup", {"ids": ["2001"]}, url), "2026-08-25")

    assert platforms.fetches(url) == 1
