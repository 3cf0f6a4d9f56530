"""A merchant's deliveries, with its token: the list, and the retry of a failed one."""

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.contract import BAD_QUERY, INVALID_TOKEN, MISSING_TOKEN, THROTTLED, errors
from kernel.errors import (
    DELIVERIES_DISABLED,
    DELIVERY_NOT_FAILED,
    DELIVERY_NOT_FOUND,
    DELIVERY_RETRY_LIMIT,
    ENDPOINT_UNVERIFIED,
    MERCHANT_DEACTIVATED,
    either,
)
from kernel.errors import INVALID_TOKEN as INVALID_TOKEN_ERROR
from kernel.idempotency_keys import Idempotent
from kernel.paging import NUMBERED
from kernel.validation import validated
from merchants.auth import MerchantTokenActions
from merchants.auth import require_merchant as authenticated_as
from merchants.delivery import merchant_deliveries, merchant_delivery_retry
from merchants.delivery_serializers import (
    DeliveriesPageSerializer,
    DeliveriesQuerySerializer,
    DeliveryEnvelopeSerializer,
    DeliverySerializer,
    verification_log,
)
from merchants.examples import DELIVERIES, RETRIED
from merchants.views import MERCHANT_ID

DELIVERY_ID = OpenApiParameter(
    "deliveryId",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    pattern=rf"^{NUMBERED.pattern}$",
    description="The delivery_id, as the list of deliveries gives it.",
)


class DeliveryViewSet(Idempotent, MerchantTokenActions, viewsets.ViewSet):
    lookup_url_kwarg = "deliveryId"
    lookup_value_regex = "[^/]+"
    token_actions = ("list", "retry")

    def get_throttles(self) -> list[Any]:
        # Per merchant: the authenticated merchant is the throttle's principal.
        self.throttle_scope = "delivery_retry" if self.action == "retry" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="listMerchantDeliveries",
        summary="The merchant agent's webhook deliveries, with every attempt, and its "
        "endpoint's verification attempts",
        description="Newest first, `limit` at a time (pass next_cursor back as cursor for the "
        "next page), optionally only those in one `status`. Each delivery shows its event (the "
        "webhook-id it is sent under), where it stands, when it is tried next and each attempt: "
        "when, the HTTP status or the error, how long it took. `verification` shows the same of "
        "the endpoint's current verification (no Intent.Surge is delivered until it is "
        "verified), on every page. Never the signature headers nor the merchant's own answers. "
        "Only the merchant's own deliveries, with its token.",
        tags=["merchants"],
        parameters=[MERCHANT_ID, DeliveriesQuerySerializer],
        responses={
            200: DeliveriesPageSerializer,
            **errors({400: BAD_QUERY, 401: MISSING_TOKEN, 403: INVALID_TOKEN}),
        },
        examples=[DELIVERIES],
    )
    def list(self, request: Request, merchantId: str) -> Response:
        merchant = authenticated_as(request, merchantId)
        query = validated(DeliveriesQuerySerializer, request.query_params, source="query")
        page = merchant_deliveries(
            merchant=merchant,
            status=query.get("status"),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
        return Response(
            {
                "merchant_id": merchant.merchant_id,
                "verification": verification_log(merchant, page.verification_attempts),
                "count": len(page.deliveries),
                "deliveries": DeliverySerializer(page.deliveries, many=True).data,
                "next_cursor": page.next_cursor,
            }
        )

    @extend_schema(
        operation_id="retryMerchantDelivery",
        summary="Send a failed delivery again",
        description="For a delivery that failed for good (attempts exhausted, or refused while "
        "the endpoint was gone): one more attempt, due now, of the same event under the same "
        "webhook-id, so a receiver that processed it drops it. Should that attempt fail, the "
        "delivery resumes its retry schedule where it stopped, or fails again once past its "
        "8th attempt. Refused while nothing can be delivered to the merchant agent: "
        "deactivated, its endpoint not proven, or its deliveries off after a 410 Gone. "
        "Throttled per merchant (`delivery_retry` scope).",
        tags=["merchants"],
        parameters=[MERCHANT_ID, DELIVERY_ID],
        request=None,
        responses={
            202: DeliveryEnvelopeSerializer,
            **errors(
                {
                    401: MISSING_TOKEN,
                    403: either(
                        INVALID_TOKEN_ERROR.doc(),
                        MERCHANT_DEACTIVATED.doc("the merchant agent is deactivated"),
                    ),
                    404: DELIVERY_NOT_FOUND.doc(),
                    409: either(
                        DELIVERY_NOT_FAILED.doc(),
                        DELIVERY_RETRY_LIMIT.doc(),
                        ENDPOINT_UNVERIFIED.doc(),
                        DELIVERIES_DISABLED.doc(),
                    ),
                    429: THROTTLED,
                }
            ),
        },
        examples=[RETRIED],
    )
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, merchantId: str, deliveryId: str) -> Response:
        merchant = authenticated_as(request, merchantId)
        delivery = merchant_delivery_retry(merchant=merchant, delivery_id=deliveryId)
        return Response({"delivery": DeliverySerializer(delivery).data}, status=202)
