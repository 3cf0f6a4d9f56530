"""Fields the matching serializers share: tags, constraints, budgets, JSON integers."""

import json
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kernel.serializer_fields import (
    JsonNumberField,
    PatternField,
)

MAX_TAGS = 20


class JsonIntegerField(serializers.IntegerField):
    """An integer in a JSON body: a JSON number without a fraction (7 or 7.0, as JSON Schema
    reads integers), never a string or boolean."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


MAX_CONSTRAINTS = 20
MAX_CONSTRAINT_CHARS = 200


@extend_schema_field(
    {
        "oneOf": [
            {
                "type": "array",
                "items": {"type": "string", "maxLength": MAX_CONSTRAINT_CHARS},
                "maxItems": MAX_CONSTRAINTS,
            },
            {
                "type": "object",
                "additionalProperties": True,
                "maxProperties": MAX_CONSTRAINTS,
            },
            {"type": "string", "maxLength": MAX_CONSTRAINT_CHARS},
        ]
    }
)
class ConstraintsField(serializers.Field):
    """Constraints as an array of strings, an object, or one string; stored as a list of strings,
    the intent's `constraints` as the interface defines them.

    An object becomes one "key: value" string per member: a string value as it is, any other in
    JSON's own syntax, since agents and merchants read JSON: {"material": "leather",
    "waterproof": true, "size": 42} becomes ["material: leather", "waterproof: true", "size: 42"].
    The bounds hold for what was sent (before blanks and repeats are dropped), as the contract
    states them: at most 20 items or members, each at most 200 characters.
    """

    default_error_messages = {
        "invalid": "Give an array of strings, an object, or a string.",
        "too_many": "Give at most 20 constraints of at most 200 characters each.",
    }

    def to_internal_value(self, data: Any) -> list[str]:
        if isinstance(data, str):
            items = [data]
        elif isinstance(data, dict):
            items = [member_constraint(key, value) for key, value in data.items()]
        elif isinstance(data, list) and all(isinstance(item, str) for item in data):
            items = data
        else:
            self.fail("invalid")
        if len(items) > MAX_CONSTRAINTS or any(len(item) > MAX_CONSTRAINT_CHARS for item in items):
            self.fail("too_many")
        return list(dict.fromkeys(item.strip() for item in items if item.strip()))

    def to_representation(self, value: list[str]) -> list[str]:
        return value


def member_constraint(key: str, value: Any) -> str:
    """An object member as a constraint, "key: value": a string value as it is, anything else as
    JSON (true, not True)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"{key}: {text}"


class BudgetRangeSerializer(serializers.Serializer):
    min = JsonNumberField(
        min_value=0, max_value=1e9, required=False, allow_null=True, help_text="Not above max."
    )
    max = JsonNumberField(
        min_value=0, max_value=1e9, required=False, allow_null=True, help_text="Not below min."
    )
    currency = PatternField(
        r"^[A-Za-z]{3}\Z", required=False, allow_null=True, help_text="ISO 4217 code."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        low, high = attrs.get("min"), attrs.get("max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"min": ["min must not exceed max."]})
        currency = attrs.get("currency")
        return {"min": low, "max": high, "currency": currency.upper() if currency else None}


def clean_tags(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tag.strip().lower() for tag in tags if tag.strip()))
