"""Serializer fields the apps share: JSON strings and numbers as the contract states them,
query integers and booleans, channels, a caller's bounded metadata."""

import json
import re
from decimal import Decimal
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.extensions import (
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.utils import html


@extend_schema_field({"type": ["object", "null"], "additionalProperties": {}})
class NullableObjectField(serializers.JSONField):
    """A JSON object or null, in a response. (A nullable JSONField would be described as
    `oneOf: [{}, {"type": "null"}]`, which no null satisfies: null matches both.)"""


class JsonStringField(serializers.CharField):
    """A string in a JSON body: numbers and booleans are refused, where DRF would cast them. Its
    length is bounded as it was sent, as the contract's maxLength states it: DRF would measure
    it trimmed, and take 2001 characters whose last is a space for 2000."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return str(super().to_internal_value(data))


# A character that DRF's trimming (str.strip()) keeps: not one of Python's white space, which
# holds the ASCII separators U+001C-U+001F and U+0085 that a JSON Schema `\S` (ECMA-262) allows.
NOT_SPACE = (
    "[^\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029"
    "\\u202f\\u205f\\u3000]"
)


class NonBlankStringExtension(OpenApiSerializerFieldExtension):
    """A request string that DRF trims may not be blank: one of only spaces is refused like an
    empty one, so the contract asks for a character the trimming keeps (`pattern`: NOT_SPACE)."""

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
            schema["pattern"] = NOT_SPACE
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


class JsonIntegerField(serializers.IntegerField):
    """An integer in a JSON body: a JSON number without a fraction (7, or 7.0, which JSON Schema
    counts as an integer too), never a string or a boolean (DRF would read "7" and true as 7)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


def given_empty(field: serializers.Field, data: Any) -> bool:
    """Whether a query string gives `field` with nothing after its `=` (`limit=`)."""
    return html.is_html_input(data) and field.field_name in data and data[field.field_name] == ""


class QueryIntegerField(serializers.IntegerField):
    """An integer query value in ASCII digits only: "2.0" and full-width or Arabic-Indic digits
    are refused, where DRF's own IntegerField would read them as numbers. Given empty
    (`limit=`) it is refused too: DRF would take an optional one as absent, and its default,
    where the contract asks for an integer."""

    def get_value(self, dictionary: Any) -> Any:
        return "" if given_empty(self, dictionary) else super().get_value(dictionary)

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not re.fullmatch(r"-?[0-9]{1,9}", data):
            self.fail("invalid")
        return super().to_internal_value(data)


class QueryBooleanField(serializers.BooleanField):
    """A boolean query value (`true` or `false`); given empty (`include_expired=`) it is refused,
    where DRF would take it as absent, as for a query integer."""

    def get_value(self, dictionary: Any) -> Any:
        return "" if given_empty(self, dictionary) else super().get_value(dictionary)


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


class PatternField(serializers.RegexField):
    """A string that matches `regex` as it was sent, whole, as the contract's pattern states
    it: DRF's RegexField would trim it first (Python's whitespace holds the ASCII separators
    U+001C-U+001F), so "us\\x1e" would pass a pattern that refuses it. The regex ends in \\Z,
    not $ (which would allow a final newline); the contract shows it as $."""

    def __init__(self, regex: str, **kwargs: Any) -> None:
        if not (regex.startswith("^") and regex.endswith("\\Z")):
            raise ValueError(f"anchor the pattern at both ends, ^ and \\Z: {regex}")
        super().__init__(regex, trim_whitespace=False, **kwargs)


CHANNEL_PATTERN = r"^[A-Za-z0-9._:-]{1,64}\Z"


class ChannelField(PatternField):
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


METADATA_MAX_BYTES = 16 * 1024


def serialized_size(value: Any) -> int:
    """Bytes of `value` as compact JSON in UTF-8."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


class MetadataField(serializers.DictField):
    """A caller's own `metadata`, stored and served back as it came (publicly, for intents and
    proposals): a JSON object of at most METADATA_MAX_BYTES as compact JSON, 400 beyond."""

    default_error_messages = {
        "too_large": "metadata may hold at most 16 KB (16384 bytes) as compact JSON.",
    }

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "help_text",
            "Your own data, kept and returned as is: a JSON object of at most 16 KB (16384 "
            "bytes) as compact JSON; larger is refused with 400.",
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value: dict[str, Any] = super().to_internal_value(data)
        if serialized_size(value) > METADATA_MAX_BYTES:
            self.fail("too_large")
        return value
