"""How every error leaves the gateway: one flat object, produced here and nowhere else.

    {"error": "<code>", "message": "<sentence for a person>", "fields": {...}}

`fields` appears only on validation errors and maps each offending field to its messages. DRF's
exception handler and Django's error views (handler400 ... handler500) both answer it; what each
error says is in the error catalog, kernel/errors.py.
"""

import sys
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from rest_framework import exceptions, serializers
from rest_framework.response import Response

from kernel import outages
from kernel.error_pages import TITLES, Page, Way, negotiated
from kernel.errors import PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, ApiError
from kernel.validation import flatten, validation_error

# --- Errors ------------------------------------------------------------------------------------


def payload_too_large() -> ApiError:
    return PAYLOAD_TOO_LARGE(limit_kb=settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024)


_DRF_CODES: dict[type[exceptions.APIException], tuple[str, str | None]] = {
    exceptions.ParseError: ("invalid_body", None),
    exceptions.NotAuthenticated: ("unauthorized", "Authentication credentials were not provided."),
    exceptions.AuthenticationFailed: ("unauthorized", None),
    exceptions.PermissionDenied: ("forbidden", None),
    exceptions.NotFound: ("not found", "The requested resource does not exist."),
    exceptions.MethodNotAllowed: ("method_not_allowed", None),
    exceptions.NotAcceptable: ("not_acceptable", None),
    exceptions.UnsupportedMediaType: ("unsupported_media_type", None),
    exceptions.Throttled: ("throttled", None),
}


def error_body(
    code: str, message: str, fields: Mapping[str, list[str]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"error": code, "message": message}
    if fields:
        body["fields"] = dict(fields)
    return body


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF's exception handler: every error as the flat envelope, never a stack trace."""
    # Imported here: rest_framework.views reads the renderer setting, which names this module.
    from rest_framework.views import set_rollback

    if isinstance(exc, RequestDataTooBig):
        exc = payload_too_large()
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None  # a bug: Django's handler500 answers with the envelope and logs it

    headers: dict[str, str] = {}
    if isinstance(exc, ApiError):
        body = error_body(exc.code, exc.message, exc.fields)
        headers.update(exc.headers)
    elif isinstance(exc, serializers.ValidationError):
        api_error = validation_error(exc, source="body")
        body = error_body(api_error.code, api_error.message, api_error.fields)
    else:
        code, message = next(
            (value for kind, value in _DRF_CODES.items() if isinstance(exc, kind)),
            ("error", None),
        )
        body = error_body(code, message or " ".join(flatten(exc.detail)))
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    wait = getattr(exc, "wait", None)
    if wait is not None:
        headers["Retry-After"] = str(max(1, int(wait + 0.999)))
    set_rollback()
    return Response(body, status=exc.status_code, headers=headers)


# Django-level handlers, for errors raised outside DRF views (unknown paths, bad hosts, bugs,
# a form without its CSRF token): the envelope for programs, a page for browsers
# (kernel/error_pages.py).


def _error(
    request: HttpRequest,
    status: int,
    code: str,
    message: str,
    page: Page | None = None,
) -> HttpResponse:
    return negotiated(request, status, error_body(code, message), page)


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        error = payload_too_large()
        return _error(request, error.status_code, error.code, error.message)
    return _error(request, 400, "bad_request", "The request could not be understood.")


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    page = Page(
        TITLES[403],
        [
            "Your account does not have the permission this page needs.",
            "An administrator can grant it in the staff console (Users, or Groups).",
        ],
    )
    return _error(
        request, 403, "forbidden", "You do not have permission to perform this action.", page
    )


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    page = Page(
        TITLES[404],
        [
            # Not the path itself: a crafted link would put its words on the gateway's page.
            "The gateway has no page at this address.",
            "A link that led here may be out of date; a typed address may have a typo.",
        ],
    )
    return _error(request, 404, "not found", "The requested resource does not exist.", page)


def handler500(request: HttpRequest) -> HttpResponse:
    """A bug, or a store that did not answer (kernel/outages.py): Django calls this while it
    handles the error, so the error is at hand."""
    exc = sys.exc_info()[1]
    store = outages.store_down(exc)
    if exc is None or store is None:
        page = Page(
            TITLES[500],
            ["The gateway failed to answer; the error has been logged.", "Try again shortly."],
        )
        return _error(
            request,
            500,
            "internal_error",
            "The gateway failed to answer; it has been logged.",
            page,
        )
    outages.counted(store, exc)
    error = SERVICE_UNAVAILABLE(store=store)
    page = Page(
        TITLES[503],
        [
            f"The gateway's {store} did not answer, so this page could not be made.",
            f"Try again in {outages.RETRY_AFTER_S} seconds.",
        ],
    )
    return negotiated(
        request,
        error.status_code,
        error_body(error.code, error.message),
        page,
        headers={"Retry-After": str(outages.RETRY_AFTER_S)},
    )


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Django's CSRF_FAILURE_VIEW: a form sent without the token of the page it came from (the
    page was open across a restart or a sign-in elsewhere, or the browser refused the cookie)."""
    page = Page(
        "This form has expired",
        [
            "The form was sent without the security token of the page it came from: the page "
            "may have been open for a long time, you may have signed in or out in another tab, "
            "or your browser refused this site's cookies.",
            "Open the page again and send the form once more; if it happens again, allow "
            "cookies for this site.",
            f"The check said: {reason.rstrip('.')}." if reason else "",
        ],
        [Way("Open the page again", request.get_full_path())],
    )
    return _error(
        request,
        403,
        "forbidden",
        "CSRF verification failed: send the csrftoken cookie's value in X-CSRFToken "
        "(or the form's csrfmiddlewaretoken).",
        page,
    )
