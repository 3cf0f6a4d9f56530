"""Requests of the intent-matching endpoints (validation) and the protocol's representations."""

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from catalog.models import MAX_PRODUCT_ID
from catalog.serializers import CardSerializer
from gateway.api import (
    AtLeastOneOfSerializer,
    JsonNumberField,
    JsonStringField,
    NullableObjectField,
    channel_field,
    limit_field,
)
from matching.mandates import Reason
from matching.models import Intent, MatchSession, MatchToken, Proposal
from matching.ranking import INVENTORY_STATUSES
from matching.resolution import MAX_INTENT_CHARS

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


@extend_schema_field(
    {
        "oneOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "object", "additionalProperties": True},
            {"type": "string"},
        ]
    }
)
class ConstraintsField(serializers.Field):
    """Constraints as an array of strings, an object, or one string; stored as a list of strings.

    An object {"material": "leather"} becomes ["material: leather"].
    """

    default_error_messages = {
        "invalid": "Give an array of strings, an object, or a string.",
        "too_many": "Give at most 20 constraints of at most 200 characters each.",
    }

    def to_internal_value(self, data: Any) -> list[str]:
        if isinstance(data, str):
            items = [data]
        elif isinstance(data, dict):
            items = [f"{key}: {value}" for key, value in data.items()]
        elif isinstance(data, list) and all(isinstance(item, str) for item in data):
            items = data
        else:
            self.fail("invalid")
        items = list(dict.fromkeys(item.strip() for item in items if item.strip()))
        if len(items) > 20 or any(len(item) > 200 for item in items):
            self.fail("too_many")
        return items

    def to_representation(self, value: list[str]) -> list[str]:
        return value


class BudgetRangeSerializer(serializers.Serializer):
    min = JsonNumberField(min_value=0, max_value=1e9, required=False, allow_null=True)
    max = JsonNumberField(min_value=0, max_value=1e9, required=False, allow_null=True)
    currency = serializers.RegexField(
        r"^[A-Za-z]{3}$", required=False, allow_null=True, help_text="ISO 4217 code."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        low, high = attrs.get("min"), attrs.get("max")
        if low is not None and high is not None and low > high:
            raise serializers.ValidationError({"min": ["min must not exceed max."]})
        currency = attrs.get("currency")
        return {"min": low, "max": high, "currency": currency.upper() if currency else None}


def _tags(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tag.strip().lower() for tag in tags if tag.strip()))


class IntentCreateSerializer(serializers.Serializer):
    raw_query = JsonStringField(max_length=2000, help_text="The shopper's words.")
    region = serializers.RegexField(
        r"^[A-Za-z]{2}$", required=False, allow_null=True, help_text="ISO country code."
    )
    audience = JsonStringField(max_length=200, required=False, allow_null=True)
    budget_range = BudgetRangeSerializer(required=False, allow_null=True)
    constraints = ConstraintsField(required=False)
    intent_tags = serializers.ListField(
        child=JsonStringField(max_length=64),
        max_length=MAX_TAGS,
        required=False,
        help_text="Tags the demand agent resolved itself (resolution_source: client).",
    )
    source_channel = channel_field()
    metadata = serializers.DictField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("region"):
            attrs["region"] = attrs["region"].upper()
        if "intent_tags" in attrs:
            attrs["intent_tags"] = _tags(attrs["intent_tags"])
        return attrs


class IncludeExpiredQuerySerializer(serializers.Serializer):
    include_expired = serializers.BooleanField(default=False)


class IntentFeedQuerySerializer(serializers.Serializer):
    since = serializers.DateTimeField(required=False, help_text="Only intents created since.")
    cursor = JsonStringField(max_length=200, required=False)
    limit = limit_field(default=20, maximum=100)


class ProposalCreateSerializer(serializers.Serializer):
    merchant_agent_id = JsonStringField(max_length=64)
    intent_id = JsonStringField(max_length=64)
    # A string in the contract; a JSON number is accepted too, as agents often send one.
    product_id = serializers.CharField(
        max_length=30,
        trim_whitespace=False,  # " " names no product (404), as the contract allows it
        help_text="The catalog product id.",
    )
    offer_title = JsonStringField(max_length=300, required=False, allow_null=True)
    price = serializers.DecimalField(
        max_digits=12,
        decimal_places=2,
        min_value=0,
        required=False,
        allow_null=True,
        coerce_to_string=False,  # the interface's price is a number (a string is read too)
    )
    inventory_status = serializers.ChoiceField(
        choices=INVENTORY_STATUSES, required=False, allow_null=True
    )
    shipping_commitment = serializers.DictField(
        required=False, allow_null=True, help_text='e.g. {"max_days": 3, "free": true}'
    )
    commission_plan = serializers.DictField(
        required=False, allow_null=True, help_text='e.g. {"rate": 0.12}'
    )
    service_terms = serializers.DictField(required=False, allow_null=True)
    evidence = serializers.ListField(child=serializers.DictField(), max_length=20, required=False)
    valid_until = serializers.DateTimeField(required=False, allow_null=True)
    product_snapshot = serializers.DictField(required=False, allow_null=True)
    metadata = serializers.DictField(required=False, allow_null=True)

    def validate_valid_until(self, value: Any) -> Any:
        if value is not None and value <= timezone.now():
            raise serializers.ValidationError("valid_until must be in the future.")
        return value


class MatchCreateSerializer(serializers.Serializer):
    intent_id = JsonStringField(max_length=64)
    proposal_ids = serializers.ListField(
        child=JsonStringField(max_length=64),
        max_length=1000,
        required=False,
        help_text="Rank only these; all live proposals of the intent when omitted.",
    )
    limit = JsonIntegerField(min_value=1, max_value=10, default=3)


class MatchGetQuerySerializer(serializers.Serializer):
    limit = limit_field(default=None)


class MatchAcceptSerializer(AtLeastOneOfSerializer):
    at_least_one_of = ("proposal_id", "match_token_id")

    proposal_id = JsonStringField(
        max_length=64, required=False, allow_null=True, help_text="Mints the proposal's token."
    )
    match_token_id = JsonStringField(
        max_length=64, required=False, allow_null=True, help_text="Confirms a minted token."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("proposal_id") and not attrs.get("match_token_id"):
            raise serializers.ValidationError(
                {
                    "proposal_id": [
                        serializers.ErrorDetail(
                            "Give proposal_id (to mint) or match_token_id (to confirm).",
                            code="required",
                        )
                    ]
                }
            )
        return attrs


# --- Representations ---------------------------------------------------------------------------


class IntentSerializer(serializers.ModelSerializer):
    budget_range = NullableObjectField(read_only=True)

    class Meta:
        model = Intent
        fields = [
            "intent_id",
            "raw_query",
            "normalized_query",
            "intent_tags",
            "target_audience",
            "budget_range",
            "region",
            "constraints",
            "source_channel",
            "resolution_source",
            "resolution_summary",
            "metadata",
            "created_at",
            "updated_at",
        ]


class ProposalSerializer(serializers.ModelSerializer):
    merchant_agent_id = serializers.SerializerMethodField()
    intent_id = JsonStringField()
    product_id = serializers.IntegerField()
    product_snapshot = NullableObjectField(read_only=True)
    price = serializers.FloatField(allow_null=True)
    status = serializers.SerializerMethodField()

    class Meta:
        model = Proposal
        fields = [
            "proposal_id",
            "merchant_agent_id",
            "intent_id",
            "product_id",
            "offer_title",
            "price",
            "inventory_status",
            "shipping_commitment",
            "commission_plan",
            "service_terms",
            "evidence",
            "valid_until",
            "proposal_score_inputs",
            "product_snapshot",
            "metadata",
            "provenance",
            "status",
            "created_at",
            "updated_at",
        ]

    def get_merchant_agent_id(self, proposal: Proposal) -> str:
        return proposal.merchant.merchant_id if proposal.merchant else "catalog"

    def get_status(self, proposal: Proposal) -> str:
        return proposal.status_at(self.context.get("now") or timezone.now())


class MatchSessionSerializer(serializers.ModelSerializer):
    intent_id = JsonStringField()
    best_proposal_id = JsonStringField(allow_null=True)
    ranked_proposals = serializers.ListField(child=serializers.DictField())
    summary = serializers.DictField()

    class Meta:
        model = MatchSession
        fields = [
            "match_session_id",
            "intent_id",
            "best_proposal_id",
            "ranked_proposals",
            "summary",
            "status",
            "created_at",
            "updated_at",
        ]


class MatchTokenSerializer(serializers.ModelSerializer):
    match_session_id = JsonStringField(source="session_id")
    intent_id = JsonStringField()
    proposal_id = JsonStringField()
    acceptance_state = serializers.SerializerMethodField()

    class Meta:
        model = MatchToken
        fields = [
            "match_token_id",
            "match_session_id",
            "intent_id",
            "proposal_id",
            "acceptance_state",
            "intent_snapshot",
            "proposal_snapshot",
            "ranking_snapshot",
            "trace_ids",
            "issued_at",
            "expires_at",
            "accepted_at",
        ]

    def get_acceptance_state(self, token: MatchToken) -> str:
        return token.state_at(timezone.now())


# Response envelopes, for the contract.


class IntentEnvelopeSerializer(serializers.Serializer):
    intent = IntentSerializer()


# Served by a `list` action, yet one object: never an array in the contract.
@extend_schema_serializer(many=False)
class IntentFeedSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    intents = IntentSerializer(many=True)
    next_cursor = JsonStringField(allow_null=True)


class IntentProposalsSerializer(serializers.Serializer):
    intent_id = JsonStringField()
    count = serializers.IntegerField()
    proposals = ProposalSerializer(many=True)


class ProposalEnvelopeSerializer(serializers.Serializer):
    proposal = ProposalSerializer()


class MatchSessionEnvelopeSerializer(serializers.Serializer):
    match_session = MatchSessionSerializer()


class MatchTokenEnvelopeSerializer(serializers.Serializer):
    match_token = MatchTokenSerializer()


class MatchDetailSerializer(serializers.Serializer):
    match_session = MatchSessionSerializer()
    ranked_proposals = serializers.ListField(child=serializers.DictField())
    match_tokens = MatchTokenSerializer(many=True)
    items = CardSerializer(many=True, help_text="Cards (PCD) of the ranked products.")


# --- Recommend ---------------------------------------------------------------------------------


class RecommendQuerySerializer(serializers.Serializer):
    intent = serializers.CharField(
        max_length=MAX_INTENT_CHARS, help_text="The shopper's words, in natural language."
    )
    limit = limit_field(default=3)
    region = serializers.RegexField(
        r"^[A-Za-z]{2}$",
        required=False,
        allow_null=True,
        default=None,
        help_text="ISO 3166-1 alpha-2 country code: only products sold there.",
        error_messages={"invalid": "Give a two-letter ISO country code, e.g. US."},
    )
    channel = channel_field()

    def validate_region(self, value: str | None) -> str | None:
        return value.upper() if value else None


class RetrievalSerializer(serializers.Serializer):
    intent_hits = serializers.IntegerField(help_text="Products found by the tiers.")
    trending_fill = serializers.IntegerField(help_text="Trending products added to fill.")


# Served by a `list` action, yet one object: never an array in the contract.
@extend_schema_serializer(many=False)
class RecommendSerializer(serializers.Serializer):
    intent = serializers.CharField(help_text="The intent as the caller sent it.")
    intent_id = serializers.CharField(help_text="The Intent recorded for this request.")
    count = serializers.IntegerField()
    items = CardSerializer(many=True)
    proposals = ProposalSerializer(many=True, help_text="One catalog proposal per card.")
    proposal_count = serializers.IntegerField()
    match_session_id = serializers.CharField(help_text="The session ranking the proposals.")
    shopper_guide = serializers.CharField(
        help_text="For a person: what was understood and how each pick relates to it."
    )
    note = serializers.ChoiceField(
        choices=["intent_plus_trending", "trending_suggested"],
        allow_null=True,
        help_text="Machine hint: whether trending products filled the list.",
    )
    match_tier = serializers.ChoiceField(
        choices=["raw_substring", "strict", "narrow", "fuzzy", "broadened", "none"],
        help_text="The loosest retrieval tier that contributed a product, before trending fill.",
    )
    intent_source = serializers.ChoiceField(choices=["engine", "engine_cached"])
    resolved_keywords = serializers.ListField(child=serializers.CharField())
    resolved_categories = serializers.ListField(child=serializers.CharField())
    retrieval = RetrievalSerializer()
    generated_at = serializers.DateTimeField()


# --- Intent mandates ---------------------------------------------------------------------------

# The finest minor unit of any ISO 4217 currency: the signed number and the stored decimal agree.
MAX_AMOUNT_DECIMALS = 4


@extend_schema_field({"type": "number", "exclusiveMinimum": 0})
class PositiveAmountField(JsonNumberField):
    """A JSON number that must be above 0 (checked by the serializer, with the maximum)."""


class IntentMandateSignSerializer(serializers.Serializer):
    product_id = JsonStringField(
        max_length=19,
        validators=[RegexValidator(r"^[0-9]+$", "Give the catalog product id as digits.")],
        help_text='The catalog product id, as a string of digits ("1001").',
    )
    amount_limit = PositiveAmountField(
        help_text="The most the mandate allows to spend: above 0, at most MANDATE_MAX_AMOUNT "
        "(100000 by default), at most 4 decimal places."
    )
    currency = JsonStringField(
        default="USD",
        validators=[RegexValidator(r"^[A-Za-z]{3}$", "Give a 3-letter ISO 4217 code.")],
        help_text="ISO 4217 code, default USD.",
    )

    def validate_product_id(self, value: str) -> int:
        if int(value) > MAX_PRODUCT_ID:
            raise serializers.ValidationError("No product has that product_id.")
        return int(value)

    def validate_amount_limit(self, value: float) -> Decimal:
        maximum = settings.MANDATE_MAX_AMOUNT
        if value <= 0:
            raise serializers.ValidationError("Must be greater than 0.")
        if value > maximum:
            raise serializers.ValidationError(f"Must be at most {maximum:.10g}.")
        amount = Decimal(repr(value))
        exponent = amount.as_tuple().exponent
        if isinstance(exponent, int) and exponent < -MAX_AMOUNT_DECIMALS:
            raise serializers.ValidationError(f"Give at most {MAX_AMOUNT_DECIMALS} decimal places.")
        return amount

    def validate_currency(self, value: str) -> str:
        return value.upper()


class IntentMandateSerializer(serializers.Serializer):
    """The signed object: RS256 covers its RFC 8785 canonical JSON, every field."""

    mandate_id = serializers.CharField(help_text="mdt_ followed by 24 hex characters.")
    type = serializers.CharField(help_text="Always intent_mandate.")
    issuer = serializers.CharField(help_text="The gateway's base URL.")
    product_id = serializers.CharField()
    amount_limit = serializers.FloatField()
    currency = serializers.CharField(help_text="ISO 4217 code.")
    issued_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(help_text="Not valid from this moment on.")
    nonce = serializers.CharField(help_text="Random; makes every mandate unique.")


class SignedIntentMandateSerializer(serializers.Serializer):
    mandate = IntentMandateSerializer()
    canonical_payload = serializers.CharField(
        help_text="The RFC 8785 canonical JSON of mandate: the exact bytes (UTF-8) signed."
    )
    signature = serializers.CharField(
        help_text="RSASSA-PKCS1-v1_5 with SHA-256 over canonical_payload, base64url without "
        "padding."
    )
    algorithm = serializers.CharField(help_text="Always RS256.")
    key_id = serializers.CharField(
        help_text="kid of the signing key in jwks_url (its RFC 7638 thumbprint)."
    )
    jwks_url = serializers.CharField(help_text="The JWK Set that publishes the public keys.")


class IntentMandateVerifySerializer(serializers.Serializer):
    mandate = serializers.DictField(help_text="The mandate object as it was signed.")
    signature = JsonStringField(max_length=4096, trim_whitespace=False, help_text="base64url.")
    key_id = JsonStringField(
        max_length=128,
        required=False,
        trim_whitespace=False,
        help_text="kid of the key it claims; every published key is tried when absent.",
    )
    algorithm = JsonStringField(
        max_length=32,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Only RS256 is accepted; anything else is unsupported_algorithm.",
    )


class IntentMandateVerificationSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    reason = serializers.ChoiceField(
        choices=Reason.choices,
        allow_null=True,
        help_text="Why the mandate is not valid; null when it is.",
    )
