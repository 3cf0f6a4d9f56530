"""Documents served with validators: agents and platforms that poll them (the agent card, the UCP
profile) send If-None-Match, or for a dated document If-Modified-Since, and get a 304 without a
body.

The ETag is a digest of the bytes served, so every worker and every restart that serves the
same document gives it the same tag. A document served `dated` (under a name of its own) also
carries Last-Modified: when the gateway began serving its current bytes, kept in the shared
`default` cache as one record a document (its ETag and that date), so that every worker, and the
workers after a restart, name one date for one version until it changes. A change dates it
anew, never earlier than the date before (a rollback to earlier bytes included: a client whose
If-Modified-Since names the later version must still get the earlier one). A store that is down
costs the header, never the answer; one that lost the record dates the document afresh, later
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
DATE_KEY = "conditional:dated:{document}"


def json_with_etag(
    request: HttpRequest, body: bytes, *, max_age_s: int, dated: str | None = None
) -> HttpResponse:
    """`body` (JSON) with its ETag and a public Cache-Control, and for a document `dated` (its
    name) its Last-Modified; or 304 when the client holds it (RFC 9110 section 13.2.2)."""
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age_s}"}
    modified = served_since(dated, etag) if dated else None
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


def served_since(document: str, etag: str) -> int | None:
    """Since when `document` has been served as the bytes of `etag` (seconds since the epoch),
    as the shared store holds it, recorded now if it holds another version or none; None when
    the store cannot say."""
    store = caches[DATES]
    key = DATE_KEY.format(document=document)
    try:
        record = store.get(key)
        if isinstance(record, tuple) and record[0] == etag:
            return int(record[1])
        # A second early, so that it is never later than the Date header (RFC 9110 section
        # 8.8.2.1), which servers stamp from a clock read once a second; after the last date.
        date = int(time.time()) - 1
        if isinstance(record, tuple):
            date = max(date, int(record[1]) + 1)
        store.set(key, (etag, date), timeout=None)
    except Exception as exc:
        if not isinstance(exc, OSError) and store_down(exc) != "cache":
            raise
        # The class of the error, never its text (it may spell out a host or a user).
        logger.warning("shared cache unavailable (%s): served undated", type(exc).__name__)
        return None
    return date
