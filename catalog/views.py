"""Discovery endpoints of the catalog: cards, fresh product cards, creator showcases."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from catalog import services
from catalog.examples import CARD_EXAMPLE, SHOWCASE_EXAMPLE
from catalog.models import USERNAME as USERNAME_PATTERN
from catalog.serializers import (
    CardQuerySerializer,
    CardSerializer,
    ShowcaseQuerySerializer,
    ShowcaseSerializer,
)
from kernel.contract import BAD_QUERY, THROTTLED, errors, id_parameter
from kernel.errors import CARD_NOT_FOUND, CREATOR_NOT_FOUND, PRODUCT_NOT_FOUND
from kernel.ids import REC
from kernel.validation import validated

REC_ID = id_parameter("recId", REC, "The card's rec_id: `rec_` and 24 hex characters.")
PRODUCT_ID = OpenApiParameter(
    "productId",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    pattern=r"^[0-9]{1,19}$",
    description="The catalog product id, in digits.",
)
USERNAME = OpenApiParameter(
    "username",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    pattern=rf"^{USERNAME_PATTERN.pattern}$",
    description="The creator's username, without the @.",
)


# Path parameter names follow the interface (recId, productId, username).


class CardViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "recId"
    lookup_value_regex = "[^/]+"
    throttle_scope = "cards"

    @extend_schema(
        operation_id="getCard",
        summary="A card previously issued under a rec_id",
        description="The card exactly as it was served, under the same rec_id.",
        tags=["cards"],
        parameters=[REC_ID],
        responses={
            200: CardSerializer,
            **errors({404: CARD_NOT_FOUND.doc(), 429: THROTTLED}),
        },
        examples=[CARD_EXAMPLE],
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
        description="Every call issues a new card with its own rec_id, recorded for "
        "attribution; hand cta.primary.url to the shopper verbatim.",
        tags=["cards"],
        parameters=[PRODUCT_ID, CardQuerySerializer],
        responses={
            200: CardSerializer,
            **errors(
                {
                    400: BAD_QUERY,
                    404: PRODUCT_NOT_FOUND.doc(),
                    429: THROTTLED,
                }
            ),
        },
        examples=[CARD_EXAMPLE],
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
        description="Top products for which the creator produced winning videos, by the GMV "
        "of the creator's own videos; each is a freshly issued card.",
        tags=["cards"],
        parameters=[USERNAME, ShowcaseQuerySerializer],
        responses={
            200: ShowcaseSerializer,
            **errors(
                {
                    400: BAD_QUERY,
                    404: CREATOR_NOT_FOUND.doc(),
                    429: THROTTLED,
                }
            ),
        },
        examples=[SHOWCASE_EXAMPLE],
    )
    @action(detail=True, methods=["get"])
    def showcase(self, request: Request, username: str) -> Response:
        query = validated(ShowcaseQuerySerializer, request.query_params, source="query")
        cards = services.creator_showcase(
            username=username, limit=query["limit"], channel=query["channel"]
        )
        return Response({"username": username, "count": len(cards), "items": cards})
