"""The buy link of every card: `/r/{rec_id}` records the click and redirects to the shop."""

from django.http import HttpResponseRedirect
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.request import Request

from gateway.api import ErrorSerializer
from reporting import services


class BuyLinkViewSet(viewsets.ViewSet):
    lookup_field = "rec_id"
    lookup_value_regex = "[^/]+"

    @extend_schema(
        operation_id="followBuyLink",
        summary="Follow a card's buy link: records the click, redirects to the shop",
        tags=["cards"],
        parameters=[OpenApiParameter("rec_id", OpenApiTypes.STR, OpenApiParameter.PATH)],
        responses={
            302: OpenApiResponse(
                description="Redirect to the product's shop URL with rec_id appended."
            ),
            404: ErrorSerializer,
        },
    )
    def retrieve(self, request: Request, rec_id: str) -> HttpResponseRedirect:
        target = services.click_record(
            rec_id=rec_id,
            user_agent=request.headers.get("User-Agent", ""),
            referrer=request.headers.get("Referer", ""),
        )
        return HttpResponseRedirect(target)
