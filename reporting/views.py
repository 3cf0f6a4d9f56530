"""Attribution endpoints: the buy link, merchants' conversions, and the supply report API."""

from typing import Any

from django.http import HttpResponseRedirect
from django.http.response import HttpResponseBase
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.contract import BAD_QUERY, MISSING_TOKEN, THROTTLED, TOO_LARGE, errors, id_parameter
from kernel.errors import (
    CARD_NOT_FOUND,
    CONVERSION_CONFLICT,
    INVALID_BODY,
    INVALID_TOKEN,
    MATCH_TOKEN_NOT_ACCEPTED,
    MATCH_TOKEN_NOT_FOUND,
    MATCH_TOKEN_NOT_YOURS,
    MERCHANT_NOT_FOUND,
    MISSING_FIELDS,
    RECOMMENDATION_NOT_FOUND,
    SUPPLY_KEY_REQUIRED,
    SUPPLY_KEYS_NOT_CONFIGURED,
    either,
)
from kernel.idempotency_keys import Idempotent
from kernel.ids import REC
from kernel.jsonio import AnyAccept
from kernel.throttles import ScopeThrottle, client_address
from kernel.validation import validated
from merchants.auth import MerchantTokenActions
from merchants.auth import require_merchant as authenticated_as
from merchants.services import merchant_get
from reporting import dead_links, services
from reporting.auth import SupplyKeyAuthentication, SupplyKeyRequired
from reporting.examples import CONVERSION_REQUEST, CONVERSION_RESPONSE, REPORT_RESPONSE
from reporting.serializers import (
    AttributionReportSerializer,
    ConversionCreateSerializer,
    ConversionEnvelopeSerializer,
    ConversionSerializer,
    ReportQuerySerializer,
)

# The API lists this many channels, products and creators, best first.
REPORT_TOP = 20


class BuyLinkViewSet(viewsets.ViewSet):
    lookup_url_kwarg = "recId"  # path parameter names follow the interface
    lookup_value_regex = "[^/]+"
    # Browsers follow this link with Accept: text/html; the redirect must not depend on it.
    content_negotiation_class = AnyAccept
    throttle_scope = "buy_link"

    @extend_schema(
        operation_id="followBuyLink",
        summary="Follow a card's buy link: records the click, redirects to the shop",
        description="GET records one click, at most one per card and client address (an IPv6 "
        "/64 as one client, whatever its user agent) in 30 minutes, none for a known crawler or "
        "link previewer; HEAD answers the same redirect and records nothing (link previews and "
        "prefetchers). Throttled per client (`buy_link` scope).",
        tags=["cards"],
        parameters=[id_parameter("recId", REC, "The card's rec_id: `rec_` and 24 hex characters.")],
        responses={
            302: OpenApiResponse(
                description="Redirect to the product's shop URL with rec_id appended."
            ),
            **errors({404: CARD_NOT_FOUND.doc(), 429: THROTTLED}),
        },
    )
    def retrieve(self, request: Request, recId: str) -> HttpResponseRedirect:
        target = services.buy_link_follow(
            rec_id=recId,
            user_agent=request.headers.get("User-Agent", ""),
            referrer=request.headers.get("Referer", ""),
            client_address=client_address(request),
            count_click=request.method == "GET",
        )
        return HttpResponseRedirect(target)

    def handle_exception(self, exc: Exception) -> HttpResponseBase:  # type: ignore[override]
        """A shopper's browser follows this link: its errors are pages for people
        (reporting/dead_links.py), the envelope for programs. DRF passes any Django response
        through (finalize_response renders only its own)."""
        return dead_links.for_people(self.request, super().handle_exception(exc))


class ConversionViewSet(Idempotent, MerchantTokenActions, viewsets.ViewSet):
    token_actions = ("create",)
    throttle_scope = "conversions"

    @extend_schema(
        operation_id="recordConversion",
        summary="Record an order as the outcome of a card (rec_id) or a match token",
        description="Idempotent on the merchant's order_id: the same order with the same facts "
        "answers 200 with the recorded conversion; with different facts 409 "
        "`conversion_conflict`. rec_id and match_token_id, when both given, must name the same "
        "product. A match token counts for the merchant's own proposal or a catalog proposal "
        "(403 `match_token_not_yours` otherwise), and only once accepted (409 "
        "`match_token_not_accepted` otherwise). occurred_at may not be in the future beyond "
        "five minutes of clock skew, nor earlier than the card or token it credits.",
        tags=["attribution"],
        request=ConversionCreateSerializer,
        responses={
            201: OpenApiResponse(
                ConversionEnvelopeSerializer, description="The conversion is recorded."
            ),
            200: OpenApiResponse(
                ConversionEnvelopeSerializer,
                description="The same order with the same facts was recorded before.",
            ),
            **errors(
                {
                    400: either(
                        MISSING_FIELDS.doc("a required field is absent"),
                        INVALID_BODY.doc(
                            "a field is invalid, neither rec_id nor match_token_id is given, or "
                            "they name different products"
                        ),
                    )
                    + " `fields` names each.",
                    401: MISSING_TOKEN,
                    403: either(
                        INVALID_TOKEN.doc(),
                        MATCH_TOKEN_NOT_YOURS.doc(
                            "the match token is for another merchant's proposal"
                        ),
                    ),
                    404: f"`{MERCHANT_NOT_FOUND.code}`, `{RECOMMENDATION_NOT_FOUND.code}` or "
                    f"`{MATCH_TOKEN_NOT_FOUND.code}`: the merchant, the card (rec_id) or the "
                    "match token does not exist.",
                    409: either(CONVERSION_CONFLICT.doc(), MATCH_TOKEN_NOT_ACCEPTED.doc()),
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[CONVERSION_REQUEST, CONVERSION_RESPONSE],
    )
    def create(self, request: Request) -> Response:
        body = validated(ConversionCreateSerializer, request.data, source="body")
        merchant_get(merchant_id=body["merchant_agent_id"])  # 404 merchant_not_found before 403
        merchant = authenticated_as(request, body["merchant_agent_id"])
        result = services.conversion_record(
            merchant=merchant,
            order_id=body["order_id"],
            rec_id=body.get("rec_id"),
            match_token_id=body.get("match_token_id"),
            amount=body["amount"],
            currency=body["currency"],
            occurred_at=body["occurred_at"],
            quantity=body["quantity"],
        )
        return Response(
            {"conversion": ConversionSerializer(result.conversion).data},
            status=201 if result.created else 200,
        )


class AddressThrottle(ScopeThrottle):
    """Counts requests by client address alone, so it can run before any credential is judged."""

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AttributionReportViewSet(viewsets.ViewSet):
    authentication_classes = [SupplyKeyAuthentication]
    permission_classes = [SupplyKeyRequired]
    throttle_classes = [AddressThrottle]
    throttle_scope = "report"

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # DRF throttles after authentication, which would leave guesses at the key uncounted.
        super().check_throttles(request)
        super().initial(request, *args, **kwargs)

    def check_throttles(self, request: Request) -> None:
        """Already done, first thing, in initial()."""

    @extend_schema(
        operation_id="getAttributionReport",
        summary="Attribution figures: totals, rates, and breakdowns by day, channel, product "
        "and creator",
        description="Facts of the last `days` days, today included (UTC): cards issued, buy-link "
        "clicks, match sessions, accepted match tokens and conversions. click_through_rate is "
        "clicks / recommendations, conversion_rate conversions / clicks (null when the divisor "
        "is 0). gmv_by_currency sums the amounts of each currency apart; gmv_usd is its USD "
        "part; gmv_usd_total adds the currencies usd_rates prices, converted, and "
        "gmv_unconverted lists the ones without a rate, never counted as 0. A product's "
        "figures are credited to the creator of its best-selling video. Channels, products and "
        "creators: the best 20 by gmv_usd_total, conversions, clicks, then cards. 503 "
        "`supply_keys_not_configured` while the gateway has no supply key at all.",
        tags=["report"],
        parameters=[ReportQuerySerializer],
        responses={
            200: AttributionReportSerializer,
            **errors(
                {
                    400: BAD_QUERY,
                    401: SUPPLY_KEY_REQUIRED.doc(),
                    429: THROTTLED,
                    503: SUPPLY_KEYS_NOT_CONFIGURED.doc(),
                }
            ),
        },
        examples=[REPORT_RESPONSE],
    )
    def list(self, request: Request) -> Response:
        query = validated(ReportQuerySerializer, request.query_params, source="query")
        report = services.attribution_report(
            days=query["days"],
            channel=query["channel"],
            product_id=query["product_id"],
            top=REPORT_TOP,
        )
        return Response(report.as_dict())
