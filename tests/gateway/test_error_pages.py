"""Errors negotiate: a page in the gateway's style for a browser, with what happened and where to
go next; the JSON envelope for every other client (no Accept, `*/*`, `application/json`), as
before. Inside the staff console, signed-in staff see the page in the console's frame. The
browser suite renders the same pages in Chromium (tests/browser/test_error_pages.py)."""

import re
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from tests.support.accept import BROWSER

pytestmark = [pytest.mark.urls("tests.gateway.urls"), pytest.mark.django_db]

PAGE = "text/html; charset=utf-8"
PROGRAMS = [None, "*/*", "application/json", "application/json, text/html;q=0.9"]


def _get(client: Client, path: str, accept: str | None) -> Any:
    return client.get(path, headers={"Accept": accept} if accept else {})


def _links(page: str) -> dict[str, str]:
    """The page's links forward: text -> href."""
    return {text: href for href, text in re.findall(r'<a href="([^"]*)">([^<]*)</a>', page)}


@pytest.mark.parametrize("accept", [BROWSER, "text/html"])
def test_an_unknown_path_is_a_page_for_a_browser(client, accept):
    response = client.get("/v1/nowhere", HTTP_ACCEPT=accept)

    page = response.content.decode()
    assert response.status_code == 404
    assert response["Content-Type"] == PAGE
    assert "Accept" in response["Vary"]
    assert "<h1>There is nothing here</h1>" in page
    assert "The gateway has no page at this address." in page
    assert _links(page)["The gateway&#x27;s home page"] == "/"
    assert "error code <code>not found</code>" in page


@pytest.mark.parametrize("accept", PROGRAMS)
def test_an_unknown_path_is_the_envelope_for_programs(client, accept):
    response = _get(client, "/v1/nowhere", accept)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "Accept" in response["Vary"]
    assert response.json() == {
        "error": "not found",
        "message": "The requested resource does not exist.",
    }


def test_the_address_a_link_made_up_is_never_shown_on_the_page(client):
    response = client.get("/Your-account-is-locked-call-555-0100/<b>now</b>", HTTP_ACCEPT=BROWSER)

    page = response.content.decode()
    assert response.status_code == 404
    assert "locked" not in page
    assert "555-0100" not in page
    assert "&lt;b&gt;" not in page


def test_a_missing_guide_points_at_the_guides(client):
    response = client.get("/docs/nothing.md", HTTP_ACCEPT=BROWSER)

    links = _links(response.content.decode())
    assert response.status_code == 404
    assert links["The guides"] == "/docs/api.md"
    assert links["API reference"] == "/docs/"


def test_a_bug_is_a_page_that_tells_nothing_of_the_bug(client):
    client.raise_request_exception = False

    response = client.get("/boom", HTTP_ACCEPT=BROWSER)

    page = response.content.decode()
    assert response.status_code == 500
    assert response["Content-Type"] == PAGE
    assert "Something went wrong on our side" in page
    assert "the error has been logged" in page
    assert "secret detail" not in page


def test_a_host_the_gateway_does_not_serve_is_a_page(client):
    response = client.get("/", HTTP_ACCEPT=BROWSER, HTTP_HOST="elsewhere.test")

    assert response.status_code == 400
    assert "This request could not be understood" in response.content.decode()


@pytest.fixture
def clerk(client, django_user_model):
    """Staff without any permission, signed in."""
    client.force_login(django_user_model.objects.create_user("clerk", is_staff=True))
    return client


def test_staff_meet_an_unknown_console_page_inside_the_console(clerk):
    response = clerk.get("/admin/no/such/page/", HTTP_ACCEPT=BROWSER)

    page = response.content.decode()
    assert response.status_code == 404
    assert 'id="site-name"' in page  # the console's header, its frame kept
    assert "<h1>There is nothing here</h1>" in page
    assert _links(page)["Staff console home"] == "/admin/"


def test_staff_meet_a_console_page_they_may_not_see_inside_the_console(clerk):
    response = clerk.get("/admin/catalog/product/", HTTP_ACCEPT=BROWSER)
    program = clerk.get("/admin/catalog/product/", HTTP_ACCEPT="application/json")

    page = response.content.decode()
    assert response.status_code == 403
    assert 'id="site-name"' in page
    assert "<h1>You may not open this page</h1>" in page
    assert "does not have the permission this page needs" in page
    assert _links(page)["Staff console home"] == "/admin/"
    assert program.status_code == 403
    assert program.json()["error"] == "forbidden"


def test_staff_granted_the_permission_open_the_same_page(clerk, django_user_model):
    user = django_user_model.objects.get(username="clerk")
    user.user_permissions.add(Permission.objects.get(codename="view_product"))

    assert clerk.get("/admin/catalog/product/", HTTP_ACCEPT=BROWSER).status_code == 200


def test_a_form_sent_without_its_token_is_a_page_with_the_way_back():
    client = Client(enforce_csrf_checks=True)

    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "someone", "password": "x"},
        HTTP_ACCEPT=BROWSER,
    )

    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>This form has expired</h1>" in page
    assert "The check said: CSRF cookie not set." in page  # for whoever reports it
    assert _links(page)["Open the page again"] == "/admin/login/?next=/admin/"


def test_a_program_sent_without_its_token_gets_the_envelope():
    client = Client(enforce_csrf_checks=True)

    response = client.post("/admin/login/", {"username": "someone"}, HTTP_ACCEPT="application/json")

    assert response.status_code == 403
    assert response.json()["error"] == "forbidden"
    assert response.json()["message"].startswith("CSRF verification failed")
