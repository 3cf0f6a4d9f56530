"""What the matching endpoints accept: request bodies and query parameters."""

from typing import Any

from django.utils import timezone
from rest_framework import serializers

from kernel.contract import AtLeastOneOfSerializer
from kernel.serializer_fields import (
    JsonStringField,
    MetadataField,
    PatternField,
    QueryBooleanField,
    channel_field,
    limit_field,
)
from matching.ranking import INVENTORY_STATUSES
from matching.serializers.fields import (
    MAX_TAGS,
    BudgetRangeSerializer,
    ConstraintsField,
    JsonIntegerField,
    clean_tags,
)


class IntentCreateSerializer(serializers.Serializer):
    raw_query = JsonStringField(max_length=2000, help_text="The shopper's words.")
    region = PatternField(
        r"^[A-Za-z]{2}\Z", required=False, allow_null=True, help_text="ISO country code."
    )
    audience = JsonStringField(max_length=200, required=False, allow_null=True)
    budget_range = BudgetRangeSerializer(required=False, allow_null=True)
    constraints = ConstraintsField(
        required=False,
        help_text="What the shopper insists on: an array of strings, an object (each member one "
        'constraint, "key: value", the value in JSON unless it is a string) or one string; at '
        "most 20 constraints of at most 200 characters each.",
    )
    intent_tags = serializers.ListField(
        child=JsonStringField(max_length=64),
        max_length=MAX_TAGS,
        required=False,
        help_text="Tags the demand agent resolved itself (resolution_source: client).",
    )
    source_channel = channel_field()
    metadata = MetadataField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs.get("region"):
            attrs["region"] = attrs["region"].upper()
        if "intent_tags" in attrs:
            attrs["intent_tags"] = clean_tags(attrs["intent_tags"])
        return attrs


class IntentProposalsQuerySerializer(serializers.Serializer):
    include_expired = QueryBooleanField(default=False)
    include_superseded = QueryBooleanField(
        default=False, help_text="Also the proposals a merchant replaced by proposing again."
    )
    cursor = JsonStringField(max_length=200, required=False)
    limit = limit_field(default=50, maximum=200)


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
        # DRF counts every digit first: 69.999 is refused for its third decimal, not its length.
        error_messages={"max_digits": "Give at most 12 digits, at most two after the point."},
        help_text="The offer's price: 0 or more, at most two decimal places.",
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
    valid_until = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="When the offer ends: a moment in the future. Past it the proposal reads "
        "expired and is never ranked; absent or null, it does not expire.",
    )
    product_snapshot = serializers.DictField(required=False, allow_null=True)
    metadata = MetadataField(required=False, allow_null=True)

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
    demand_token = JsonStringField(
        max_length=100,
        required=False,
        allow_null=True,
        help_text="The intent's demand credential, for callers that cannot send the "
        "X-Demand-Token header (MCP and A2A tools); either may carry it, and each one sent "
        "must be the intent's.",
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
