"""Merchant registry endpoints: register, look up, heartbeat, update, rotate the token."""

from functools import partial
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.asyncviews import WaitingViewSet
from kernel.contract import BAD_BODY, INVALID_TOKEN, MISSING_TOKEN, THROTTLED, TOO_LARGE, errors
from kernel.errors import (
    INVALID_BODY,
    MERCHANT_NOT_FOUND,
    MERCHANT_UNHEALTHY,
    MISSING_FIELDS,
    either,
)
from kernel.errors import MISSING_TOKEN as MISSING_TOKEN_ERROR
from kernel.idempotency_keys import Idempotent
from kernel.idempotent_answers import shown_once
from kernel.validation import validated
from merchants import probes, services
from merchants.auth import MerchantTokenActions, presented_by_owner, presented_token
from merchants.auth import require_merchant as authenticated_as
from merchants.endpoint_changes import endpoint_change_count
from merchants.examples import (
    MERCHANT_RECORD,
    OWN_MERCHANT_RECORD,
    REGISTER_REQUEST,
    REGISTERED,
)
from merchants.models import MERCHANT_ID as MERCHANT_ID_PATTERN
from merchants.models import RESERVED_MERCHANT_IDS
from merchants.serializers import (
    OWNER,
    HeartbeatSerializer,
    MerchantAgentSerializer,
    MerchantEnvelopeSerializer,
    MerchantHealthSerializer,
    MerchantPatchSerializer,
    RegisterSerializer,
    RegistrationSerializer,
    RotatedTokenSerializer,
    merchant_body,
)
from merchants.verification import verification_rearm

# The reserved ids are no merchant's: /v1/merchant/heartbeat and /v1/merchant/register are the
# registry's own endpoints (a PATCH there is a 405 of theirs, not a merchant's update).
_RESERVED = "|".join(sorted(RESERVED_MERCHANT_IDS))
MERCHANT_ID = OpenApiParameter(
    "merchantId",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    pattern=rf"^(?!(?:{_RESERVED})$){MERCHANT_ID_PATTERN.pattern}$",
    description="The merchant_id chosen at registration (never catalog, heartbeat or "
    "register: those are reserved).",
)
TOKEN_ERRORS = {401: MISSING_TOKEN, 403: INVALID_TOKEN}


# The throttle scope of each action that has one: every POST has (its Idempotency-Key is a row).
SCOPES = {
    "register": "register",
    "health": "health",
    **dict.fromkeys(("heartbeat", "verify", "rotate_token", "deactivate"), "merchant_commands"),
}


class MerchantViewSet(Idempotent, MerchantTokenActions, WaitingViewSet):
    lookup_url_kwarg = "merchantId"
    lookup_value_regex = "[^/]+"
    # Lookups are public; registration checks a presented token itself (a new merchant has
    # none); the other actions need the merchant's token.
    token_actions = ("heartbeat", "partial_update", "rotate_token", "deactivate", "verify")

    @extend_schema(
        operation_id="registerMerchant",
        summary="Register a merchant agent, or update one with its current token",
        description="A new merchant_id gets created=true, a registration_token and a "
        "webhook_secret, each shown once. An existing merchant_id needs its X-Merchant-Token "
        "(401 without, 403 wrong); it is updated and reactivated, and the token is echoed.",
        tags=["merchants"],
        # The token is optional: a new merchant has none; an existing one must send its own.
        auth=[{"MerchantToken": []}, {}],  # type: ignore[list-item]
        request=RegisterSerializer,
        responses={
            200: RegistrationSerializer,
            **errors(
                {
                    400: either(
                        MISSING_FIELDS.doc("merchant_id or agent_endpoint is absent"),
                        INVALID_BODY.doc(
                            "a field is invalid, e.g. an agent_endpoint that is not a public "
                            "HTTPS URL"
                        ),
                    )
                    + " `fields` names each.",
                    401: MISSING_TOKEN_ERROR.doc(
                        "the merchant_id is registered and no `X-Merchant-Token` was sent."
                    ),
                    403: INVALID_TOKEN,
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[REGISTER_REQUEST, REGISTERED],
    )
    @action(detail=False, methods=["post"])
    def register(self, request: Request) -> Response:
        body = validated(RegisterSerializer, request.data, source="body")
        merchant_id = body.pop("merchant_id")
        registration = services.merchant_register(
            merchant_id=merchant_id,
            fields=body,
            presented_token=presented_token(request),
            on_move=partial(endpoint_change_count, request),
        )
        merchant = registration.merchant
        answer: dict[str, Any] = {
            "status": merchant.status,
            "created": registration.created,
            "merchant_id": merchant.merchant_id,
            "registration_token": registration.registration_token,
            "merchant": MerchantAgentSerializer(merchant, context=OWNER).data,
        }
        if registration.webhook_secret:
            answer["webhook_secret"] = registration.webhook_secret
        return shown_once(Response(answer))

    @extend_schema(
        operation_id="getMerchant",
        summary="A merchant agent's public record",
        tags=["merchants"],
        description="Never shows the registration token or the webhook secret. Public; with "
        "the merchant's own X-Merchant-Token it also shows `verification`, where the proof of "
        "its endpoint stands in full (attempts, the next one, the last error). Another token "
        "is refused (403).",
        # The token is optional: anyone may read the record; its merchant sees more.
        auth=[{"MerchantToken": []}, {}],  # type: ignore[list-item]
        parameters=[MERCHANT_ID],
        responses={
            200: MerchantEnvelopeSerializer,
            **errors({403: INVALID_TOKEN, 404: MERCHANT_NOT_FOUND.doc()}),
        },
        examples=[MERCHANT_RECORD, OWN_MERCHANT_RECORD],
    )
    def retrieve(self, request: Request, merchantId: str) -> Response:
        merchant = services.merchant_get(merchant_id=merchantId)
        return Response(merchant_body(merchant, owner=presented_by_owner(request, merchant)))

    @extend_schema(  # type: ignore[type-var]  # DRF's stubs know only synchronous actions
        operation_id="probeMerchant",
        summary="Probe a merchant agent with a signed ping",
        description="Sends a signed `ping` event (Standard Webhooks) to the agent_endpoint: "
        "200 when it answers 2xx, 503 when it answers otherwise, does not answer in time, is "
        "refused as a target, or is deactivated. Results are reused for 30 seconds per merchant; "
        "the merchant's own body and headers are never shown.",
        tags=["merchants"],
        parameters=[MERCHANT_ID],
        responses={
            200: OpenApiResponse(
                MerchantHealthSerializer, description="The merchant agent answered 2xx."
            ),
            503: OpenApiResponse(
                MerchantHealthSerializer,
                description=MERCHANT_UNHEALTHY.doc(),
            ),
            **errors(
                {
                    404: MERCHANT_NOT_FOUND.doc(),
                    429: THROTTLED,
                }
            ),
        },
    )
    @action(detail=True, methods=["get"])
    async def health(self, request: Request, merchantId: str) -> Response:
        body = await probes.merchant_health(merchant_id=merchantId)
        return Response(body, status=200 if body["healthy"] else 503)

    def get_throttles(self) -> list[Any]:
        self.throttle_scope = SCOPES.get(self.action, "")
        return super().get_throttles()

    @extend_schema(
        operation_id="merchantHeartbeat",
        summary="Tell the gateway the merchant agent is alive",
        description="Sets last_seen_at.",
        tags=["merchants"],
        request=HeartbeatSerializer,
        responses={
            200: MerchantEnvelopeSerializer,
            **errors({400: BAD_BODY, **TOKEN_ERRORS, 413: TOO_LARGE, 429: THROTTLED}),
        },
    )
    @action(detail=False, methods=["post"])
    def heartbeat(self, request: Request) -> Response:
        body = validated(HeartbeatSerializer, request.data, source="body")
        merchant = authenticated_as(request, body["merchant_id"])
        return Response(merchant_body(services.merchant_heartbeat(merchant=merchant), owner=True))

    @extend_schema(
        operation_id="updateMerchant",
        summary="Change a merchant agent's endpoint, subscriptions or other mutable fields",
        tags=["merchants"],
        parameters=[MERCHANT_ID],
        description="Only the fields sent change. A new agent_endpoint must be a public HTTPS "
        "URL; it re-enables deliveries stopped by a 410 Gone and starts a new verification. "
        "Endpoint changes are throttled per merchant (`endpoint_change` scope).",
        request=MerchantPatchSerializer,
        responses={
            200: MerchantEnvelopeSerializer,
            **errors({400: BAD_BODY, **TOKEN_ERRORS, 413: TOO_LARGE, 429: THROTTLED}),
        },
    )
    def partial_update(self, request: Request, merchantId: str) -> Response:
        merchant = authenticated_as(request, merchantId)
        changes = validated(MerchantPatchSerializer, request.data, source="body")
        merchant = services.merchant_update(
            merchant=merchant, changes=changes, on_move=partial(endpoint_change_count, request)
        )
        return Response(merchant_body(merchant, owner=True))

    @extend_schema(
        operation_id="verifyMerchantEndpoint",
        summary="Ask for the endpoint's ownership to be verified again",
        description="Starts a new endpoint.verification of the agent_endpoint, sent at once: "
        "how a merchant re-arms a verification that was parked (verification_state `parked`: "
        "the endpoint never echoed through the whole schedule) once its endpoint is fixed. "
        "Nothing is sent when the endpoint is verified already. Throttled per merchant with "
        "endpoint changes (`endpoint_change` scope).",
        tags=["merchants"],
        parameters=[MERCHANT_ID],
        request=None,
        responses={200: MerchantEnvelopeSerializer, **errors({**TOKEN_ERRORS, 429: THROTTLED})},
    )
    @action(detail=True, methods=["post"])
    def verify(self, request: Request, merchantId: str) -> Response:
        merchant = authenticated_as(request, merchantId)
        if merchant.endpoint_verified_at is None and not merchant.is_deactivated:
            endpoint_change_count(request, merchant)
        merchant = verification_rearm(merchant=merchant)
        return Response(merchant_body(merchant, owner=True))

    @extend_schema(
        operation_id="rotateMerchantToken",
        summary="Issue a new registration token; the old one stops working at once",
        description="The new token is shown once, in this answer.",
        tags=["merchants"],
        parameters=[MERCHANT_ID],
        request=None,
        responses={200: RotatedTokenSerializer, **errors({**TOKEN_ERRORS, 429: THROTTLED})},
    )
    @action(detail=True, methods=["post"], url_path="rotate-token")
    def rotate_token(self, request: Request, merchantId: str) -> Response:
        merchant = authenticated_as(request, merchantId)
        token = services.merchant_rotate_token(merchant=merchant)
        return shown_once(
            Response(
                {
                    "status": merchant.status,
                    "merchant_id": merchant.merchant_id,
                    "registration_token": token,
                    "merchant": MerchantAgentSerializer(merchant, context=OWNER).data,
                }
            )
        )

    @extend_schema(
        operation_id="deactivateMerchant",
        summary="Deactivate a merchant agent: no more events, open proposals withdrawn",
        description="The merchant receives no more Intent.Surge events and its open proposals "
        "are withdrawn. Registering again with its token reactivates it.",
        tags=["merchants"],
        parameters=[MERCHANT_ID],
        request=None,
        responses={200: MerchantEnvelopeSerializer, **errors({**TOKEN_ERRORS, 429: THROTTLED})},
    )
    @action(detail=True, methods=["post"])
    def deactivate(self, request: Request, merchantId: str) -> Response:
        authenticated_as(request, merchantId)
        merchant = services.merchant_deactivate(merchant_id=merchantId)
        return Response(merchant_body(merchant, owner=True))
