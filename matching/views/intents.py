"""POST /v1/intents, the merchants' feed (GET /v1/intents), an intent and its proposals."""

from typing import Any

from asgiref.sync import sync_to_async
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.asyncviews import WaitingViewSet
from kernel.contract import (
    BAD_QUERY,
    THROTTLED,
    TOO_LARGE,
    errors,
)
from kernel.errors import (
    INTENT_NOT_FOUND,
    INVALID_BODY,
    MISSING_FIELDS,
    either,
)
from kernel.idempotency_keys import Idempotent
from kernel.idempotent_answers import shown_once
from kernel.validation import validated
from matching import services
from matching.examples import (
    INTENT_FOUND,
    INTENT_REQUEST,
    INTENT_RESPONSE,
)
from matching.serializers import (
    IntentCreatedSerializer,
    IntentCreateSerializer,
    IntentEnvelopeSerializer,
    IntentFeedQuerySerializer,
    IntentFeedSerializer,
    IntentProposalsQuerySerializer,
    IntentProposalsSerializer,
    IntentSerializer,
    ProposalSerializer,
)
from matching.views.parameters import INTENT_ID, NOT_STORED, TOKEN_ERRORS
from merchants.auth import MerchantTokenActions


def _intent_data(intent: Any) -> dict[str, Any]:
    return dict(IntentSerializer(intent).data)


class IntentViewSet(Idempotent, MerchantTokenActions, WaitingViewSet):
    lookup_url_kwarg = "intentId"
    lookup_value_regex = "[^/]+"
    token_actions = ("list",)  # the merchants' polling feed

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "intents" if self.action == "create" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="createIntent",
        summary="Create an intent",
        description="Stored with resolution_source `client` when it carries intent_tags, "
        "else `unresolved` until the intent engine resolves it. The answer's demand_token is "
        "shown only once: confirming a match token with it (X-Demand-Token) is what makes the "
        "confirmation the demand side's.",
        tags=["intents"],
        request=IntentCreateSerializer,
        responses={
            201: IntentCreatedSerializer,
            **errors(
                {
                    400: either(
                        MISSING_FIELDS.doc("raw_query is absent"),
                        INVALID_BODY.doc("the body is not a JSON object or a field is invalid"),
                    )
                    + " `fields` names each.",
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[INTENT_REQUEST, INTENT_RESPONSE],
    )
    async def create(self, request: Request) -> Response:
        body = validated(IntentCreateSerializer, request.data, source="body")
        stated = await services.intent_create_async(
            raw_query=body["raw_query"],
            region=body.get("region"),
            audience=body.get("audience"),
            budget_range=body.get("budget_range"),
            constraints=body.get("constraints", []),
            intent_tags=body.get("intent_tags"),
            source_channel=body.get("source_channel"),
            metadata=body.get("metadata", {}),
        )
        answer = {
            "intent": await sync_to_async(_intent_data)(stated.intent),
            "demand_token": stated.demand_token,
        }
        return shown_once(Response(answer, status=201, headers=NOT_STORED))

    @extend_schema(
        operation_id="getIntent",
        summary="An intent",
        description="The intent as stored, with the intent engine's resolution once it is "
        "resolved.",
        tags=["intents"],
        parameters=[INTENT_ID],
        responses={200: IntentEnvelopeSerializer, **errors({404: INTENT_NOT_FOUND.doc()})},
        examples=[INTENT_FOUND],
    )
    def retrieve(self, request: Request, intentId: str) -> Response:
        return Response({"intent": IntentSerializer(services.intent_get(intent_id=intentId)).data})

    @extend_schema(
        operation_id="listIntentsForMerchant",
        summary="Merchants' polling feed: intents that fit the merchant's subscriptions",
        description="Newest first. Tags match case-insensitively (`*` subscribes to all); a "
        "merchant with regions sees intents of those regions and intents without one. Pass "
        "next_cursor back as cursor for the next page.",
        tags=["intents"],
        parameters=[IntentFeedQuerySerializer],
        responses={200: IntentFeedSerializer, **errors({400: BAD_QUERY, **TOKEN_ERRORS})},
    )
    def list(self, request: Request) -> Response:
        query = validated(IntentFeedQuerySerializer, request.query_params, source="query")
        page = services.intents_feed(
            merchant=request.user,  # type: ignore[arg-type]
            since=query.get("since"),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        return Response(
            {
                "count": len(page.intents),
                "intents": IntentSerializer(page.intents, many=True).data,
                "next_cursor": page.next_cursor,
            }
        )

    @extend_schema(
        operation_id="listIntentProposals",
        summary="The proposals submitted against an intent",
        description="Oldest first, `limit` at a time (pass next_cursor back as cursor for the "
        "next page); expired proposals only with include_expired=true, superseded ones (the "
        "merchant proposed the same product again) only with include_superseded=true.",
        tags=["intents"],
        parameters=[INTENT_ID, IntentProposalsQuerySerializer],
        responses={
            200: IntentProposalsSerializer,
            **errors({400: BAD_QUERY, 404: INTENT_NOT_FOUND.doc()}),
        },
    )
    @action(detail=True, methods=["get"])
    def proposals(self, request: Request, intentId: str) -> Response:
        query = validated(IntentProposalsQuerySerializer, request.query_params, source="query")
        page = services.intent_proposals(
            intent_id=intentId,
            include_expired=query["include_expired"],
            include_superseded=query["include_superseded"],
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        return Response(
            {
                "intent_id": page.intent.intent_id,
                "count": len(page.proposals),
                "proposals": ProposalSerializer(page.proposals, many=True).data,
                "next_cursor": page.next_cursor,
            }
        )
