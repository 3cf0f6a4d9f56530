"""Documents the gateway serves as they are written in `docs/`: the intent-matching protocol and
the guides, as Markdown to agents and tools, as HTML pages to browsers (the same text, rendered;
`Vary: Accept`).

Each document route negotiates its type (`document_type`): the page to an Accept header that
prefers HTML, as a browser's does, and Markdown, the document's own form, to every other one,
including headers that name neither (`application/json`, `text/plain`): RFC 9110 lets a server
send its default representation rather than refuse. A 406 in the error envelope answers only a
header that refuses both with `q=0` (`*/*;q=0`)."""

import contextlib
import functools
import re
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.request import MediaType
from django.template.loader import render_to_string
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from markdown_it import MarkdownIt
from markdown_it.token import Token
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from kernel.contract import errors
from kernel.errors import NOT_ACCEPTABLE
from kernel.handlers import error_body

PROTOCOL_DOCUMENT = "INTENT_MATCHING_PROTOCOL.md"
MARKDOWN, HTML = "text/markdown", "text/html"
# The types a document is served as, the first the one a client that prefers neither gets.
DOCUMENT_TYPES = [MARKDOWN, HTML]
# Browsers ask for the page by either name; it is served as text/html.
XHTML = "application/xhtml+xml"
# A guide's name, as linked between the guides: docs/<name>.md is served at /docs/<name>.md.
GUIDE = re.compile(r"[A-Za-z_]{1,40}\.md")


@functools.cache
def _document(name: str) -> bytes:
    return (settings.BASE_DIR / "docs" / name).read_bytes()


def _guides() -> frozenset[str]:
    return frozenset(path.name for path in Path(settings.BASE_DIR, "docs").glob("*.md"))


@functools.cache
def rendered_document(name: str) -> str:
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = markdown.parse(_document(name).decode())
    title, slugs = name, Slugs()
    for before, token in zip([None, *tokens], tokens, strict=False):
        if before is not None and before.type == "heading_open":
            before.attrSet("id", slugs.next(token.content))  # the anchors the guides link to
            title = token.content if before.tag == "h1" and title == name else title
        unlinked = False  # links do not nest: the next link_close closes the last link_open
        for child in token.children or []:
            if child.type == "link_open":
                unlinked = _unlink_what_is_not_served(child)
            elif child.type == "link_close" and unlinked:
                child.tag = "span"
    body = markdown.renderer.render(tokens, markdown.options, {})
    return render_to_string("gateway/document.html", {"title": title, "body": body})


class Slugs:
    """GitHub's anchors of headings: lower case, punctuation dropped, spaces to hyphens, a
    repeated heading numbered."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def next(self, heading: str) -> str:
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = self.seen.get(slug, 0)
        self.seen[slug] = count + 1
        return f"{slug}-{count}" if count else slug


def _unlink_what_is_not_served(link: Token) -> bool:
    """A link to a file of the repository that the gateway does not serve (source code, the
    README) reads as its text in the browser instead of leading to a 404. Whether it did."""
    href = str(link.attrGet("href") or "")
    if re.match(r"[a-z]+:|/|#", href) or href.partition("#")[0] in _guides():
        return False
    link.tag, link.attrs = "span", {"class": "file", "title": href}
    return True


def document_type(accept: str | None) -> str | None:
    """The type a document is served as for an Accept header: HTML when the header rates it above
    Markdown, else Markdown unless the header refuses it, else HTML unless refused too; None when
    both are refused."""
    ranges = _ranges(accept or "*/*")
    markdown, html = _quality(ranges, MARKDOWN), _quality(ranges, HTML)
    page = 0.0 if html == 0 else max(html or 0.0, _quality(ranges, XHTML) or 0.0)
    if page > (markdown or 0.0):
        return HTML
    if markdown != 0:
        return MARKDOWN
    return HTML if html != 0 else None


def _ranges(accept: str) -> list[MediaType]:
    """The media ranges of an Accept header, `q=0` ones included: Django's own
    `HttpRequest.accepted_types` drops them, and with them the refusals. A range Django cannot
    read (a parameter in an unknown charset, on which it raises) names nothing."""
    ranges = []
    for token in accept.split(","):
        if token.strip():
            with contextlib.suppress(ValueError):
                ranges.append(MediaType(token))
    return ranges


def _quality(ranges: list[MediaType], media_type: str) -> float | None:
    """The quality the ranges give a type (served without parameters): that of the most specific
    range that matches it (RFC 9110, 12.5.1), 0 for a refusal, None where no range does."""
    main, _, sub = media_type.partition("/")
    matching = [
        accepted
        for accepted in ranges
        if accepted.main_type in (main, "*")
        and accepted.sub_type in (sub, "*")
        and not accepted.range_params
    ]
    if not matching:
        return None
    return float(max(matching, key=lambda accepted: accepted.specificity).quality)


def document_response(request: HttpRequest, name: str) -> HttpResponse:
    headers = {"Cache-Control": "public, max-age=300", "Vary": "Accept"}
    chosen = document_type(request.headers.get("Accept"))
    if chosen is None:
        error = NOT_ACCEPTABLE(offered=" or ".join(DOCUMENT_TYPES))
        return JsonResponse(
            error_body(error.code, error.message),
            status=error.status_code,
            headers={"Vary": "Accept"},
        )
    if chosen == HTML:
        return HttpResponse(
            rendered_document(name), content_type="text/html; charset=utf-8", headers=headers
        )
    return HttpResponse(
        _document(name), content_type="text/markdown; charset=utf-8", headers=headers
    )


class DocumentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation would refuse every type but its renderers' (JSON) with a 406 before the
    view runs; the document negotiates its own types (`document_response`), and DRF's JSON
    renderer only writes the view's errors (a 405)."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        first = next(iter(renderers))
        return first, first.media_type


class ProtocolDocumentView(APIView):
    content_negotiation_class = DocumentNegotiation

    @extend_schema(
        operation_id="protocol_document",
        summary="The intent-matching protocol v0.2, for merchant and demand-agent developers",
        tags=["discovery"],
        responses={
            (200, "text/markdown"): OpenApiTypes.STR,
            (200, "text/html"): OpenApiTypes.STR,
            **errors({406: NOT_ACCEPTABLE.doc()}),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        return document_response(request, PROTOCOL_DOCUMENT)


def guide(request: HttpRequest, name: str) -> HttpResponse:
    """A guide of docs/, by the name the guides link each other with (`engine.md`)."""
    if request.method not in ("GET", "HEAD"):
        raise Http404  # the JSON 404 envelope; the guides are not part of the API
    if not GUIDE.fullmatch(name) or name not in _guides():
        raise Http404
    return document_response(request, name)
