"""Rules of valid requests that JSON Schema cannot state: they depend on the clock, on settings,
on other fields, on how a binary float spells a decimal amount, or on what the gateway issued
before. The contract states each in a description and the gateway refuses a request breaking
one with 400; the contract fuzzing (test_fuzz.py) generates no positive case that breaks one
(negative ones still are)."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings as django_settings
from django.utils import timezone

from kernel.serializer_fields import METADATA_MAX_BYTES, serialized_size
from matching.serializers.fields import MAX_CONSTRAINT_CHARS, member_constraint
from reporting.models import CLOCK_SKEW


def _decimals(value: Any, places: int) -> bool:
    """Whether a JSON number has at most `places` decimal places, as the gateway reads it."""
    try:
        exponent = Decimal(str(value)).as_tuple().exponent
    except InvalidOperation:
        return False
    return isinstance(exponent, int) and exponent >= -places


def _moment(value: Any) -> datetime | None:
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _future(value: Any, *, allowance: timedelta = timedelta(0)) -> bool:
    moment = _moment(value)
    return moment is not None and moment > timezone.now() + allowance


def _budget(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("min") is None or value.get("max") is None:
        return True
    return bool(value["min"] <= value["max"])


def _metadata(value: Any) -> bool:
    return value is None or serialized_size(value) <= METADATA_MAX_BYTES


def _constraints(value: Any) -> bool:
    """An object's members as constraints ("key: value", the value in JSON) of at most 200
    characters each: the contract bounds the members' count, not the text each makes."""
    if not isinstance(value, dict):
        return True
    return all(
        len(member_constraint(key, member)) <= MAX_CONSTRAINT_CHARS for key, member in value.items()
    )


def _price_filter(value: Any) -> bool:
    return not isinstance(value, dict) or _budget(value.get("price"))


# Operation id -> (location, field, rule): the rule holds for the field's value when present.
NOT_IN_SCHEMA: dict[str, list[tuple[str, str, Any]]] = {
    "createIntent": [
        ("body", "budget_range", _budget),
        ("body", "constraints", _constraints),
        ("body", "metadata", _metadata),
    ],
    "createProposal": [
        ("body", "price", lambda value: value is None or _decimals(value, 2)),
        ("body", "valid_until", lambda value: value is None or _future(value)),
        ("body", "metadata", _metadata),
    ],
    "registerMerchant": [("body", "metadata", _metadata)],
    "updateMerchant": [("body", "metadata", _metadata)],
    "recordConversion": [
        ("body", "amount", lambda value: _decimals(value, 2)),
        ("body", "occurred_at", lambda value: not _future(value, allowance=CLOCK_SKEW)),
    ],
    "signIntentMandate": [
        (
            "body",
            "amount_limit",
            lambda value: _decimals(value, 4) and value <= django_settings.MANDATE_MAX_AMOUNT,
        ),
    ],
    # UCP's catalog: a price range's ends in order; a search's cursor is one a search
    # returned; a lookup asks for at most 50 ids.
    "searchCatalog": [
        ("body", "filters", _price_filter),
        ("body", "pagination", lambda value: "cursor" not in value),
    ],
    "lookupCatalog": [
        ("body", "filters", _price_filter),
        ("body", "ids", lambda value: len(set(value)) <= 50),
    ],
    "getCatalogProduct": [("body", "filters", _price_filter)],
    # A cursor is a next_cursor the feed returned: any other string is refused.
    "listIntentsForMerchant": [("query", "cursor", lambda value: False)],
    "listMerchantDeliveries": [("query", "cursor", lambda value: False)],
    "listIntentProposals": [("query", "cursor", lambda value: False)],
}
