"""Discovery endpoints of the catalog: cards, fresh product cards, creator showcases."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from catalog import services
from catalog.serializers import (
    CardQuerySerializer,
    CardSerializer,
    ShowcaseQuerySerializer,
    ShowcaseSerializer,
)
from gateway.api import ErrorSerializer, validated

CHANNEL = OpenApiParameter(
    "channel", OpenApiTypes.STR, description="Optional hint naming the calling client."
)


# Path parameter names follow the interface (recId, productId, username).


class CardViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "recId"
    lookup_value_regex = "[^/]+"
    throttle_scope = "cards"

    @extend_schema(
        operation_id="getCard",
        summary="A card previously issued under a rec_id",
        tags=["cards"],
        parameters=[OpenApiParameter("recId", OpenApiTypes.STR, OpenApiParameter.PATH)],
        responses={200: CardSerializer, 404: ErrorSerializer, 429: ErrorSerializer},
    )
    def retrieve(self, request: Request, recId: str) -> Response:
        return Response(services.card_get(rec_id=recId))


class ProductViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "productId"
    lookup_value_regex = "[^/]+"
    throttle_scope = "cards"

    @extend_schema(
        operation_id="getProductCard",
        summary="A fresh card, with a new rec_id, for a known product",
        tags=["cards"],
        parameters=[
            OpenApiParameter("productId", OpenApiTypes.STR, OpenApiParameter.PATH),
            CHANNEL,
        ],
        responses={
            200: CardSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            429: ErrorSerializer,
        },
    )
    @action(detail=True, methods=["get"], url_path="card")
    def card(self, request: Request, productId: str) -> Response:
        query = validated(CardQuerySerializer, request.query_params, source="query")
        card = services.product_card_issue(product_id=productId, channel=query["channel"])
        return Response(card)


class CreatorViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "username"
    lookup_value_regex = "[^/]+"
    throttle_scope = "cards"

    @extend_schema(
        operation_id="getCreatorShowcase",
        summary="Cards of the products a creator sold best",
        tags=["cards"],
        parameters=[
            OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH),
            OpenApiParameter("limit", OpenApiTypes.INT, description="1 to 10, default 6."),
            CHANNEL,
        ],
        responses={
            200: ShowcaseSerializer,
            400: ErrorSerializer,
            404: ErrorSerializer,
            429: ErrorSerializer,
        },
    )
    @action(detail=True, methods=["get"])
    def showcase(self, request: Request, username: str) -> Response:
        query = validated(ShowcaseQuerySerializer, request.query_params, source="query")
        cards = services.creator_showcase(
            username=username, limit=query["limit"], channel=query["channel"]
        )
        return Response({"username": username, "count": len(cards), "items": cards})
