"""The gateway's front door at `/`: a page for people who open it in a browser (what this is and
where everything is), the JSON 404 envelope for API clients, which have nothing to read there."""

import functools
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from kernel.handlers import handler404

# The guides in the order a newcomer reads them; any other guide of docs/ follows.
GUIDE_ORDER = ["api", "agents", "engine", "protocol", "merchants", "attribution", "catalog"]


def landing(request: HttpRequest) -> HttpResponse:
    if request.get_preferred_type(["application/json", "text/html"]) != "text/html":
        return handler404(request)
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
