"""The Universal Commerce Protocol (UCP) as the gateway speaks it: its business profiles and the
envelopes of its catalog answers, in each release it speaks.

The gateway is a UCP business for discovery only: the shopping service's catalog search and
lookup capabilities (`dev.ucp.shopping.catalog.search`, `.lookup`), over UCP's REST binding
(under REST_PATH) and its MCP binding (the tools `search_catalog`, `lookup_catalog` and
`get_product` of the gateway's MCP server). UCP defines an A2A binding for checkout only, which
the gateway does not offer, so the profile lists no A2A transport; its A2A agents are found
through the agent card. Checkout stays with the merchants: every product's `url` is the
gateway's attributed buy link, and the profile's payment handler registry is empty, as UCP asks
of a business that takes no payments (the registry must be there, even when empty).

Releases: 2026-08-25, the current one, whose profile is at /.well-known/ucp and publishes the
signing keys as `keys`; and 2026-04-08, listed in its `supported_versions` with a profile of its
own (PROFILE_PATHS), which publishes them as `signing_keys`. A platform picks one (a profile),
and declares it in its own profile's `ucp.version` (agents/ucp/platforms.py). The answers of
the two releases differ only in the versions they state: the catalog's shapes are the same.
tests/agents/ucp_schemas/ holds both releases' schemas.
"""

from typing import Any

from django.conf import settings

from agents.mcp import MCP_PATH
from kernel.signing import signing_keys

CURRENT = "2026-08-25"
EARLIER = ("2026-04-08",)
RELEASES = (CURRENT, *EARLIER)
# What a request that names no platform profile is answered in: the release the gateway spoke
# before it spoke 2026-08-25, so a client written then reads the same answers.
UNDECLARED = "2026-04-08"
SERVICE = "dev.ucp.shopping"
SEARCH = "dev.ucp.shopping.catalog.search"
LOOKUP = "dev.ucp.shopping.catalog.lookup"
REST_PATH = "/ucp"  # the REST binding's endpoint: {endpoint}/catalog/search, ...
PROFILE_PATH = "/.well-known/ucp"
# Each earlier release's own profile (a leaf: it names no other release).
PROFILE_PATHS = {release: f"{PROFILE_PATH}/{release}" for release in EARLIER}
# Where each release's specification puts the capabilities' pages.
CATALOG_SPECS = {
    "2026-08-25": "specification/shopping/catalog",
    "2026-04-08": "specification/catalog",
}
# Profiles are cached by platforms per Cache-Control; a new signing key is published for longer
# than this before it signs (as the JWK Set, kernel/wellknown.py).
PROFILE_MAX_AGE_S = 300


def _capability(release: str, name: str, schema: str) -> list[dict[str, str]]:
    return [
        {
            "version": release,
            "spec": f"https://ucp.dev/{release}/{CATALOG_SPECS[release]}/{name}",
            "schema": f"https://ucp.dev/{release}/schemas/shopping/{schema}",
        }
    ]


def profile(release: str = CURRENT) -> dict[str, Any]:
    """The business profile of `release`, from the settings: absolute endpoints under
    PUBLIC_BASE_URL. The current release's names the earlier ones' profiles."""
    base = settings.PUBLIC_BASE_URL
    service = {"version": release, "spec": f"https://ucp.dev/{release}/specification/overview"}
    services = f"https://ucp.dev/{release}/services/shopping"
    ucp: dict[str, Any] = {
        "version": release,
        "services": {
            SERVICE: [
                {
                    **service,
                    "transport": "rest",
                    "schema": f"{services}/rest.openapi.json",
                    "endpoint": f"{base}{REST_PATH}",
                },
                {
                    **service,
                    "transport": "mcp",
                    "schema": f"{services}/mcp.openrpc.json",
                    "endpoint": f"{base}{MCP_PATH}",
                },
            ]
        },
        "capabilities": {
            SEARCH: _capability(release, "search", "catalog_search.json"),
            LOOKUP: _capability(release, "lookup", "catalog_lookup.json"),
        },
        "payment_handlers": {},
    }
    keys = [key.public_jwk() for key in signing_keys()]
    if release != CURRENT:
        return {"ucp": ucp, "signing_keys": keys}
    ucp["supported_versions"] = {
        earlier: f"{base}{path}" for earlier, path in PROFILE_PATHS.items()
    }
    return {"ucp": ucp, "keys": keys}


def envelope(capability: str, release: str, *, status: str = "success") -> dict[str, Any]:
    """The `ucp` member of a catalog answer: the release and the capability that answered."""
    return {
        "version": release,
        "status": status,
        "capabilities": {capability: [{"version": release}]},
    }


# Errors no retry of the same request mends: the platform's profile declares a release the
# gateway does not speak, or is no profile at all.
UNRECOVERABLE = frozenset({"version_unsupported", "profile_malformed"})


def severity(status: int, code: str) -> str:
    """How a platform recovers from an error: a 404's identifier will never resolve, nor will
    an UNRECOVERABLE error; anything else is fixed by other inputs or a later retry."""
    return "unrecoverable" if status == 404 or code in UNRECOVERABLE else "recoverable"


def error_response(
    capability: str, status: int, code: str, content: str, release: str
) -> dict[str, Any]:
    """UCP's error response: the envelope with status `error`, and one error message."""
    message = {
        "type": "error",
        "code": code,
        "content": content,
        "severity": severity(status, code),
    }
    return {"ucp": envelope(capability, release, status="error"), "messages": [message]}


def restated(answer: dict[str, Any], release: str) -> dict[str, Any]:
    """An answer of the REST binding (in UNDECLARED) as the same answer of `release`: the
    releases' catalog answers differ only in the versions their envelope states."""
    ucp = answer.get("ucp")
    if release == UNDECLARED or not isinstance(ucp, dict):
        return answer
    capabilities = {name: [{"version": release}] for name in ucp.get("capabilities", {})}
    return {**answer, "ucp": {**ucp, "version": release, "capabilities": capabilities}}
