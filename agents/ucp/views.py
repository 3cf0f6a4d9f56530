"""UCP over REST: the business profile at /.well-known/ucp, and the catalog's REST binding under
/ucp (agents/ucp/catalog.py answers). Each POST takes an Idempotency-Key (kernel/idempotency.py):
a retried search announces its intent once. Every error of these routes is in UCP's error shape
(`types/error_response.json`): the gateway's code and sentence as one error message, under the
same HTTP status and headers (Retry-After included) the REST API gives.

Each request is answered in the UCP release its platform speaks: the `ucp.version` of the
profile its UCP-Agent header names (agents/ucp/platforms.py), fetched once the request has
passed the throttles; without the header, in profile.UNDECLARED. An error that stops the
negotiation (the header, the profile, its version) is answered in the current release, the one
the gateway states as its own.

A lookup issues and records a card per product it answers: each id it asks for counts against
the client's `cards` allowance, as many requests of GET /v1/products/{id}/card would, so cards
are recorded no faster than that allowance lets one client ask for them (docs/agents.md)."""

from collections.abc import Callable, Mapping
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.ucp import catalog as ucp_catalog
from agents.ucp import platforms
from agents.ucp import profile as ucp
from agents.ucp.errors import (
    UCP_BAD_AGENT,
    UCP_BAD_CURSOR,
    UCP_PROFILE_MALFORMED,
    UCP_PROFILE_UNREACHABLE,
    UCP_TOO_MANY_IDS,
    UCP_VERSION_UNSUPPORTED,
)
from agents.ucp.serializers import (
    MAX_IDS,
    UcpErrorResponseSerializer,
    UcpGetProductSerializer,
    UcpLookupSerializer,
    UcpSearchSerializer,
)
from kernel.asyncviews import WaitingViewSet
from kernel.conditional import json_with_etag
from kernel.contract import TOO_LARGE
from kernel.errors import (
    INTENT_ENGINE_UNAVAILABLE,
    INVALID_BODY,
    THROTTLED,
    ApiError,
    either,
)
from kernel.handlers import exception_handler
from kernel.idempotency_keys import Idempotent
from kernel.jsonio import dumps
from kernel.throttles import ScopeThrottle, client_address
from kernel.validation import validated

NOT_STORED = {"Cache-Control": "no-store"}
BAD_REQUEST = either(
    INVALID_BODY.doc("the body is not a JSON object or a field is invalid (each is named)"),
    UCP_BAD_CURSOR.doc(),
    UCP_TOO_MANY_IDS.doc("more than 50 ids"),
    UCP_BAD_AGENT.doc(
        "the UCP-Agent header names no profile URL, or one that is not https or not at a public "
        "address"
    ),
)
UNUSABLE_PROFILE = either(UCP_PROFILE_MALFORMED.doc(), UCP_VERSION_UNSUPPORTED.doc())
UCP_ERRORS = "Errors are UCP error responses (types/error_response.json) with the same codes."
UCP_AGENT = OpenApiParameter(
    "UCP-Agent",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description='The platform\'s profile, `profile="https://..."` (RFC 8941): the answer is in '
    "the UCP release its `ucp.version` declares, 2026-08-25 or 2026-04-08 (2026-04-08 "
    "without the header, or with it empty).",
)
ATTRIBUTE = "ucp_release"  # the release negotiated for a request, kept on it for its errors


async def negotiated(request: Request) -> str:
    """The release to answer `request` in (module docstring). Raises ApiError."""
    header = request.headers.get("UCP-Agent", "")
    if not header.strip():  # absent, or empty: an RFC 8941 dictionary of no member
        return ucp.UNDECLARED
    setattr(request, ATTRIBUTE, ucp.CURRENT)  # should the negotiation fail
    release = await platforms.declared_release(platforms.profile_url(header))
    setattr(request, ATTRIBUTE, release)
    return release


def _answered_in(request: Request) -> str:
    """The release of an error's answer: the negotiated one, or, before the negotiation, the
    one this process knows the declared profile speaks."""
    release = getattr(request, ATTRIBUTE, None)
    if release is not None:
        return str(release)
    header = request.headers.get("UCP-Agent", "")
    try:
        url = platforms.profile_url(header) if header.strip() else None
    except ApiError:
        url = None
    return (platforms.remembered(url) if url else None) or ucp.UNDECLARED


def _ucp_errors(capability: str) -> Callable[[Exception, Mapping[str, Any]], Response | None]:
    """DRF's exception handler for a UCP route: the REST API's error, in UCP's shape."""

    def handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
        response = exception_handler(exc, context)
        if response is None:
            return None
        error = response.data
        content = error["message"]
        if fields := error.get("fields"):
            content += " " + " ".join(
                f"{name}: {'; '.join(messages)}" for name, messages in fields.items()
            )
        release = _answered_in(context["request"])
        response.data = ucp.error_response(
            capability, response.status_code, error["error"], content, release
        )
        return response

    return handler


def _described(
    operation_id: str, summary: str, description: str, request: Any, *, engine: bool = False
) -> Any:
    def error(text: str) -> OpenApiResponse:
        return OpenApiResponse(UcpErrorResponseSerializer, description=text)

    unavailable = {503: error(INTENT_ENGINE_UNAVAILABLE.doc())} if engine else {}
    return extend_schema(
        operation_id=operation_id,
        summary=summary,
        description=f"{description} {UCP_ERRORS}",
        tags=["ucp"],
        request=request,
        parameters=[UCP_AGENT],
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="UCP's answer."),
            400: error(BAD_REQUEST),
            413: error(TOO_LARGE),
            422: error(UNUSABLE_PROFILE),
            424: error(UCP_PROFILE_UNREACHABLE.doc()),
            429: error(THROTTLED.doc()),
            **unavailable,
        },
    )


class UcpProfileView(APIView):
    release = ucp.CURRENT

    @extend_schema(
        operation_id="getUcpProfile",
        summary="The UCP business profile",
        description="UCP 2026-08-25: the shopping service over REST (endpoint /ucp) and MCP "
        "(/mcp), the catalog search and lookup capabilities, no payment handler (the registry "
        "is empty: checkout stays with the merchants), the signing keys (`keys`, JWK) and, in "
        "`supported_versions`, the profile of release 2026-04-08. Served with an ETag and "
        "Cache-Control.",
        tags=["discovery"],
        responses={200: OpenApiTypes.OBJECT, 304: None},
    )
    def get(self, request: Request) -> HttpResponse:
        body = dumps(ucp.profile(self.release))
        return json_with_etag(request, body, max_age_s=ucp.PROFILE_MAX_AGE_S)


class UcpEarlierProfileView(UcpProfileView):
    release = ucp.EARLIER[0]

    @extend_schema(
        operation_id="getUcpProfile20260408",
        summary="The UCP business profile of release 2026-04-08",
        description="The profile /.well-known/ucp names for UCP 2026-04-08 in "
        "`supported_versions`: the same service and capabilities in that release, the signing "
        "keys as `signing_keys`. Served with an ETag and Cache-Control.",
        tags=["discovery"],
        responses={200: OpenApiTypes.OBJECT, 304: None},
    )
    def get(self, request: Request) -> HttpResponse:
        return super().get(request)


class CatalogSearchView(Idempotent, WaitingViewSet):
    error_serializer = UcpErrorResponseSerializer
    throttle_scope = "recommend"

    def get_exception_handler(self) -> Any:
        return _ucp_errors(ucp.SEARCH)

    @_described(
        "searchCatalog",
        "UCP catalog search",
        "UCP's dev.ucp.shopping.catalog.search: the query (with context.intent) goes through "
        "the intent engine and the tiers as in recommend, filters.categories and "
        "filters.price (cents) are rules, context.address_country keeps to products sold "
        "there; pages by cursor. Each product's url is its attributed buy link.",
        UcpSearchSerializer,
        engine=True,
    )
    async def create(self, request: Request) -> Response:
        release = await negotiated(request)
        asked = validated(UcpSearchSerializer, request.data, source="body")
        answer = await ucp_catalog.search_catalog(
            asked, caller=client_address(request), release=release
        )
        return Response(answer, headers=NOT_STORED)


class CatalogLookupView(Idempotent, WaitingViewSet):
    error_serializer = UcpErrorResponseSerializer
    throttle_scope = "cards"

    def get_exception_handler(self) -> Any:
        return _ucp_errors(ucp.LOOKUP)

    @_described(
        "lookupCatalog",
        "UCP catalog lookup",
        "UCP's dev.ucp.shopping.catalog.lookup: products by product id or variant id, each "
        "with a fresh attributed buy link; ids that name none are info messages `not_found`. "
        "Each id counts as one request against the `cards` rate limit: a lookup that does not "
        "fit what is left of it is 429, and records nothing.",
        UcpLookupSerializer,
    )
    async def create(self, request: Request) -> Response:
        release = await negotiated(request)
        asked = validated(UcpLookupSerializer, request.data, source="body")
        return Response(await sync_to_async(self._looked_up)(request, asked, release))

    def _looked_up(self, request: Request, asked: dict[str, Any], release: str) -> dict[str, Any]:
        """The lookup's answer, once its ids (beyond the one the request counted) fit the
        client's `cards` allowance. Raises Throttled (429) before anything is recorded."""
        ids = min(len(set(asked["ids"])), MAX_IDS)
        throttle = ScopeThrottle()
        if not throttle.allow_more(request, self, ids - 1):
            self.throttled(request, throttle.wait())
        return ucp_catalog.lookup_catalog(asked, release)


class CatalogProductView(Idempotent, WaitingViewSet):
    error_serializer = UcpErrorResponseSerializer
    throttle_scope = "cards"

    def get_exception_handler(self) -> Any:
        return _ucp_errors(ucp.LOOKUP)

    @_described(
        "getCatalogProduct",
        "UCP product detail",
        "UCP's get_product: one product's full detail with a fresh attributed buy link; an id "
        "that names none answers 200 with ucp.status `error` and the message `not_found`.",
        UcpGetProductSerializer,
    )
    async def create(self, request: Request) -> Response:
        release = await negotiated(request)
        asked = validated(UcpGetProductSerializer, request.data, source="body")
        return Response(await sync_to_async(ucp_catalog.get_product)(asked, release))
