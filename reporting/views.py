"""The buy link of every card: `/r/{recId}` records the click and redirects to the shop."""

from django.http import HttpResponseRedirect
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.request import Request

from gateway.api import AnyAccept, ErrorSerializer
from reporting import services


class BuyLinkViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "recId"  # path parameter names follow the interface
    lookup_value_regex = "[^/]+"
    # Browsers follow this link with Accept: text/html; the redirect must not depend on it.
    content_negotiation_class = AnyAccept

    @extend_schema(
        operation_id="followBuyLink",
        summary="Follow a card's buy link: records the click, redirects to the shop",
        description="GET records one click; HEAD answers the same redirect and records nothing "
        "(link previews and prefetchers).",
        tags=["cards"],
        parameters=[OpenApiParameter("recId", OpenApiTypes.STR, OpenApiParameter.PATH)],
        responses={
            302: OpenApiResponse(
                description="Redirect to the product's shop URL with rec_id appended."
            ),
            404: ErrorSerializer,
        },
    )
    def retrieve(self, request: Request, recId: str) -> HttpResponseRedirect:
        target = services.buy_link_follow(
            rec_id=recId,
            user_agent=request.headers.get("User-Agent", ""),
            referrer=request.headers.get("Referer", ""),
            count_click=request.method == "GET",
        )
        return HttpResponseRedirect(target)
