"""Intent-matching endpoints: intents, the merchants' intent feed, proposals, matches, tokens,
signed intent mandates."""

from typing import Any

from asgiref.sync import sync_to_async
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from gateway.api import (
    BAD_QUERY,
    INTENT,
    INVALID_TOKEN,
    MATCH_SESSION,
    MATCH_TOKEN,
    MISSING_TOKEN,
    PROPOSAL,
    THROTTLED,
    TOO_LARGE,
    errors,
    id_parameter,
    validated,
)
from gateway.asyncviews import WaitingViewSet
from gateway.signing import ALGORITHM
from matching import mandates, services
from matching.examples import (
    ACCEPT_CONFIRM,
    ACCEPT_MINT,
    ACCEPT_RESPONSE,
    ENGINE_UNAVAILABLE,
    INTENT_FOUND,
    INTENT_REQUEST,
    INTENT_RESPONSE,
    MATCH_REQUEST,
    MATCH_RESPONSE,
    PROPOSAL_REQUEST,
    PROPOSAL_RESPONSE,
    RECOMMEND_RESPONSE,
    SIGN_REQUEST,
    SIGN_RESPONSE,
    VERIFY_EXPIRED,
    VERIFY_REQUEST,
    VERIFY_VALID,
)
from matching.recommend import recommend
from matching.serializers import (
    IncludeExpiredQuerySerializer,
    IntentCreateSerializer,
    IntentEnvelopeSerializer,
    IntentFeedQuerySerializer,
    IntentFeedSerializer,
    IntentMandateSignSerializer,
    IntentMandateVerificationSerializer,
    IntentMandateVerifySerializer,
    IntentProposalsSerializer,
    IntentSerializer,
    MatchAcceptSerializer,
    MatchCreateSerializer,
    MatchDetailSerializer,
    MatchGetQuerySerializer,
    MatchSessionEnvelopeSerializer,
    MatchSessionSerializer,
    MatchTokenEnvelopeSerializer,
    MatchTokenSerializer,
    ProposalCreateSerializer,
    ProposalEnvelopeSerializer,
    ProposalSerializer,
    RecommendQuerySerializer,
    RecommendSerializer,
    SignedIntentMandateSerializer,
)
from merchants.auth import MerchantTokenActions
from merchants.auth import require_merchant as authenticated_as
from merchants.serializers import MerchantEnvelopeSerializer, merchant_body
from merchants.services import merchant_get
from merchants.views import MERCHANT_ID

TOKEN_ERRORS = {401: MISSING_TOKEN, 403: INVALID_TOKEN}


def _intent_data(intent: Any) -> dict[str, Any]:
    return dict(IntentSerializer(intent).data)


BAD_BODY = (
    "`missing_fields`: a required field is absent; `invalid_body`: the body is not a JSON "
    "object or a field is invalid. `fields` names each."
)
INTENT_NOT_FOUND = "`intent_not_found`: no intent has that intent_id."
MATCH_NOT_FOUND = "`match_not_found`: no match session has that match_session_id."

INTENT_ID = id_parameter("intentId", INTENT, "The intent_id: `int_` and 24 hex characters.")
PROPOSAL_ID = id_parameter("proposalId", PROPOSAL, "The proposal_id: `prp_` and 24 hex characters.")
MATCH_SESSION_ID = id_parameter(
    "matchSessionId", MATCH_SESSION, "The match_session_id: `mss_` and 24 hex characters."
)
MATCH_TOKEN_ID = id_parameter(
    "matchTokenId", MATCH_TOKEN, "The match_token_id: `mtk_` and 24 hex characters."
)


class IntentViewSet(MerchantTokenActions, WaitingViewSet):
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
        "else `unresolved` until the intent engine resolves it.",
        tags=["intents"],
        request=IntentCreateSerializer,
        responses={
            201: IntentEnvelopeSerializer,
            **errors(
                {
                    400: "`missing_fields`: raw_query is absent; `invalid_body`: the body is not "
                    "a JSON object or a field is invalid. `fields` names each.",
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[INTENT_REQUEST, INTENT_RESPONSE],
    )
    async def create(self, request: Request) -> Response:
        body = validated(IntentCreateSerializer, request.data, source="body")
        intent = await services.intent_create_async(
            raw_query=body["raw_query"],
            region=body.get("region"),
            audience=body.get("audience"),
            budget_range=body.get("budget_range"),
            constraints=body.get("constraints", []),
            intent_tags=body.get("intent_tags"),
            source_channel=body.get("source_channel"),
            metadata=body.get("metadata", {}),
        )
        return Response({"intent": await sync_to_async(_intent_data)(intent)}, status=201)

    @extend_schema(
        operation_id="getIntent",
        summary="An intent",
        description="The intent as stored, with the intent engine's resolution once it is "
        "resolved.",
        tags=["intents"],
        parameters=[INTENT_ID],
        responses={200: IntentEnvelopeSerializer, **errors({404: INTENT_NOT_FOUND})},
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
        description="Newest first; expired proposals only with include_expired=true.",
        tags=["intents"],
        parameters=[INTENT_ID, IncludeExpiredQuerySerializer],
        responses={
            200: IntentProposalsSerializer,
            **errors({400: BAD_QUERY, 404: INTENT_NOT_FOUND}),
        },
    )
    @action(detail=True, methods=["get"])
    def proposals(self, request: Request, intentId: str) -> Response:
        query = validated(IncludeExpiredQuerySerializer, request.query_params, source="query")
        intent, proposals = services.intent_proposals(
            intent_id=intentId, include_expired=query["include_expired"]
        )
        return Response(
            {
                "intent_id": intent.intent_id,
                "count": len(proposals),
                "proposals": ProposalSerializer(proposals, many=True).data,
            }
        )


class ProposalViewSet(MerchantTokenActions, viewsets.ViewSet):
    lookup_url_kwarg = "proposalId"
    lookup_value_regex = "[^/]+"
    token_actions = ("create",)

    @extend_schema(
        operation_id="createProposal",
        summary="Submit a proposal against an intent",
        description="It supersedes the merchant's earlier live proposal of the same product "
        "for the same intent.",
        tags=["proposals"],
        request=ProposalCreateSerializer,
        responses={
            201: ProposalEnvelopeSerializer,
            **errors(
                {
                    400: BAD_BODY,
                    401: MISSING_TOKEN,
                    403: "`invalid registration token`: the token is unknown or another "
                    "merchant's; `merchant_deactivated`: the merchant agent is deactivated.",
                    404: "`merchant_not_found`, `intent_not_found` or `product_not_found`: "
                    "the merchant, intent or product does not exist.",
                    413: TOO_LARGE,
                }
            ),
        },
        examples=[PROPOSAL_REQUEST, PROPOSAL_RESPONSE],
    )
    def create(self, request: Request) -> Response:
        body = validated(ProposalCreateSerializer, request.data, source="body")
        merchant_id = body.pop("merchant_agent_id")
        merchant_get(merchant_id=merchant_id)  # 404 merchant_not_found before 403
        merchant = authenticated_as(request, merchant_id)
        proposal = services.proposal_submit(
            merchant=merchant,
            intent_id=body.pop("intent_id"),
            product_id=body.pop("product_id"),
            fields=body,
        )
        return Response({"proposal": ProposalSerializer(proposal).data}, status=201)

    @extend_schema(
        operation_id="getProposal",
        summary="A proposal",
        description="Its status is as of now: a proposal past valid_until reads expired.",
        tags=["proposals"],
        parameters=[PROPOSAL_ID],
        responses={
            200: ProposalEnvelopeSerializer,
            **errors({404: "`proposal_not_found`: no proposal has that proposal_id."}),
        },
    )
    def retrieve(self, request: Request, proposalId: str) -> Response:
        proposal = services.proposal_get(proposal_id=proposalId)
        return Response({"proposal": ProposalSerializer(proposal).data})


class MatchViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "matchSessionId"
    lookup_value_regex = "[^/]+"

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "match" if self.action == "create" else ""
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
                    400: "`missing_fields`: intent_id is absent; `invalid_body`: the body is not "
                    "a JSON object or a field is invalid, e.g. a limit outside 1 to 10.",
                    404: "`intent_not_found`: no intent has that intent_id; "
                    "`proposal_not_found`: a proposal_id is not a proposal of this intent.",
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
            **errors({400: BAD_QUERY, 404: MATCH_NOT_FOUND}),
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
        "repeat. {match_token_id} confirms it (accepted): the session is accepted and its other "
        "tokens superseded. Another acceptance afterwards is 409; an expired token 410.",
        tags=["match"],
        parameters=[MATCH_SESSION_ID],
        request=MatchAcceptSerializer,
        responses={
            200: MatchTokenEnvelopeSerializer,
            **errors(
                {
                    400: "`invalid_body`: neither proposal_id nor match_token_id is given, or "
                    "they name different proposals.",
                    404: "`match_not_found`: no match session has that match_session_id; "
                    "`proposal_not_found`: the proposal is not ranked in this session; "
                    "`match_token_not_found`: no token of this session has that id.",
                    409: "`match_already_accepted`: another proposal of this match was "
                    "accepted; `match_expired`: the session has expired; "
                    "`proposal_unavailable`: the proposal is no longer live.",
                    410: "`match_token_expired`: the match token expired; mint a new match.",
                    413: TOO_LARGE,
                }
            ),
        },
        examples=[ACCEPT_MINT, ACCEPT_CONFIRM, ACCEPT_RESPONSE],
    )
    @action(detail=True, methods=["post"])
    def accept(self, request: Request, matchSessionId: str) -> Response:
        body = validated(MatchAcceptSerializer, request.data, source="body")
        token = services.match_accept(
            match_session_id=matchSessionId,
            proposal_id=body.get("proposal_id"),
            match_token_id=body.get("match_token_id"),
            request_id=getattr(request, "request_id", None),
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
            **errors({404: "`match_token_not_found`: no match token has that match_token_id."}),
        },
    )
    def retrieve(self, request: Request, matchTokenId: str) -> Response:
        token = services.match_token_get(match_token_id=matchTokenId)
        return Response({"match_token": MatchTokenSerializer(token).data})


class MerchantDeactivationViewSet(MerchantTokenActions, viewsets.ViewSet):
    """POST /v1/merchant/{merchantId}/deactivate. It lives here, beside the proposals it
    withdraws, because the merchants app may not reach into matching."""

    lookup_url_kwarg = "merchantId"
    lookup_value_regex = "[^/]+"
    token_actions = ("deactivate",)

    @extend_schema(
        operation_id="deactivateMerchant",
        summary="Deactivate a merchant agent: no more events, open proposals withdrawn",
        description="The merchant receives no more Intent.Surge events and its open proposals "
        "are withdrawn. Registering again with its token reactivates it.",
        tags=["merchants"],
        parameters=[MERCHANT_ID],
        request=None,
        responses={200: MerchantEnvelopeSerializer, **errors(TOKEN_ERRORS)},
    )
    @action(detail=True, methods=["post"])
    def deactivate(self, request: Request, merchantId: str) -> Response:
        authenticated_as(request, merchantId)
        merchant = services.merchant_deactivate(merchant_id=merchantId)
        return Response(merchant_body(merchant))


class RecommendViewSet(WaitingViewSet):
    throttle_scope = "recommend"

    @extend_schema(
        operation_id="recommend",
        summary="Product cards for a natural-language shopping intent",
        description="The intent engine resolves the words; products are retrieved in tiers "
        "(raw_substring, strict, narrow, fuzzy, broadened) within the region and budget, then "
        "trending products fill the list. Each card's cta.primary.url carries its rec_id and "
        "must be handed to the shopper verbatim. The Intent, one catalog Proposal per card and "
        "a MatchSession are recorded. 503 `intent_engine_unavailable` when the engine is not "
        "configured, times out, fails, or its circuit breaker is open.",
        tags=["recommend"],
        parameters=[RecommendQuerySerializer],
        responses={
            200: RecommendSerializer,
            **errors(
                {
                    400: BAD_QUERY,
                    429: THROTTLED,
                    503: "`intent_engine_unavailable`: the intent engine is not configured or "
                    "did not answer.",
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
            )
        )


class IntentMandateViewSet(viewsets.ViewSet):
    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "mandates" if self.action == "sign" else "mandate_verify"
        return super().get_throttles()

    @extend_schema(
        operation_id="signIntentMandate",
        summary="Sign an intent mandate: one product, up to an amount, for a short time",
        description="The mandate is signed with RSASSA-PKCS1-v1_5 and SHA-256 (RS256) over the "
        "RFC 8785 canonical JSON of `mandate`, returned as canonical_payload. The public keys "
        "are published at jwks_url under their kid (RFC 7638 thumbprint). 400 `invalid_body` "
        "for an unknown product or an amount that is not a number above 0 within the maximum; "
        "503 `signing_key_unavailable` when no signing key is configured.",
        tags=["mandates"],
        request=IntentMandateSignSerializer,
        responses={
            201: SignedIntentMandateSerializer,
            **errors(
                {
                    400: "`invalid_body`: the body is not a JSON object, the product is "
                    "unknown, or amount_limit is not a number above 0 within the maximum.",
                    413: TOO_LARGE,
                    429: THROTTLED,
                    503: "`signing_key_unavailable`: no signing key is configured on the gateway.",
                }
            ),
        },
        examples=[SIGN_REQUEST, SIGN_RESPONSE],
    )
    @action(detail=False, methods=["post"])
    def sign(self, request: Request) -> Response:
        body = validated(
            IntentMandateSignSerializer, request.data, source="body", missing_fields=False
        )
        signed = mandates.mandate_sign(
            product_id=body["product_id"],
            amount_limit=body["amount_limit"],
            currency=body["currency"],
        )
        return Response(
            {
                "mandate": signed.mandate,
                "canonical_payload": signed.canonical_payload,
                "signature": signed.signature,
                "algorithm": ALGORITHM,
                "key_id": signed.key_id,
                "jwks_url": mandates.jwks_url(),
            },
            status=201,
        )

    @extend_schema(
        operation_id="verifyIntentMandate",
        summary="Verify an intent mandate against the published keys",
        description="The canonical bytes are recomputed from `mandate`, so any changed field "
        "fails. reason: `malformed`, `unsupported_algorithm` (an algorithm other than RS256), "
        "`unknown_key` (key_id names no published key), `bad_signature`, `wrong_issuer`, "
        "`expired`; null when valid.",
        tags=["mandates"],
        request=IntentMandateVerifySerializer,
        responses={
            200: IntentMandateVerificationSerializer,
            **errors(
                {
                    400: "`invalid_body`: the body is not a JSON object, or mandate or "
                    "signature is absent or of the wrong type.",
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[VERIFY_REQUEST, VERIFY_VALID, VERIFY_EXPIRED],
    )
    @action(detail=False, methods=["post"])
    def verify(self, request: Request) -> Response:
        body = validated(
            IntentMandateVerifySerializer, request.data, source="body", missing_fields=False
        )
        reason = mandates.mandate_verify(
            mandate=body["mandate"],
            signature=body["signature"],
            key_id=body.get("key_id"),
            algorithm=body.get("algorithm"),
        )
        return Response({"valid": reason is None, "reason": reason})
