"""Documents served with validators: agents and platforms that poll them (the agent card, the UCP
profile) send If-None-Match, or for a dated document If-Modified-Since, and get a 304 without a
body.

The ETag is a digest of the bytes served, so every worker and every restart that serves the
same document gives it the same tag. A document served `dated` also carries Last-Modified: the
time the gateway first served those bytes, kept in the shared `default` cache under their ETag
(without expiry: one small entry for each document ever served), so that every worker, and the
workers after a restart, name one date for one document until it changes. A store that is down
costs the header, never the answer; one that lost the entry dates the document afresh, later
than before, which only makes a client fetch it once more.
"""

import hashlib
import logging
import time

from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.http import http_date, parse_http_date_safe

from kernel.outages import store_down

logger = logging.getLogger(__name__)

# Where the first-served dates are kept: the store every process shares (kernel/cache.py).
DATES = "default"
DATE_KEY = "conditional:first-served:{etag}"


def json_with_etag(
    request: HttpRequest, body: bytes, *, max_age_s: int, dated: bool = False
) -> HttpResponse:
    """`body` (JSON) with its ETag and a public Cache-Control, and when `dated` its
    Last-Modified; or 304 when the client holds it (RFC 9110 section 13.2.2)."""
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age_s}"}
    modified = first_served(etag) if dated else None
    if modified is not None:
        headers["Last-Modified"] = http_date(modified)
    if not_modified(request, etag, modified):
        return HttpResponseNotModified(headers=headers)
    return HttpResponse(body, content_type="application/json", headers=headers)


def not_modified(request: HttpRequest, etag: str, modified: int | None) -> bool:
    """Whether the client's copy is current: If-None-Match when sent (weak comparison, as
    RFC 9110 section 13.1.2 asks), else If-Modified-Since for a GET or HEAD of a dated
    document, ignored unless it is one valid HTTP date."""
    wanted = request.headers.get("If-None-Match")
    if wanted is not None:
        tags = {tag.strip().removeprefix("W/") for tag in wanted.split(",")}
        return etag in tags or "*" in tags
    since = request.headers.get("If-Modified-Since")
    if since is None or modified is None or request.method not in ("GET", "HEAD"):
        return False
    date = parse_http_date_safe(since)
    return date is not None and modified <= date


def first_served(etag: str) -> int | None:
    """When the document of `etag` was first served (seconds since the epoch), as the shared
    store holds it, recorded now if it holds none; None when the store cannot say."""
    store = caches[DATES]
    key = DATE_KEY.format(etag=etag.strip('"'))
    try:
        date = store.get(key)
        if date is None:
            # Atomic: the first worker's date wins. A second early, so that it is never later
            # than the Date header (RFC 9110 section 8.8.2.1), which servers stamp from a clock
            # read once a second.
            store.add(key, int(time.time()) - 1, timeout=None)
            date = store.get(key)
    except Exception as exc:
        if not isinstance(exc, OSError) and store_down(exc) != "cache":
            raise
        # The class of the error, never its text (it may spell out a host or a user).
        logger.warning("shared cache unavailable (%s): served undated", type(exc).__name__)
        return None
    return date if isinstance(date, int) else None
