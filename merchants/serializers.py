"""Merchant agent requests (validation) and the MerchantAgent representation, with its endpoint's
verification (a merchant's deliveries are in merchants/delivery_serializers.py)."""

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from kernel.serializer_fields import JsonStringField, MetadataField, PatternField
from merchants.endpoints import ENDPOINT_PATTERN
from merchants.models import (
    MERCHANT_ID,
    MUTABLE_FIELDS,
    RESERVED_MERCHANT_IDS,
    MerchantAgent,
)


def _tags(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=JsonStringField(max_length=64), max_length=100, **kwargs)


def normalized_tags(tags: list[str]) -> list[str]:
    """Lower-case, trimmed, without repeats, in the order given."""
    return list(dict.fromkeys(tag.strip().lower() for tag in tags if tag.strip()))


# The contract states an endpoint's shape as a pattern (merchants/endpoints.py); the gateway also
# checks, at registration and at every call, that its host resolves only to public addresses.
@extend_schema_field({"type": "string", "pattern": ENDPOINT_PATTERN, "maxLength": 2000})
class EndpointField(JsonStringField):
    """A merchant agent's webhook URL (its checks are in merchants/endpoints.py), checked as it
    was sent: a space at either end is outside the pattern, never trimmed away."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(trim_whitespace=False, **kwargs)


class MerchantFieldsSerializer(serializers.Serializer):
    """The fields a merchant sets at registration and may change later."""

    agent_endpoint = EndpointField(max_length=2000, help_text="HTTPS webhook URL.")
    subscription_tags = _tags(required=False, help_text='Intent tags to receive; "*" for all.')
    capabilities = _tags(required=False)
    regions = serializers.ListField(
        child=PatternField(r"^[A-Za-z]{2}\Z"), max_length=250, required=False
    )
    category_tags = _tags(required=False)
    inventory_scope = serializers.ListField(
        child=serializers.DictField(), max_length=100, required=False
    )
    protocol_version = JsonStringField(max_length=16, required=False, allow_null=True)
    a2a_capabilities = serializers.DictField(required=False)
    metadata = MetadataField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        for name in ("subscription_tags", "capabilities", "category_tags"):
            if name in attrs:
                attrs[name] = normalized_tags(attrs[name])
        if "regions" in attrs:
            attrs["regions"] = list(dict.fromkeys(region.upper() for region in attrs["regions"]))
        return attrs


class MerchantPatchSerializer(MerchantFieldsSerializer):
    """Every mutable field is optional in an update."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["partial"] = True
        super().__init__(*args, **kwargs)


class RegisterSerializer(MerchantFieldsSerializer):
    merchant_id = JsonStringField(
        max_length=64,
        trim_whitespace=False,  # the pattern holds for the id as it was sent
        validators=[
            RegexValidator(rf"^{MERCHANT_ID.pattern}\Z", "Use 1-64 of A-Z a-z 0-9 . _ : -")
        ],
        help_text="Stable merchant or tenant id: 1-64 of A-Z a-z 0-9 . _ : -",
    )

    def validate_merchant_id(self, value: str) -> str:
        if value.lower() in RESERVED_MERCHANT_IDS:
            raise serializers.ValidationError(f"{value!r} is reserved; choose another id.")
        if value in (".", ".."):
            raise serializers.ValidationError(f"{value!r} names a path, not a merchant.")
        return value


class HeartbeatSerializer(serializers.Serializer):
    merchant_id = JsonStringField(max_length=64)


# Where the proof of the merchant's endpoint stands (merchants/verification.py).
VERIFICATION_STATES = [
    ("verified", "the endpoint echoed its challenge: Intent.Surge events are sent to it"),
    ("pending", "a verification is under way or scheduled"),
    ("parked", "the endpoint never echoed through the whole schedule: it is asked no more until "
     "the merchant asks (POST /v1/merchant/{merchantId}/verify) or changes its endpoint"),
]  # fmt: skip


def verification_state(merchant: MerchantAgent) -> str:
    if merchant.endpoint_verified_at is not None:
        return "verified"
    return "parked" if merchant.verification_parked_at is not None else "pending"


class BlankAsNullField(serializers.CharField):
    """Stored text that is blank when there is nothing to say: shown as null."""

    def to_representation(self, value: Any) -> Any:  # a str, or None
        return str(value) if value else None


class EndpointVerificationSerializer(serializers.Serializer):
    """Where the proof of the endpoint's ownership stands, in full: for the merchant itself."""

    webhook_id = BlankAsNullField(
        source="verification_event_id",
        allow_null=True,
        help_text="The endpoint.verification event's id: the webhook-id of each of its "
        "attempts. A new one for every change of the endpoint.",
    )
    state = serializers.SerializerMethodField()
    attempt_count = serializers.IntegerField(
        source="verification_attempts",
        help_text="Attempts made for the current endpoint (the schedule makes 8 at most).",
    )
    next_attempt_at = serializers.DateTimeField(
        source="next_verification_at",
        allow_null=True,
        help_text="When the next attempt is due (while one is under way, when it is given up "
        "for lost); null once verified or parked.",
    )
    last_error = BlankAsNullField(
        source="last_verification_error",
        allow_null=True,
        help_text="Why the latest attempt failed, in the gateway's words (never the endpoint's "
        "own answer); null when none failed since the endpoint was set.",
    )
    parked_at = serializers.DateTimeField(
        source="verification_parked_at",
        allow_null=True,
        help_text="When the schedule ran out without the challenge echoed; null unless parked.",
    )

    @extend_schema_field(serializers.ChoiceField(choices=VERIFICATION_STATES))
    def get_state(self, merchant: MerchantAgent) -> str:
        return verification_state(merchant)


# The context that shows a merchant record to its own merchant (its token was presented).
OWNER = {"owner": True}


class MerchantAgentSerializer(serializers.ModelSerializer):
    verification_state = serializers.SerializerMethodField(
        help_text="Where the proof of the endpoint's ownership stands."
    )
    verification_error = serializers.SerializerMethodField(
        help_text="Why the latest verification attempt failed, in the gateway's words (never "
        "the endpoint's own answer); null when none failed since the endpoint was set."
    )
    verification = serializers.SerializerMethodField(
        help_text="The endpoint's verification in full (its attempts, the next one, the last "
        "error), shown to the merchant itself: in the answers to its token, and in the lookup "
        "when it sends its X-Merchant-Token. Null for anyone else."
    )

    @extend_schema_field(serializers.ChoiceField(choices=VERIFICATION_STATES))
    def get_verification_state(self, merchant: MerchantAgent) -> str:
        return verification_state(merchant)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_verification_error(self, merchant: MerchantAgent) -> str | None:
        return merchant.last_verification_error or None

    @extend_schema_field(EndpointVerificationSerializer(allow_null=True))
    def get_verification(self, merchant: MerchantAgent) -> dict[str, Any] | None:
        if not self.context.get("owner"):
            return None
        return EndpointVerificationSerializer(merchant).data

    class Meta:
        model = MerchantAgent
        fields = [
            "merchant_id",
            *MUTABLE_FIELDS,
            "status",
            "registered_at",
            "last_seen_at",
            "deactivated_at",
            "deliveries_disabled_at",
            "endpoint_verified_at",
            "verification_state",
            "verification_error",
            "verification",
        ]
        extra_kwargs = {
            "deliveries_disabled_at": {
                "help_text": "Set when the endpoint answered 410 Gone: no webhooks are sent "
                "until the merchant registers again or changes its endpoint."
            },
            "endpoint_verified_at": {
                "help_text": "When the endpoint proved its ownership by echoing the challenge "
                "of an endpoint.verification event. Null until then, and again after every "
                "change of the endpoint: no Intent.Surge is sent while it is null."
            },
        }


def merchant_body(merchant: MerchantAgent, *, owner: bool) -> dict[str, Any]:
    """The `{status, merchant}` body of lookups and merchant commands; `owner` when the request
    carries the merchant's own token."""
    record = MerchantAgentSerializer(merchant, context={"owner": owner}).data
    return {"status": merchant.status, "merchant": record}


class MerchantEnvelopeSerializer(serializers.Serializer):
    status = JsonStringField(allow_null=True)
    merchant = MerchantAgentSerializer()


class RegistrationSerializer(serializers.Serializer):
    status = JsonStringField()
    created = serializers.BooleanField()
    merchant_id = JsonStringField()
    registration_token = JsonStringField(
        help_text="Secret: send it as X-Merchant-Token. Shown on creation and rotation only."
    )
    webhook_secret = JsonStringField(
        required=False,
        help_text="Standard Webhooks signing secret (whsec_...), only when created.",
    )
    merchant = MerchantAgentSerializer()


class RotatedTokenSerializer(serializers.Serializer):
    status = JsonStringField()
    merchant_id = JsonStringField()
    registration_token = JsonStringField()
    merchant = MerchantAgentSerializer()


class MerchantHealthSerializer(serializers.Serializer):
    """The gateway's account of a signed ping to the merchant agent (200 healthy, else 503)."""

    merchant_id = JsonStringField()
    healthy = serializers.BooleanField()
    status_code = serializers.IntegerField(
        allow_null=True, help_text="The merchant's HTTP status; null when it did not answer."
    )
    latency_ms = serializers.IntegerField(allow_null=True)
    checked_at = serializers.DateTimeField(help_text="Results are reused for 30 seconds.")
    error = JsonStringField(
        allow_null=True, help_text='"merchant_unhealthy" when unhealthy, else null.'
    )
    message = JsonStringField(
        allow_null=True,
        help_text="Why it is unhealthy, in the gateway's words; never the merchant's own answer.",
    )
