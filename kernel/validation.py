"""Request data validated by a serializer, or refused with the error envelope: 400
`invalid_parameter` for a query, `missing_fields` or `invalid_body` for a body."""

from collections.abc import Mapping
from typing import Any, TypeVar

from django.http import QueryDict
from django.utils.encoding import force_str
from rest_framework import serializers

from kernel.errors import (
    BODY_NOT_AN_OBJECT,
    INVALID_BODY,
    INVALID_PARAMETER,
    MISSING_FIELDS,
    REPEATED_PARAMETER,
    ApiError,
)

# --- Errors ------------------------------------------------------------------------------------


def flatten(detail: Any) -> list[str]:
    if isinstance(detail, Mapping):
        return [f"{key}: {message}" for key, value in detail.items() for message in flatten(value)]
    if isinstance(detail, list):
        return [message for item in detail for message in flatten(item)]
    return [force_str(detail)]


def _field_errors(detail: Any) -> dict[str, list[str]]:
    if isinstance(detail, Mapping):
        return {str(field): flatten(messages) for field, messages in detail.items()}
    return {"non_field_errors": flatten(detail)}


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
        return INVALID_PARAMETER(names=names, fields=fields)
    if missing_fields and _has_code(exc.detail, "required"):
        missing = (
            sorted(name for name, messages in exc.detail.items() if _has_code(messages, "required"))
            if isinstance(exc.detail, Mapping)
            else []
        )
        return MISSING_FIELDS(names=", ".join(missing), fields=fields)
    return INVALID_BODY(names=names, fields=fields)


S = TypeVar("S", bound=serializers.Serializer)


def validated(
    serializer_class: type[S], data: Any, *, source: str, missing_fields: bool = True
) -> dict[str, Any]:
    """Validate `data` with a serializer and return its validated data, or raise the envelope."""
    if source == "body" and not isinstance(data, Mapping):
        raise BODY_NOT_AN_OBJECT()
    if isinstance(data, QueryDict):
        # A repeated parameter is ambiguous: refuse it rather than silently keep one value.
        repeated = sorted(key for key, values in data.lists() if len(values) > 1)
        if repeated:
            raise REPEATED_PARAMETER(
                names=", ".join(repeated),
                fields={key: ["Given more than once."] for key in repeated},
            )
    serializer = serializer_class(data=data)
    try:
        serializer.is_valid(raise_exception=True)
    except serializers.ValidationError as exc:
        raise validation_error(exc, source=source, missing_fields=missing_fields) from None
    return dict(serializer.validated_data)


# Codes for the errors DRF and Django raise on their own.
