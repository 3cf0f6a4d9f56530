"""Documents served with an ETag: agents and platforms that poll them (the agent card, the UCP
profile) send If-None-Match and get a 304 without a body."""

import hashlib

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified


def json_with_etag(request: HttpRequest, body: bytes, *, max_age_s: int) -> HttpResponse:
    """`body` (JSON) with its ETag and a public Cache-Control, or 304 when the client holds it."""
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age_s}"}
    wanted = request.headers.get("If-None-Match", "")
    if etag in {tag.strip() for tag in wanted.split(",")} or wanted.strip() == "*":
        return HttpResponseNotModified(headers=headers)
    return HttpResponse(body, content_type="application/json", headers=headers)
