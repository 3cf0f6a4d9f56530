"""POST /v1/proposals and GET /v1/proposals/{proposalId}."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.contract import (
    BAD_BODY,
    MISSING_TOKEN,
    THROTTLED,
    TOO_LARGE,
    errors,
)
from kernel.errors import (
    INTENT_NOT_FOUND,
    INVALID_TOKEN,
    MERCHANT_DEACTIVATED,
    MERCHANT_NOT_FOUND,
    PRODUCT_NOT_FOUND,
    PROPOSAL_NOT_FOUND,
    either,
)
from kernel.idempotency_keys import Idempotent
from kernel.validation import validated
from matching import services
from matching.examples import (
    PROPOSAL_REQUEST,
    PROPOSAL_RESPONSE,
)
from matching.serializers import (
    ProposalCreateSerializer,
    ProposalEnvelopeSerializer,
    ProposalSerializer,
)
from matching.views.parameters import PROPOSAL_ID
from merchants.auth import MerchantTokenActions
from merchants.auth import require_merchant as authenticated_as
from merchants.services import merchant_get


class ProposalViewSet(Idempotent, MerchantTokenActions, viewsets.ViewSet):
    lookup_url_kwarg = "proposalId"
    lookup_value_regex = "[^/]+"
    token_actions = ("create",)

    def get_throttles(self) -> list[Any]:
        # Per merchant: the authenticated merchant is the throttle's principal.
        self.throttle_scope = "proposals" if self.action == "create" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="createProposal",
        summary="Submit a proposal against an intent",
        description="It supersedes the merchant's earlier live proposal of the same product "
        "for the same intent. Throttled per merchant (`proposals` scope).",
        tags=["proposals"],
        request=ProposalCreateSerializer,
        responses={
            201: ProposalEnvelopeSerializer,
            **errors(
                {
                    400: BAD_BODY,
                    401: MISSING_TOKEN,
                    403: either(
                        INVALID_TOKEN.doc(),
                        MERCHANT_DEACTIVATED.doc("the merchant agent is deactivated"),
                    ),
                    404: f"`{MERCHANT_NOT_FOUND.code}`, `{INTENT_NOT_FOUND.code}` or "
                    f"`{PRODUCT_NOT_FOUND.code}`: the merchant, intent or product does not exist.",
                    413: TOO_LARGE,
                    429: THROTTLED,
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
            **errors({404: PROPOSAL_NOT_FOUND.doc()}),
        },
    )
    def retrieve(self, request: Request, proposalId: str) -> Response:
        proposal = services.proposal_get(proposal_id=proposalId)
        return Response({"proposal": ProposalSerializer(proposal).data})
