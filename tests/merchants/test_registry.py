"""The merchant registry: registration, takeover protection, lookup, update, token rotation."""

import hashlib
import socket

import pytest

from merchants.endpoints import NOT_PUBLIC, endpoint_problem
from merchants.models import MerchantAgent
from tests.protocol import PUBLIC_ENDPOINT, endpoint_of, get, patch, post, register

pytestmark = pytest.mark.django_db


def test_registration_returns_secrets_once_and_stores_only_the_token_hash(client):
    response = post(
        client,
        "/v1/merchant/register",
        {
            "merchant_id": "shop-1",
            "agent_endpoint": PUBLIC_ENDPOINT,
            "subscription_tags": ["Running", " shoes ", "running"],
            "capabilities": ["stock_check"],
            "regions": ["us", "GB"],
            "category_tags": ["Footwear"],
            "inventory_scope": [{"sku_prefix": "TF-"}],
            "protocol_version": "0.2",
            "a2a_capabilities": {"streaming": False},
            "metadata": {"tier": "gold"},
        },
    )

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "active"
    assert body["created"] is True
    assert body["merchant_id"] == "shop-1"
    assert body["registration_token"].startswith("mrt_")
    assert body["webhook_secret"].startswith("whsec_")
    merchant = body["merchant"]
    assert merchant["subscription_tags"] == ["running", "shoes"]
    assert merchant["regions"] == ["US", "GB"]
    assert merchant["category_tags"] == ["footwear"]
    assert merchant["inventory_scope"] == [{"sku_prefix": "TF-"}]
    assert merchant["a2a_capabilities"] == {"streaming": False}
    assert merchant["metadata"] == {"tier": "gold"}
    assert merchant["deactivated_at"] is None
    assert "token" not in str(merchant)
    assert "secret" not in str(merchant)
    stored = MerchantAgent.objects.get(merchant_id="shop-1")
    assert stored.token_hash == hashlib.sha256(body["registration_token"].encode()).hexdigest()
    assert body["registration_token"] not in str(
        MerchantAgent.objects.filter(pk=stored.pk).values().get()
    )


def test_lookup_never_shows_a_secret(client):
    shop = register(client, "shop-1")

    response = client.get("/v1/merchant/shop-1")

    assert response.status_code == 200
    assert response.json()["status"] == "active"
    assert response.json()["merchant"]["merchant_id"] == "shop-1"
    assert shop.token not in response.content.decode()
    assert shop.webhook_secret not in response.content.decode()


@pytest.mark.parametrize("merchant_id", ["nobody", "a%00b", "x" * 65])
def test_unknown_merchant_is_404(client, merchant_id):
    response = client.get(f"/v1/merchant/{merchant_id}")

    assert response.status_code == 404
    assert response.json()["error"] == "merchant_not_found"


def test_registration_without_merchant_id_or_endpoint_is_missing_fields(client):
    response = post(client, "/v1/merchant/register", {"subscription_tags": ["x"]})

    assert response.status_code == 400
    assert response.json()["error"] == "missing_fields"
    assert set(response.json()["fields"]) == {"merchant_id", "agent_endpoint"}


@pytest.mark.parametrize(
    "merchant_id",
    ["has space", "", "x" * 65, "ünïcode", "register", "Heartbeat", "catalog", 42, " shop-1"],
)
def test_malformed_merchant_id_is_refused(client, merchant_id):
    body = {"merchant_id": merchant_id, "agent_endpoint": PUBLIC_ENDPOINT}

    response = post(client, "/v1/merchant/register", body)

    assert response.status_code == 400
    assert "merchant_id" in response.json()["fields"]
    assert not MerchantAgent.objects.exists()


@pytest.mark.parametrize(
    ("endpoint", "problem"),
    [
        ("http://93.184.216.34/agent", "must be an https URL"),
        ("ftp://93.184.216.34/agent", "must be an https URL"),
        ("https://user:pw@93.184.216.34/agent", "must not carry credentials"),
        ("https://127.0.0.1/agent", NOT_PUBLIC),
        ("https://localhost/agent", NOT_PUBLIC),
        ("https://10.0.0.7/agent", NOT_PUBLIC),
        ("https://169.254.169.254/latest", NOT_PUBLIC),
        ("https://[::1]/agent", NOT_PUBLIC),
        ("https://[::ffff:127.0.0.1]/agent", NOT_PUBLIC),
        ("https://0.0.0.0/agent", NOT_PUBLIC),
        ("https://[fec0::1]/agent", NOT_PUBLIC),  # site-local
        ("https://100.64.0.1/agent", NOT_PUBLIC),  # carrier NAT
        # IPv6 forms that carry an IPv4 address, whichever address they carry.
        ("https://[::127.0.0.1]/agent", NOT_PUBLIC),  # IPv4-compatible
        ("https://[::93.184.216.34]/agent", NOT_PUBLIC),
        ("https://[::ffff:93.184.216.34]/agent", NOT_PUBLIC),  # mapped
        ("https://[::ffff:0:7f00:1]/agent", NOT_PUBLIC),  # translated
        ("https://[64:ff9b::7f00:1]/agent", NOT_PUBLIC),  # NAT64
        ("https://[64:ff9b:1::7f00:1]/agent", NOT_PUBLIC),  # NAT64, local use
        ("https://[2002:7f00:1::]/agent", NOT_PUBLIC),  # 6to4
        ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/agent", NOT_PUBLIC),  # Teredo
        ("https://[fc00::1]/agent", NOT_PUBLIC),  # unique local
        ("https://[fe80::1]/agent", NOT_PUBLIC),  # link-local
        ("https://[2001:db8::1]/agent", NOT_PUBLIC),  # documentation
        # Not resolving, or another port, reads the same: registration probes nothing.
        ("https://merchant.invalid/agent", NOT_PUBLIC),
        ("https://93.184.216.34:22/agent", NOT_PUBLIC),
        ("https://93.184.216.34:6379/agent", NOT_PUBLIC),
        ("https:///agent", "must name a host"),
        ("https://93.184.216.34:99999/agent", "is not a valid URL"),
    ],
)
def test_unsafe_endpoints_are_refused(client, endpoint, problem):
    response = post(
        client, "/v1/merchant/register", {"merchant_id": "m", "agent_endpoint": endpoint}
    )

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_body"
    assert response.json()["fields"] == {"agent_endpoint": [f"The endpoint {problem}."]}
    assert not MerchantAgent.objects.exists()


def test_public_ipv6_endpoints_and_the_allowed_ports_are_accepted(client, settings):
    settings.WEBHOOK_ALLOWED_PORTS = frozenset({443, 8443})

    for n, endpoint in enumerate(
        [
            "https://[2606:2800:220:1:248:1893:25c8:1946]/agent",
            "https://93.184.216.34:443/agent",
            "https://93.184.216.34:8443/agent",
        ]
    ):
        register(client, f"shop-{n}", agent_endpoint=endpoint)

    assert MerchantAgent.objects.count() == 3


def test_the_endpoint_check_looks_up_names_and_connects_nowhere(settings, monkeypatch):
    """The address rules judge what a name resolves to, without a connection: the lookup is
    answered here."""
    looked_up = []

    def getaddrinfo(host, port, *args, **kwargs):
        looked_up.append((host, port))
        address = {"shop.example": "93.184.216.34", "evil.example": "64:ff9b::a00:7"}[host]
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    assert endpoint_problem("https://shop.example/agent") is None
    assert endpoint_problem("https://evil.example/agent") == NOT_PUBLIC
    assert looked_up == [("shop.example", 443), ("evil.example", 443)]


def test_loopback_http_endpoints_are_allowed_only_by_the_development_switches(client, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = True

    shop = register(client, "local", agent_endpoint="http://127.0.0.1:9999/hook")

    assert MerchantAgent.objects.get(merchant_id=shop.merchant_id).agent_endpoint.startswith(
        "http://127"
    )


def test_reregistration_without_the_token_changes_nothing(client):
    shop = register(client, "shop-1", subscription_tags=["running"])
    takeover = {"merchant_id": "shop-1", "agent_endpoint": "https://93.184.216.35/evil"}

    missing = post(client, "/v1/merchant/register", takeover)
    wrong = post(client, "/v1/merchant/register", takeover, token="mrt_guess")

    assert (missing.status_code, missing.json()["error"]) == (401, "missing registration token")
    assert (wrong.status_code, wrong.json()["error"]) == (403, "invalid registration token")
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    assert merchant.agent_endpoint == endpoint_of("shop-1")
    assert merchant.subscription_tags == ["running"]
    assert (
        post(
            client, "/v1/merchant/heartbeat", {"merchant_id": "shop-1"}, token=shop.token
        ).status_code
        == 200
    )


def test_reregistration_with_the_token_updates_and_echoes_it(client):
    shop = register(client, "shop-1", subscription_tags=["running"])
    body = {
        "merchant_id": "shop-1",
        "agent_endpoint": "https://93.184.216.35/v2",
        "regions": ["DE"],
    }

    response = post(client, "/v1/merchant/register", body, token=shop.token)

    assert response.status_code == 200
    data = response.json()
    assert data["created"] is False
    assert data["registration_token"] == shop.token
    assert "webhook_secret" not in data
    assert data["merchant"]["agent_endpoint"] == "https://93.184.216.35/v2"
    assert data["merchant"]["regions"] == ["DE"]
    assert data["merchant"]["subscription_tags"] == ["running"]


def test_reregistration_with_the_token_reactivates(client):
    shop = register(client, "shop-1")
    post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token)

    body = {"merchant_id": "shop-1", "agent_endpoint": PUBLIC_ENDPOINT}
    response = post(client, "/v1/merchant/register", body, token=shop.token)

    assert response.json()["status"] == "active"
    assert response.json()["merchant"]["deactivated_at"] is None


def test_a_token_header_on_a_new_registration_is_ignored(client):
    response = post(
        client,
        "/v1/merchant/register",
        {"merchant_id": "fresh", "agent_endpoint": PUBLIC_ENDPOINT},
        token="mrt_leftover",
    )

    assert response.status_code == 200
    assert response.json()["created"] is True


def test_heartbeat_updates_last_seen(client):
    shop = register(client, "shop-1")
    before = MerchantAgent.objects.get().last_seen_at

    response = post(client, "/v1/merchant/heartbeat", {"merchant_id": "shop-1"}, token=shop.token)

    assert response.status_code == 200
    assert response.json()["merchant"]["merchant_id"] == "shop-1"
    assert before is not None
    assert MerchantAgent.objects.get().last_seen_at > before  # type: ignore[operator]


def test_heartbeat_without_merchant_id_is_missing_fields(client):
    shop = register(client, "shop-1")

    response = post(client, "/v1/merchant/heartbeat", {}, token=shop.token)

    assert (response.status_code, response.json()["error"]) == (400, "missing_fields")


def test_patch_updates_only_what_it_names(client):
    shop = register(client, "shop-1", subscription_tags=["running"], capabilities=["price_quote"])

    response = patch(
        client, "/v1/merchant/shop-1", {"subscription_tags": ["Trail", "*"]}, shop.token
    )

    assert response.status_code == 200
    merchant = response.json()["merchant"]
    assert merchant["subscription_tags"] == ["trail", "*"]
    assert merchant["capabilities"] == ["price_quote"]


def test_patch_refuses_an_unsafe_endpoint(client):
    shop = register(client, "shop-1")

    response = patch(
        client, "/v1/merchant/shop-1", {"agent_endpoint": "https://10.1.1.1/x"}, shop.token
    )

    assert response.status_code == 400
    assert MerchantAgent.objects.get().agent_endpoint == endpoint_of("shop-1")


def test_rotation_issues_a_new_token_and_the_old_one_stops_working(client):
    shop = register(client, "shop-1")

    response = post(client, "/v1/merchant/shop-1/rotate-token", None, token=shop.token)

    assert response.status_code == 200
    new_token = response.json()["registration_token"]
    assert new_token.startswith("mrt_")
    assert new_token != shop.token
    heartbeat = {"merchant_id": "shop-1"}
    assert post(client, "/v1/merchant/heartbeat", heartbeat, token=shop.token).status_code == 403
    assert post(client, "/v1/merchant/heartbeat", heartbeat, token=new_token).status_code == 200


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://93.184.216.34/agent#caf\u00e9",  # not ASCII: percent-encode it
        "https://93.184.216.34/a b",
        "https://93.184.216.34/agent\x1a",
        "https://93.184.216.34/%zz",
        # Padded: checked as sent, as the contract's pattern, never trimmed into shape.
        " https://93.184.216.34/agent",
        "https://93.184.216.34/agent\x1e",
    ],
)
def test_endpoints_outside_uri_syntax_are_refused(client, endpoint):
    """The contract describes stored endpoints as URIs (RFC 3986) and registration by a
    pattern of https URLs: anything else is refused, never stored and echoed."""
    response = post(
        client, "/v1/merchant/register", {"merchant_id": "m", "agent_endpoint": endpoint}
    )

    assert response.status_code == 400
    assert response.json()["fields"] == {"agent_endpoint": ["The endpoint is not a valid URL."]}
    assert not MerchantAgent.objects.exists()


def test_the_contract_states_the_shape_of_an_endpoint(client):
    import re

    schema = client.get("/openapi.json").json()["components"]["schemas"]
    pattern = re.compile(schema["RegisterRequest"]["properties"]["agent_endpoint"]["pattern"])

    assert pattern.search(PUBLIC_ENDPOINT)
    assert pattern.search("https://agent.acme-running.example:8443/a2a?v=1#top")
    assert not pattern.search("http://93.184.216.34/agent")
    assert not pattern.search("https://93.184.216.34:99999/agent")
    assert not pattern.search("https://93.184.216.34/caf\u00e9")
    assert schema["PatchedMerchantPatchRequest"]["properties"]["agent_endpoint"]["pattern"] == (
        pattern.pattern
    )


@pytest.mark.parametrize("merchant_id", [".", ".."])
def test_path_names_are_not_merchant_ids(client, merchant_id):
    body = {"merchant_id": merchant_id, "agent_endpoint": PUBLIC_ENDPOINT}

    response = post(client, "/v1/merchant/register", body)

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["merchant_id"]
    assert not MerchantAgent.objects.exists()


def test_ids_differing_only_in_case_are_one_merchant(client):
    shop = register(client, "shop-1")
    body = {"merchant_id": "SHOP-1", "agent_endpoint": endpoint_of("shop-1")}

    without = post(client, "/v1/merchant/register", body)
    with_token = post(client, "/v1/merchant/register", body, token=shop.token)
    looked_up = get(client, "/v1/merchant/Shop-1")

    assert (without.status_code, without.json()["error"]) == (401, "missing registration token")
    assert (with_token.status_code, with_token.json()["created"]) == (200, False)
    assert looked_up.json()["merchant"]["merchant_id"] == "shop-1"
    assert MerchantAgent.objects.count() == 1
