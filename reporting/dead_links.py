"""What a shopper's browser shows when a buy link (/r/{rec_id}) cannot lead to the shop: the card
is unknown (a mistyped or cut link) or expired (cards are kept RECOMMENDATION_RETENTION_DAYS),
or the link was followed too often from one network. The shopper reads that the offer is no
longer available and, where the gateway knows the shop (SHOP_HOME_URL), gets a link to its home
page; programs get the error envelope as before (kernel/error_pages.py)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.response import Response

from kernel.error_pages import Page, Way, page_response, prefers_page


def for_people(request: HttpRequest, response: Response) -> HttpResponse:
    """The buy link's error `response` (the envelope) as a page when a browser asked."""
    response["Vary"] = "Accept"
    if not prefers_page(request) or not isinstance(response.data, dict):
        return response
    code = str(response.data.get("error", ""))
    message = str(response.data.get("message", ""))
    page = _page(request, response.status_code, message, response.get("Retry-After"))
    shown = page_response(request, response.status_code, code, page)
    for header in ("Retry-After", "Vary"):
        if header in response:
            shown[header] = response[header]
    return shown


def _page(request: HttpRequest, status: int, message: str, retry_after: str | None) -> Page:
    shop = [Way("Visit the shop", settings.SHOP_HOME_URL)] if settings.SHOP_HOME_URL else []
    if status == 404:
        return Page(
            "This offer is no longer available",
            [
                "The link you followed was for a product recommendation that has expired, or "
                "the link is incomplete.",
                "The product may still be on sale: look for it in the shop."
                if shop
                else "Ask the assistant that gave you the link for a fresh one.",
            ],
            shop,
            for_shoppers=True,
        )
    if status == 429:
        return Page(
            "Too many visits from your network",
            [
                "This link was followed too often from your network in a short time.",
                f"Wait {retry_after} seconds and try again."
                if retry_after
                else "Wait a minute and try again.",
            ],
            [Way("Try again", request.get_full_path()), *shop],
            for_shoppers=True,
        )
    return Page("This link cannot be followed", [message], shop, for_shoppers=True)
