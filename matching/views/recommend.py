"""GET /v1/recommend: a shopper's words in, product cards out (matching/recommend/)."""

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.asyncviews import WaitingViewSet
from kernel.contract import (
    BAD_QUERY,
    THROTTLED,
    errors,
)
from kernel.errors import (
    INTENT_ENGINE_UNAVAILABLE,
)
from kernel.validation import validated
from matching.examples import (
    ENGINE_UNAVAILABLE,
    RECOMMEND_RESPONSE,
)
from matching.recommend.pipeline import recommend
from matching.serializers import (
    RecommendQuerySerializer,
    RecommendSerializer,
)
from matching.views.parameters import NOT_STORED


class RecommendViewSet(WaitingViewSet):
    throttle_scope = "recommend"

    @extend_schema(
        operation_id="recommend",
        summary="Product cards for a natural-language shopping intent",
        description="The intent engine resolves the words; products are retrieved in tiers "
        "(raw_substring, strict, narrow, fuzzy, partial, semantic, broadened) within the region "
        "and budget, then trending products fill the list. Each card's cta.primary.url carries "
        "its rec_id and must be handed to the shopper verbatim. The Intent, one catalog "
        "Proposal per card and a MatchSession are recorded; demand_token, the intent's demand"
        " credential, is shown only in this answer. 503 `intent_engine_unavailable` when the "
        "engine is not configured, times out, fails, or its circuit breaker is open.",
        tags=["recommend"],
        parameters=[RecommendQuerySerializer],
        responses={
            200: RecommendSerializer,
            **errors(
                {
                    400: BAD_QUERY,
                    429: THROTTLED,
                    503: INTENT_ENGINE_UNAVAILABLE.doc(),
                }
            ),
        },
        examples=[RECOMMEND_RESPONSE, ENGINE_UNAVAILABLE],
    )
    async def list(self, request: Request) -> Response:
        query = validated(RecommendQuerySerializer, request.query_params, source="query")
        return Response(
            await recommend(
                intent=query["intent"],
                limit=query["limit"],
                region=query["region"],
                channel=query["channel"],
            ),
            headers=NOT_STORED,  # it carries the intent's demand credential
        )
