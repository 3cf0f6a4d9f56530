"""Errors for people: the page a browser shows when the gateway cannot answer what it asked,
chosen by content negotiation. Programs keep the flat JSON envelope (kernel/handlers.py).

A request prefers the page when its Accept header rates `text/html` above `application/json`, as
every browser's does for a page it navigates to; `*/*`, no Accept header at all and
`application/json` get the envelope, so scripts and agents see what they always saw. Both
answers carry the same status and `Vary: Accept`.

A page says what happened in words, keeps the error's code in small print for a support ticket,
and offers a way forward: the area of the gateway the visitor was in (the staff console, the
supply reports, the guides) and its home. Staff who meet an error inside the staff console see
it in the console's own frame, its navigation intact.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

# The page's heading for each status the gateway answers a visitor with.
TITLES = {
    400: "This request could not be understood",
    403: "You may not open this page",
    404: "There is nothing here",
    405: "This page cannot be used that way",
    406: "This page has no version your browser accepts",
    413: "What you sent is too large",
    429: "Too many requests",
    500: "Something went wrong on our side",
    503: "The gateway is briefly unavailable",
}


@dataclass(frozen=True)
class Way:
    """A link forward from an error page."""

    label: str
    href: str


@dataclass(frozen=True)
class Page:
    """What an error page says: a heading, sentences for a person, and the ways forward (the
    visitor's area of the gateway and its home are added after them, except on a page for
    shoppers, who have no use for the gateway's own pages)."""

    title: str
    lines: Sequence[str] = ()
    ways: Sequence[Way] = field(default_factory=tuple)
    for_shoppers: bool = False


def prefers_page(request: HttpRequest) -> bool:
    """Whether the client asked for a page rather than JSON (a browser navigating)."""
    try:
        chosen = request.get_preferred_type(["application/json", "text/html"])
    except ValueError:  # an Accept range Django cannot read: answered as a program is
        return False
    return chosen == "text/html"


def negotiated(
    request: HttpRequest,
    status: int,
    body: Mapping[str, object],
    page: Page | None = None,
    *,
    headers: Mapping[str, str] | None = None,
) -> HttpResponse:
    """The error as a page for a browser and as the envelope `body` for every other client."""
    if prefers_page(request):
        response = page_response(request, status, str(body.get("error", "")), page, body)
    else:
        response = JsonResponse(dict(body), status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    response["Vary"] = "Accept"
    return response


def page_response(
    request: HttpRequest,
    status: int,
    code: str,
    page: Page | None,
    body: Mapping[str, object] | None = None,
) -> HttpResponse:
    """The HTML page of an error. Rendered without context processors, so it renders while the
    database is down (the 503 of an outage); inside the staff console, for signed-in staff, in
    the console's frame."""
    page = page or Page(
        TITLES.get(status, "This request could not be answered"),
        [str((body or {}).get("message", ""))],
    )
    context = {
        "status": status,
        "code": code,
        "title": page.title,
        "lines": [line for line in page.lines if line],
        "ways": [*page.ways, *([] if page.for_shoppers else _area_ways(request))],
        "for_shoppers": page.for_shoppers,
    }
    if _in_console(request, status):
        context |= admin.site.each_context(request)
        html = render_to_string("admin/error.html", context, request=request)
    else:
        html = render_to_string("gateway/error.html", context)
    return HttpResponse(html, status=status, content_type="text/html; charset=utf-8")


def _in_console(request: HttpRequest, status: int) -> bool:
    """Whether the page is shown in the staff console's frame. Never for a 5xx: the frame reads
    the signed-in user from the database, which may be what failed."""
    user = getattr(request, "user", None)  # set by the middleware, absent on early errors
    return bool(
        status < 500
        and request.path.startswith("/admin/")
        and user is not None
        and user.is_active
        and user.is_staff
    )


def _area_ways(request: HttpRequest) -> list[Way]:
    """The visitor's area of the gateway, then the home page."""
    path = request.path
    if path.startswith("/admin/"):
        ways = [Way("Staff console home", "/admin/")]
    elif path.startswith("/reports/"):
        ways = [Way("Supply reports", "/reports/"), Way("Staff console", "/admin/")]
    elif path.startswith("/docs/"):
        ways = [Way("The guides", "/docs/api.md"), Way("API reference", "/docs/")]
    else:
        ways = [Way("API reference", "/docs/"), Way("The guides", "/docs/api.md")]
    return [*ways, Way("The gateway's home page", "/")]
