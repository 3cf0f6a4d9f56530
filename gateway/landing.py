"""The gateway's front door at `/`: a page for people who open it in a browser (what this is and
where everything is), and for every other client (curl, an agent, a health probe) a small JSON
index of the same entry points, so that asking "is it up?" of `/` gets an answer."""

import functools
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from kernel.error_pages import prefers_page
from kernel.handlers import handler404

# The guides in the order a newcomer reads them; any other guide of docs/ follows.
GUIDE_ORDER = ["api", "agents", "engine", "protocol", "merchants", "attribution", "catalog"]


# The entry points of the JSON index: (name, path under PUBLIC_BASE_URL, what it is).
ENTRY_POINTS = [
    ("openapi", "/openapi.json", "the OpenAPI contract of the REST API"),
    ("api_reference", "/docs/", "the contract in Swagger UI"),
    ("recommend", "/v1/recommend", "products for a shopper's words: GET ?intent=..."),
    ("protocol", "/docs/INTENT_MATCHING_PROTOCOL.md", "the intent-matching protocol"),
    ("agent_card", "/.well-known/agent-card.json", "the A2A agent card"),
    ("a2a", "/a2a/jsonrpc", "A2A over JSON-RPC"),
    ("mcp", "/mcp", "the MCP server (streamable HTTP)"),
    ("ucp", "/.well-known/ucp", "the UCP business profile"),
    ("guides", "/docs/api.md", "the API guide, which links the others"),
    ("healthz", "/healthz", "liveness"),
    ("readyz", "/readyz", "readiness: database, cache, broker"),
]


def landing(request: HttpRequest) -> HttpResponse:
    if request.method not in ("GET", "HEAD"):
        return handler404(request)  # as the guides: `/` is read, never written to
    if not prefers_page(request):  # the JSON index, as error pages choose (kernel/error_pages.py)
        response: HttpResponse = JsonResponse(index())
        response["Vary"] = "Accept"
        return response
    response = render(
        request,
        "gateway/landing.html",
        {
            "base": settings.PUBLIC_BASE_URL,
            "engine": settings.INTENT_ENGINE_MODEL,
            "guides": guides(),
        },
    )
    response["Vary"] = "Accept"
    return response


def index() -> dict[str, object]:
    """What `/` tells a client that does not ask for HTML: the entry points, as absolute URLs."""
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    return {
        "name": "Product Recommendation and Intent-Matching Gateway",
        "engine": settings.INTENT_ENGINE_MODEL or None,
        "entry_points": [
            {"name": name, "url": f"{base}{path}", "description": description}
            for name, path, description in ENTRY_POINTS
        ],
    }


@functools.cache
def guides() -> list[tuple[str, str]]:
    """(file name, title) of every guide of docs/, the title read off its first heading."""
    found = {}
    for path in Path(settings.BASE_DIR, "docs").glob("*.md"):
        first = path.read_text().split("\n", 1)[0]
        found[path.name] = first.lstrip("# ").strip() or path.stem
    rank = {f"{name}.md": n for n, name in enumerate(GUIDE_ORDER)}
    return sorted(found.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))


# The tab icon browsers ask every site for: a small mark instead of a 404 on every first visit.
FAVICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
    b'<rect width="32" height="32" rx="7" fill="#2f6fde"/>'
    b'<path d="M9 16h14M16 9v14" stroke="#fff" stroke-width="4" stroke-linecap="round"/></svg>'
)


def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(
        FAVICON, content_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"}
    )
