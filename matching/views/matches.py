"""Match sessions (POST /v1/match, accept) and match tokens."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.contract import (
    BAD_QUERY,
    THROTTLED,
    TOO_LARGE,
    errors,
)
from kernel.errors import (
    INTENT_NOT_FOUND,
    INVALID_BODY,
    INVALID_DEMAND_TOKEN,
    INVALID_TOKEN,
    MATCH_ALREADY_ACCEPTED,
    MATCH_EXPIRED,
    MATCH_NOT_FOUND,
    MATCH_TOKEN_EXPIRED,
    MATCH_TOKEN_NOT_FOUND,
    MISSING_FIELDS,
    PROPOSAL_NOT_RANKED,
    PROPOSAL_UNAVAILABLE,
    PROPOSALS_NOT_OF_INTENT,
    SESSION_TOKEN_NOT_FOUND,
    either,
)
from kernel.idempotency_keys import Idempotent
from kernel.validation import validated
from matching import services
from matching.demand import HEADER as DEMAND_HEADER
from matching.examples import (
    ACCEPT_CONFIRM,
    ACCEPT_MINT,
    ACCEPT_RESPONSE,
    MATCH_REQUEST,
    MATCH_RESPONSE,
)
from matching.serializers import (
    MatchAcceptSerializer,
    MatchCreateSerializer,
    MatchDetailSerializer,
    MatchGetQuerySerializer,
    MatchSessionEnvelopeSerializer,
    MatchSessionSerializer,
    MatchTokenEnvelopeSerializer,
    MatchTokenSerializer,
)
from matching.views.parameters import DEMAND_TOKEN, MATCH_SESSION_ID, MATCH_TOKEN_ID
from merchants.auth import merchant_for_token, presented_token


def _demand_tokens(request: Request, in_body: str | None) -> list[str]:
    """The demand credentials sent, in the header and in the body (for tools that send no
    headers); each must be the intent's."""
    return [token for token in (request.headers.get(DEMAND_HEADER), in_body) if token]


class MatchViewSet(Idempotent, viewsets.ViewSet):
    lookup_url_kwarg = "matchSessionId"
    lookup_value_regex = "[^/]+"

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = {"create": "match", "accept": "accept"}.get(self.action, "")
        return super().get_throttles()

    @extend_schema(
        operation_id="createMatch",
        summary="Rank an intent's proposals into a match session",
        description="Ranks the intent's live proposals (or only proposal_ids). Each ranked item "
        "has rank, score (0-1), components and reasons; summary states the weights, what was "
        "considered and excluded, and the tie-break.",
        tags=["match"],
        request=MatchCreateSerializer,
        responses={
            201: MatchSessionEnvelopeSerializer,
            **errors(
                {
                    400: either(
                        MISSING_FIELDS.doc("intent_id is absent"),
                        INVALID_BODY.doc(
                            "the body is not a JSON object or a field is invalid, e.g. a limit "
                            "outside 1 to 10"
                        ),
                    ),
                    404: either(INTENT_NOT_FOUND.doc(), PROPOSALS_NOT_OF_INTENT.doc()),
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[MATCH_REQUEST, MATCH_RESPONSE],
    )
    def create(self, request: Request) -> Response:
        body = validated(MatchCreateSerializer, request.data, source="body")
        session = services.match_create(
            intent_id=body["intent_id"], proposal_ids=body.get("proposal_ids"), limit=body["limit"]
        )
        return Response({"match_session": MatchSessionSerializer(session).data}, status=201)

    @extend_schema(
        operation_id="getMatch",
        summary="A match session, its ranked proposals, tokens and product cards",
        tags=["match"],
        parameters=[MATCH_SESSION_ID, MatchGetQuerySerializer],
        responses={
            200: MatchDetailSerializer,
            **errors({400: BAD_QUERY, 404: MATCH_NOT_FOUND.doc()}),
        },
    )
    def retrieve(self, request: Request, matchSessionId: str) -> Response:
        query = validated(MatchGetQuerySerializer, request.query_params, source="query")
        session = services.match_get(match_session_id=matchSessionId)
        limit = query.get("limit")
        return Response(
            {
                "match_session": MatchSessionSerializer(session).data,
                "ranked_proposals": session.ranked_proposals[:limit]
                if limit
                else session.ranked_proposals,
                "match_tokens": MatchTokenSerializer(session.tokens.all(), many=True).data,
                "items": services.match_cards(session=session, limit=limit),
            }
        )

    @extend_schema(
        operation_id="acceptMatch",
        summary="Mint a match token for a ranked proposal, or confirm a minted one",
        description="{proposal_id} mints the proposal's token (issued), the same token on every "
        "repeat. {match_token_id} confirms it (accepted). The token records who confirmed it "
        "(confirmed_by): the demand side, with the intent's demand_token (X-Demand-Token, or "
        "demand_token in the body); else a merchant, with its X-Merchant-Token (recorded as the "
        "acceptor); else nobody known. Only the demand side's confirmation decides (anyone's, "
        "for an intent without a demand_token): the session is accepted, the proposal too, and "
        "the session's other tokens superseded; another acceptance afterwards is 409. Any other "
        "confirmation binds nothing: the session stays open and the demand side still confirms "
        "any of its tokens, that one included. An expired token is 410. Only a token the demand "
        "side confirmed earns a sale; a sale through any other is flagged.",
        tags=["match"],
        parameters=[MATCH_SESSION_ID, DEMAND_TOKEN],
        request=MatchAcceptSerializer,
        responses={
            200: MatchTokenEnvelopeSerializer,
            **errors(
                {
                    400: INVALID_BODY.doc(
                        "neither proposal_id nor match_token_id is given, or they name "
                        "different proposals."
                    ),
                    404: either(
                        MATCH_NOT_FOUND.doc(),
                        PROPOSAL_NOT_RANKED.doc("the proposal is not ranked in this session"),
                        SESSION_TOKEN_NOT_FOUND.doc("no token of this session has that id"),
                    ),
                    409: either(
                        MATCH_ALREADY_ACCEPTED.doc(),
                        MATCH_EXPIRED.doc("the session has expired"),
                        PROPOSAL_UNAVAILABLE.doc(),
                    ),
                    403: either(
                        INVALID_TOKEN.doc("the X-Merchant-Token sent is not valid"),
                        INVALID_DEMAND_TOKEN.doc(),
                    ),
                    410: MATCH_TOKEN_EXPIRED.doc(),
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[ACCEPT_MINT, ACCEPT_CONFIRM, ACCEPT_RESPONSE],
    )
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, matchSessionId: str) -> Response:
        body = validated(MatchAcceptSerializer, request.data, source="body")
        presented = presented_token(request)
        token = services.match_accept(
            match_session_id=matchSessionId,
            proposal_id=body.get("proposal_id"),
            match_token_id=body.get("match_token_id"),
            request_id=getattr(request, "request_id", None),
            accepted_by=merchant_for_token(presented) if presented else None,
            demand_tokens=_demand_tokens(request, body.get("demand_token")),
        )
        return Response({"match_token": MatchTokenSerializer(token).data})


class MatchTokenViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "matchTokenId"
    lookup_value_regex = "[^/]+"

    @extend_schema(
        operation_id="getMatchToken",
        summary="A match token",
        tags=["match"],
        parameters=[MATCH_TOKEN_ID],
        responses={
            200: MatchTokenEnvelopeSerializer,
            **errors({404: MATCH_TOKEN_NOT_FOUND.doc()}),
        },
    )
    def retrieve(self, request: Request, matchTokenId: str) -> Response:
        token = services.match_token_get(match_token_id=matchTokenId)
        return Response({"match_token": MatchTokenSerializer(token).data})
