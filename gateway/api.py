"""Conventions every endpoint shares: the error envelope, typed ids, JSON in and out, throttles.

Every error leaves the gateway as one flat object, produced here and nowhere else:

    {"error": "<code>", "message": "<sentence for a person>", "fields": {...}}

`fields` appears only on validation errors and maps each offending field to its messages.
"""

import logging
import re
import secrets
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any, TypeVar

import orjson
from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.validators import RegexValidator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.utils.encoding import force_str
from drf_spectacular.extensions import (
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from redis.exceptions import RedisError
from rest_framework import exceptions, serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

logger = logging.getLogger(__name__)


# --- Identifiers -------------------------------------------------------------------------------

# Typed prefixes of the ids the gateway mints (DESIGN.md section 4).
REC, INTENT, PROPOSAL, MATCH_SESSION, MATCH_TOKEN, MANDATE, EVENT, REQUEST, CONVERSION = (
    "rec",
    "int",
    "prp",
    "mss",
    "mtk",
    "mdt",
    "evt",
    "req",
    "cnv",
)


def new_id(prefix: str) -> str:
    """Mint an unguessable typed id: the prefix, an underscore and 24 hex characters (96 bits)."""
    return f"{prefix}_{secrets.token_hex(12)}"


def is_minted(prefix: str, value: str) -> bool:
    """Whether `value` has the shape of an id minted with `prefix`."""
    return (
        len(value) == len(prefix) + 25
        and re.fullmatch(rf"{prefix}_[0-9a-f]{{24}}", value) is not None
    )


R = TypeVar("R")


def find_minted(queryset: "QuerySet[Any, R]", prefix: str, value: str, missing: "ApiError") -> R:
    """The row whose primary key is `value`, or raise `missing`.

    The id's minted shape is checked before any query, so no stray byte of a path (a NUL, which
    PostgreSQL refuses) ever reaches the database.
    """
    row = queryset.filter(pk=value).first() if is_minted(prefix, value) else None
    if row is None:
        raise missing
    return row


# --- Errors ------------------------------------------------------------------------------------


class ApiError(exceptions.APIException):
    """An error the API reports on purpose, with its status, code and sentence."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        fields: Mapping[str, list[str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.status_code = status
        self.code = code
        self.message = message
        self.fields = dict(fields) if fields else None
        self.headers = dict(headers or {})


def not_found(code: str, message: str) -> ApiError:
    return ApiError(404, code, message)


class PayloadTooLarge(ApiError):
    def __init__(self) -> None:
        limit_kb = settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024
        super().__init__(
            413, "payload_too_large", f"The request body is larger than {limit_kb} KB."
        )


def _flatten(detail: Any) -> list[str]:
    if isinstance(detail, Mapping):
        return [f"{key}: {message}" for key, value in detail.items() for message in _flatten(value)]
    if isinstance(detail, list):
        return [message for item in detail for message in _flatten(item)]
    return [force_str(detail)]


def _field_errors(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, Mapping):
        return {str(field): _flatten(messages) for field, messages in detail.items()}
    return {"non_field_errors": _flatten(detail)}


def _has_code(detail: Any, code: str) -> bool:
    if isinstance(detail, Mapping):
        return any(_has_code(value, code) for value in detail.values())
    if isinstance(detail, list):
        return any(_has_code(item, code) for item in detail)
    return getattr(detail, "code", None) == code


def validation_error(
    exc: serializers.ValidationError, *, source: str, missing_fields: bool = True
) -> ApiError:
    """Turn a serializer's errors into the envelope.

    `source` is "query" for query parameters (400 `invalid_parameter`) or "body" for a request
    body (400 `missing_fields` when a required field is absent, else `invalid_body`). Where the
    interface names `invalid_body` for every bad body (mandate signing), pass
    `missing_fields=False`.
    """
    fields = _field_errors(exc.detail)
    names = ", ".join(sorted(fields))
    if source == "query":
        return ApiError(
            400, "invalid_parameter", f"Invalid query parameter: {names}.", fields=fields
        )
    if missing_fields and _has_code(exc.detail, "required"):
        missing = (
            sorted(name for name, messages in exc.detail.items() if _has_code(messages, "required"))
            if isinstance(exc.detail, Mapping)
            else []
        )
        return ApiError(
            400,
            "missing_fields",
            f"Required fields are missing: {', '.join(missing)}.",
            fields=fields,
        )
    return ApiError(400, "invalid_body", f"Invalid request body: {names}.", fields=fields)


S = TypeVar("S", bound=serializers.Serializer)


def validated(
    serializer_class: type[S], data: Any, *, source: str, missing_fields: bool = True
) -> dict[str, Any]:
    """Validate `data` with a serializer and return its validated data, or raise the envelope."""
    if source == "body" and not isinstance(data, Mapping):
        raise ApiError(400, "invalid_body", "The request body must be a JSON object.")
    if isinstance(data, QueryDict):
        # A repeated parameter is ambiguous: refuse it rather than silently keep one value.
        repeated = sorted(key for key, values in data.lists() if len(values) > 1)
        if repeated:
            raise ApiError(
                400,
                "invalid_parameter",
                f"Give each query parameter once: {', '.join(repeated)}.",
                fields={key: ["Given more than once."] for key in repeated},
            )
    serializer = serializer_class(data=data)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        raise validation_error(exc, source=source, missing_fields=missing_fields) from None
    return dict(serializer.validated_data)


# Codes for the errors DRF and Django raise on their own.
_DRF_CODES: dict[type[exceptions.APIException], tuple[str, str | None]] = {
    exceptions.ParseError: ("invalid_body", None),
    exceptions.NotAuthenticated: ("unauthorized", "Authentication credentials were not provided."),
    exceptions.AuthenticationFailed: ("unauthorized", None),
    exceptions.PermissionDenied: ("forbidden", None),
    exceptions.NotFound: ("not found", "The requested resource does not exist."),
    exceptions.MethodNotAllowed: ("method_not_allowed", None),
    exceptions.NotAcceptable: ("not_acceptable", None),
    exceptions.UnsupportedMediaType: ("unsupported_media_type", None),
    exceptions.Throttled: ("throttled", None),
}


def error_body(
    code: str, message: str, fields: Mapping[str, list[str]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"error": code, "message": message}
    if fields:
        body["fields"] = dict(fields)
    return body


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF's exception handler: every error as the flat envelope, never a stack trace."""
    # Imported here: rest_framework.views reads the renderer setting, which names this module.
    from rest_framework.views import set_rollback

    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None  # a bug: Django's handler500 answers with the envelope and logs it

    headers: dict[str, str] = {}
    if isinstance(exc, ApiError):
        body = error_body(exc.code, exc.message, exc.fields)
        headers.update(exc.headers)
    elif isinstance(exc, serializers.ValidationError):
        api_error = validation_error(exc, source="body")
        body = error_body(api_error.code, api_error.message, api_error.fields)
    else:
        code, message = next(
            (value for kind, value in _DRF_CODES.items() if isinstance(exc, kind)),
            ("error", None),
        )
        body = error_body(code, message or " ".join(_flatten(exc.detail)))
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
    wait = getattr(exc, "wait", None)
    if wait is not None:
        headers["Retry-After"] = str(max(1, int(wait + 0.999)))
    set_rollback()
    return Response(body, status=exc.status_code, headers=headers)


# Django-level handlers, for errors raised outside DRF views (unknown paths, bad hosts, bugs).


def _json_error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(error_body(code, message), status=status)


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if isinstance(exception, RequestDataTooBig):
        error = PayloadTooLarge()
        return _json_error(error.status_code, error.code, error.message)
    return _json_error(400, "bad_request", "The request could not be understood.")


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _json_error(403, "forbidden", "You do not have permission to perform this action.")


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _json_error(404, "not found", "The requested resource does not exist.")


def handler500(request: HttpRequest) -> HttpResponse:
    return _json_error(500, "internal_error", "The gateway failed to answer; it has been logged.")


# --- JSON in and out ---------------------------------------------------------------------------


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(data: Any) -> bytes:
    """Serialize to JSON bytes with orjson (Decimals as numbers, datetimes as ISO 8601)."""
    return orjson.dumps(data, default=_default, option=orjson.OPT_UTC_Z)


class OrjsonRenderer(BaseRenderer):
    """Render responses with orjson: plain dicts in, JSON bytes out."""

    media_type = "application/json"
    format = "json"
    charset = None

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        return dumps(data)


class AnyAccept(BaseContentNegotiation):
    """Answer whatever the client accepts: for links that browsers follow (Accept: text/html)."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser:
        return next(iter(parsers))

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


MAX_JSON_DEPTH = 32


def json_problem(value: Any) -> str | None:
    """Why a parsed JSON body cannot be stored, or None.

    Every body may end up in a JSON column and be served again: nesting deeper than
    MAX_JSON_DEPTH could be stored but not rendered, and PostgreSQL refuses NUL characters.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "Strings must not contain NUL characters."
        elif isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                return f"JSON must not nest deeper than {MAX_JSON_DEPTH} levels."
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((child, depth + 1) for child in item.values())
            else:
                stack.extend((child, depth + 1) for child in item)
    return None


class OrjsonParser(BaseParser):
    """Parse JSON bodies with orjson, reading at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes.

    DRF's own JSON parser reads the stream without that bound, so a large body would be read
    whole into memory before anything refused it.
    """

    media_type = "application/json"

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise exceptions.UnsupportedMediaType(
                media_type or self.media_type, f"Unsupported charset {encoding!r}."
            )
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise PayloadTooLarge()
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise exceptions.ParseError(f"The request body is not valid JSON: {exc}.") from None
        problem = json_problem(data)
        if problem:
            raise ApiError(400, "invalid_body", problem)
        return data


# --- Throttles ---------------------------------------------------------------------------------


class ScopeThrottle(ScopedRateThrottle):
    """A per-client throttle of the view's `throttle_scope` (rates in REST_FRAMEWORK settings).

    Rates are read at request time so that `THROTTLE_RATES` overrides in tests apply.
    """

    def get_rate(self) -> str | None:
        rates: Mapping[str, str | None] = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
        return rates.get(self.scope) if self.scope else None

    def allow_request(self, request: Any, view: Any) -> bool:
        # Throttles live in the cache (Redis when configured). A cache outage must not turn
        # every request into a 500: the gateway answers unthrottled until the cache is back.
        try:
            return super().allow_request(request, view)
        except RedisError as exc:
            logger.warning("cache unavailable, %s requests unthrottled: %s", self.scope, exc)
            return True


# --- Shared serializers ------------------------------------------------------------------------


class ErrorSerializer(serializers.Serializer):
    """The error envelope: every error of the gateway has this shape."""

    error = serializers.CharField(help_text="Machine-readable error code.")
    message = serializers.CharField(help_text="A sentence for a person.")
    # The metaclass moves declared fields off the class, so this shadows nothing at run time.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Present on validation errors: each offending field and its messages.",
    )


def errors(described: Mapping[int, str]) -> dict[int, OpenApiResponse]:
    """An operation's error responses for the contract: each status with the envelope and a
    description naming the codes it carries."""
    return {
        status: OpenApiResponse(ErrorSerializer, description=text)
        for status, text in described.items()
    }


# Descriptions of the errors many operations share.
THROTTLED = "`throttled`: too many requests from this client; retry after `Retry-After` seconds."
TOO_LARGE = "`payload_too_large`: the request body is larger than 256 KB."
BAD_QUERY = (
    "`invalid_parameter`: a query value is missing, repeated, out of range or malformed; "
    "`fields` names each."
)
# Descriptions of errors, not secrets (S105).
MISSING_TOKEN = "`missing registration token`: no `X-Merchant-Token` header."  # noqa: S105
INVALID_TOKEN = "`invalid registration token`: the token is unknown or another merchant's."  # noqa: S105


def id_parameter(name: str, prefix: str, description: str) -> OpenApiParameter:
    """A path parameter holding an id the gateway minted with `prefix` (see `new_id`)."""
    return OpenApiParameter(
        name,
        OpenApiTypes.STR,
        OpenApiParameter.PATH,
        pattern=rf"^{prefix}_[0-9a-f]{{24}}$",
        description=description,
    )


# A request body that must carry at least one of `at_least_one_of` as a non-null string. The
# serializer's `validate` enforces it; the contract states it as an `anyOf`, so a body with none
# of them is invalid by the schema too. (No docstring: it would become the bodies' description.)
class AtLeastOneOfSerializer(serializers.Serializer):
    at_least_one_of: tuple[str, ...] = ()


class AtLeastOneOfExtension(OpenApiSerializerExtension):
    target_class = AtLeastOneOfSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        if direction == "request":
            schema["anyOf"] = [
                {"required": [name], "properties": {name: {"type": "string"}}}
                for name in self.target.at_least_one_of
            ]
        return schema


@extend_schema_field({"type": ["object", "null"], "additionalProperties": {}})
class NullableObjectField(serializers.JSONField):
    """A JSON object or null, in a response. (A nullable JSONField would be described as
    `oneOf: [{}, {"type": "null"}]`, which no null satisfies: null matches both.)"""


class JsonStringField(serializers.CharField):
    """A string in a JSON body: numbers and booleans are refused, where DRF would cast them."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class NonBlankStringExtension(OpenApiSerializerFieldExtension):
    """A request string that DRF trims may not be blank: one of only spaces is refused like an
    empty one, so the contract asks for a non-space character (`pattern: \\S`)."""

    target_class = JsonStringField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        field = self.target
        schema: dict[str, Any] = auto_schema._map_serializer_field(
            field, direction, bypass_extensions=True
        )
        # drf-spectacular makes an extension's schema nullable itself when the field allows null.
        if isinstance(schema.get("type"), list):
            types = [kind for kind in schema["type"] if kind != "null"]
            schema["type"] = types[0] if len(types) == 1 else types
        if (
            direction == "request"
            and field.trim_whitespace
            and not field.allow_blank
            and "pattern" not in schema
            # drf-spectacular adds the pattern of a RegexValidator afterwards, unless one is set.
            and not any(isinstance(check, RegexValidator) for check in field.validators)
        ):
            schema["pattern"] = r"\S"
        return schema


class JsonNumberField(serializers.FloatField):
    """A number in a JSON body: booleans and strings are refused, where DRF would cast them."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return float(super().to_internal_value(data))


class JsonDecimalField(serializers.DecimalField):
    """A money amount in a JSON body: a JSON number, never a string or a boolean; -0 reads as 0."""

    def to_internal_value(self, data: Any) -> Decimal:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        value: Decimal = super().to_internal_value(data)
        return value + 0  # a negative zero becomes a plain zero


class QueryIntegerField(serializers.IntegerField):
    """An integer query value in ASCII digits only: "2.0" and full-width or Arabic-Indic digits
    are refused, where DRF's own IntegerField would read them as numbers."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not re.fullmatch(r"-?[0-9]{1,9}", data):
            self.fail("invalid")
        return super().to_internal_value(data)


def limit_field(*, default: int | None, maximum: int = 10) -> QueryIntegerField:
    """A `limit` query value from 1 to `maximum`: 400 outside, never a silent clamp."""
    if default is None:
        return QueryIntegerField(
            min_value=1, max_value=maximum, required=False, help_text=f"1 to {maximum}."
        )
    return QueryIntegerField(
        min_value=1,
        max_value=maximum,
        default=default,
        help_text=f"1 to {maximum}, default {default}.",
    )


CHANNEL_PATTERN = r"^[A-Za-z0-9._:-]{1,64}$"


class ChannelField(serializers.RegexField):
    """A channel hint: a string of 1-64 of A-Z a-z 0-9 . _ : -; a JSON number is refused,
    where DRF would cast it to a string."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


def channel_field() -> ChannelField:
    return ChannelField(
        CHANNEL_PATTERN,
        required=False,
        allow_null=True,
        default=None,
        help_text="Optional hint naming the calling client: 1-64 of A-Z a-z 0-9 . _ : -",
        error_messages={"invalid": "Use 1-64 characters of A-Z a-z 0-9 . _ : -"},
    )
