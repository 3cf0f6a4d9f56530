"""Who may open the supply pages (/reports/): signed-in staff with the permission
`reporting.view_attribution_report` (superusers have every permission).

A browser that is not signed in goes to the staff console's sign-in, which says what the reports
need (templates/admin/login.html); a signed-in account without the permission gets a page that
names it. Programs get the JSON envelope instead of either, and are pointed at the API's report.
"""

import functools
from collections.abc import Callable

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.cache import patch_vary_headers

from kernel.error_pages import Page, negotiated, prefers_page
from kernel.handlers import error_body
from reporting.auth import HEADER

PERMISSION = "reporting.view_attribution_report"
API = f"GET /v1/report/attribution with the supply key ({HEADER})"

View = Callable[[HttpRequest], HttpResponse]


def reports_access(view: View) -> View:
    @functools.wraps(view)
    def checked(request: HttpRequest) -> HttpResponse:
        user = request.user
        if not (user.is_active and user.is_staff):
            return _sign_in(request)
        if not user.has_perm(PERMISSION):
            return _forbidden(request)
        return view(request)

    return checked


def _sign_in(request: HttpRequest) -> HttpResponse:
    if prefers_page(request):
        response = redirect_to_login(request.get_full_path(), reverse("admin:login"))
        patch_vary_headers(response, ["Accept"])  # programs are answered otherwise
        return response
    message = (
        f"The supply reports are for signed-in staff with the permission {PERMISSION}; "
        f"programs read the same figures at {API}."
    )
    return negotiated(request, 403, error_body("forbidden", message))


def _forbidden(request: HttpRequest) -> HttpResponse:
    page = Page(
        "You may not read the supply reports",
        [
            f"Your account is signed in, but it does not have the permission {PERMISSION} "
            "(“Can view the attribution report pages”).",
            "An administrator can grant it in the staff console, to your user or to a group "
            "you are in.",
        ],
    )
    message = f"Your account does not have the permission {PERMISSION}."
    return negotiated(request, 403, error_body("forbidden", message), page)
