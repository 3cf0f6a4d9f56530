"""Request correlation: every request carries an id, echoed in the `X-Request-ID` header."""

import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from gateway.api import REQUEST, new_id

_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


class RequestIdMiddleware:
    """Adopt a well-formed inbound `X-Request-ID`, or mint one, and echo it on the response."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        inbound = request.headers.get("X-Request-ID", "")
        request.request_id = inbound if _CLIENT_ID.fullmatch(inbound) else new_id(REQUEST)  # type: ignore[attr-defined]
        response = self.get_response(request)
        response["X-Request-ID"] = request.request_id  # type: ignore[attr-defined]
        return response
