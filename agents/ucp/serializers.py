"""The requests of UCP's catalog operations (`catalog_search.json`, `catalog_lookup.json`), as
the gateway validates them: every field UCP defines is checked for its type and bounds, fields
UCP leaves open to extensions are accepted and ignored, and a request no search can answer is
refused with a clear 400 (in UCP's error shape: agents/ucp/views.py). Fields named as UCP names
them (`context`, `label`) shadow attributes of DRF's classes only for the type checker: DRF's
serializer metaclass takes declared fields off the class."""

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers

from kernel.serializer_fields import JsonIntegerField, JsonStringField
from matching.engine.resolution import MAX_INTENT_CHARS

MAX_PAGE = 20  # UCP: a page of at least 10 SHOULD be accepted; larger ones are clamped
MAX_IDS = 50  # one lookup's identifiers; more is UCP's `request_too_large`
MAX_CATEGORIES = 20
MAX_CURSOR_CHARS = 4096
# The highest price a catalog product can carry (catalog.Product.price_usd: 12 digits, 2 of them
# cents): a filter beyond it keeps every product, and a number much larger is no price at all.
MAX_PRICE_CENTS = 10**12 - 1


class UcpContextSerializer(serializers.Serializer):
    address_country = JsonStringField(
        max_length=64,
        required=False,
        help_text="ISO 3166-1 alpha-2 code (e.g. US): only products sold there. Other forms "
        "(alpha-3, names) are accepted and not used.",
    )
    address_region = JsonStringField(
        max_length=120, required=False, help_text="Accepted; the catalog is sold by country."
    )
    postal_code = JsonStringField(max_length=32, required=False, help_text="Accepted.")
    intent = JsonStringField(
        max_length=MAX_INTENT_CHARS,
        required=False,
        help_text="What the shopper is after, in their words: read with the query.",
    )
    language = JsonStringField(max_length=35, required=False, help_text="Accepted.")
    currency = serializers.RegexField(
        r"^[A-Z]{3}$",
        required=False,
        help_text="ISO 4217 code of the price filter. Prices are in USD: a price filter in "
        "another currency is not applied (a message says so).",
        error_messages={"invalid": "Give an ISO 4217 code in capitals, e.g. USD."},
    )
    eligibility = serializers.ListField(
        child=JsonStringField(max_length=200),
        max_length=20,
        required=False,
        help_text="Accepted; no claim changes a price here.",
    )


class UcpPriceFilterSerializer(serializers.Serializer):
    min = JsonIntegerField(
        min_value=0,
        max_value=MAX_PRICE_CENTS,
        required=False,
        help_text="Lowest price, in cents (ISO 4217 minor units).",
    )
    max = JsonIntegerField(
        min_value=0,
        max_value=MAX_PRICE_CENTS,
        required=False,
        help_text="Highest price, in cents (ISO 4217 minor units).",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        low, high = attrs.get("min"), attrs.get("max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError("min must not be above max.")
        return attrs


class UcpFiltersSerializer(serializers.Serializer):
    categories = serializers.ListField(
        child=JsonStringField(max_length=120),
        max_length=MAX_CATEGORIES,
        required=False,
        help_text="Only products in any of these categories (a product's `categories` values).",
    )
    price = UcpPriceFilterSerializer(required=False)


class UcpPaginationSerializer(serializers.Serializer):
    cursor = JsonStringField(
        max_length=MAX_CURSOR_CHARS,
        required=False,
        help_text="The cursor of the previous page's answer, with the same search.",
    )
    limit = JsonIntegerField(
        min_value=1,
        required=False,
        default=10,
        help_text=f"Page size, default 10; larger than {MAX_PAGE} is served as {MAX_PAGE}.",
    )


def _object() -> serializers.DictField:
    return serializers.DictField(required=False, help_text="Accepted; not used.")


class UcpSearchSerializer(serializers.Serializer):
    query = JsonStringField(
        max_length=MAX_INTENT_CHARS,
        required=False,
        help_text="The shopper's words. A search needs a query, a context.intent or "
        "filters.categories.",
    )
    context = UcpContextSerializer(required=False)  # type: ignore[assignment]  # UCP's name
    signals = _object()
    attribution = _object()
    filters = UcpFiltersSerializer(required=False)
    pagination = UcpPaginationSerializer(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        intent = attrs.get("context", {}).get("intent")
        categories = attrs.get("filters", {}).get("categories")
        if not (attrs.get("query") or intent or categories):
            raise serializers.ValidationError(
                {"query": ["Give a query, a context.intent or filters.categories."]}
            )
        return attrs


class UcpSearchExtension(OpenApiSerializerExtension):
    """The contract states what a search needs, as the serializer's `validate` checks it: a
    query, a context.intent or filters.categories (so the body is required too:
    kernel.schema.required_bodies)."""

    target_class = UcpSearchSerializer

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = auto_schema._map_serializer(
            self.target, direction, bypass_extensions=True
        )
        if direction == "request":
            schema["anyOf"] = [
                {"required": ["query"]},
                {"required": ["context"], "properties": {"context": {"required": ["intent"]}}},
                {
                    "required": ["filters"],
                    "properties": {
                        "filters": {
                            "required": ["categories"],
                            "properties": {"categories": {"minItems": 1}},
                        }
                    },
                },
            ]
        return schema


class UcpLookupSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=JsonStringField(max_length=64),
        min_length=1,
        help_text=f"Product ids (`1001`) or variant ids (`1001-default`), at most {MAX_IDS}.",
    )
    filters = UcpFiltersSerializer(required=False)
    context = UcpContextSerializer(required=False)  # type: ignore[assignment]  # UCP's name
    signals = _object()
    attribution = _object()


class UcpSelectedOptionSerializer(serializers.Serializer):
    name = JsonStringField(max_length=120)
    label = JsonStringField(max_length=120)  # type: ignore[assignment]  # UCP's name


class UcpGetProductSerializer(serializers.Serializer):
    id = JsonStringField(max_length=64, help_text="A product id or a variant id.")
    selected = UcpSelectedOptionSerializer(
        many=True, required=False, help_text="Accepted: every product has one variant."
    )
    preferences = serializers.ListField(
        child=JsonStringField(max_length=120), max_length=20, required=False
    )
    filters = UcpFiltersSerializer(required=False)
    context = UcpContextSerializer(required=False)  # type: ignore[assignment]  # UCP's name
    signals = _object()
    attribution = _object()


# --- UCP's error response, as the contract describes it ------------------------------------------


class UcpErrorMessageSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["error"])
    code = serializers.CharField(help_text="The gateway's error code.")
    content = serializers.CharField(help_text="What went wrong, and each invalid field.")
    severity = serializers.ChoiceField(
        choices=["recoverable", "unrecoverable"],
        help_text="unrecoverable for an identifier that names nothing; otherwise recoverable.",
    )


class UcpMetadataSerializer(serializers.Serializer):
    version = serializers.CharField(
        help_text="The UCP release: the platform's, 2026-08-25 or 2026-04-08."
    )
    status = serializers.ChoiceField(choices=["success", "error"])
    capabilities = serializers.DictField(help_text="The capability that answered.")


class UcpErrorResponseSerializer(serializers.Serializer):
    """UCP's `types/error_response.json`."""

    ucp = UcpMetadataSerializer()
    messages = UcpErrorMessageSerializer(many=True)
