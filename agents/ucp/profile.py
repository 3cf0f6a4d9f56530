"""The Universal Commerce Protocol (UCP) as the gateway speaks it: its business profile at
/.well-known/ucp and the envelopes of its catalog answers.

The gateway is a UCP business for discovery only: the shopping service's catalog search and
lookup capabilities (`dev.ucp.shopping.catalog.search`, `.lookup`), over UCP's REST binding
(under REST_PATH) and its MCP binding (the tools `search_catalog`, `lookup_catalog` and
`get_product` of the gateway's MCP server). UCP defines an A2A binding for checkout only, which
the gateway does not offer, so the profile lists no A2A transport; its A2A agents are found
through the agent card. Checkout stays with the merchants: the profile declares no payment
handlers, and every product's `url` is the gateway's attributed buy link.

Version: UCP 2026-04-08, the stable release whose schemas tests/agents/ucp_schemas/ holds.
"""

from typing import Any

from django.conf import settings

from agents.mcp import MCP_PATH
from kernel.signing import signing_keys

VERSION = "2026-04-08"
SERVICE = "dev.ucp.shopping"
SEARCH = "dev.ucp.shopping.catalog.search"
LOOKUP = "dev.ucp.shopping.catalog.lookup"
REST_PATH = "/ucp"  # the REST binding's endpoint: {endpoint}/catalog/search, ...
SPEC = f"https://ucp.dev/{VERSION}/specification"
SCHEMAS = f"https://ucp.dev/{VERSION}/schemas"
SERVICES = f"https://ucp.dev/{VERSION}/services"
# Profiles are cached by platforms per Cache-Control; a new signing key is published for longer
# than this before it signs (as the JWK Set, kernel/wellknown.py).
PROFILE_MAX_AGE_S = 300


def profile() -> dict[str, Any]:
    """The business profile, from the settings: absolute endpoints under PUBLIC_BASE_URL."""
    base = settings.PUBLIC_BASE_URL
    service = {"version": VERSION, "spec": f"{SPEC}/overview"}
    return {
        "ucp": {
            "version": VERSION,
            "services": {
                SERVICE: [
                    {
                        **service,
                        "transport": "rest",
                        "schema": f"{SERVICES}/shopping/rest.openapi.json",
                        "endpoint": f"{base}{REST_PATH}",
                    },
                    {
                        **service,
                        "transport": "mcp",
                        "schema": f"{SERVICES}/shopping/mcp.openrpc.json",
                        "endpoint": f"{base}{MCP_PATH}",
                    },
                ]
            },
            "capabilities": {
                SEARCH: [
                    {
                        "version": VERSION,
                        "spec": f"{SPEC}/catalog/search",
                        "schema": f"{SCHEMAS}/shopping/catalog_search.json",
                    }
                ],
                LOOKUP: [
                    {
                        "version": VERSION,
                        "spec": f"{SPEC}/catalog/lookup",
                        "schema": f"{SCHEMAS}/shopping/catalog_lookup.json",
                    }
                ],
            },
            "payment_handlers": {},
        },
        "signing_keys": [key.public_jwk() for key in signing_keys()],
    }


def envelope(capability: str, *, status: str = "success") -> dict[str, Any]:
    """The `ucp` member of a catalog answer: the version and the capability that answered."""
    return {
        "version": VERSION,
        "status": status,
        "capabilities": {capability: [{"version": VERSION}]},
    }


def severity(status: int) -> str:
    """How a platform recovers from an error of this HTTP status: a 404's identifier will
    never resolve; anything else is fixed by other inputs or a later retry."""
    return "unrecoverable" if status == 404 else "recoverable"


def error_response(
    capability: str, status: int, code: str, content: str, *, path: str | None = None
) -> dict[str, Any]:
    """UCP's error response: the envelope with status `error`, and one error message."""
    message: dict[str, Any] = {
        "type": "error",
        "code": code,
        "content": content,
        "severity": severity(status),
    }
    if path:
        message["path"] = path
    return {"ucp": envelope(capability, status="error"), "messages": [message]}
