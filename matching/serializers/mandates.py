"""Signed intent mandates: the signing request, the mandate, its verification."""

from decimal import Decimal

from django.conf import settings
from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from catalog.models import MAX_PRODUCT_ID
from kernel.errors import PROPOSED_PRODUCT_NOT_FOUND
from kernel.serializer_fields import (
    JsonNumberField,
    JsonStringField,
)
from kernel.signing import ALGORITHM_CHOICES
from matching.mandates import Reason

# The finest minor unit of any ISO 4217 currency: the signed number and the stored decimal agree.
MAX_AMOUNT_DECIMALS = 4


@extend_schema_field({"type": "number", "exclusiveMinimum": 0})
class PositiveAmountField(JsonNumberField):
    """A JSON number that must be above 0 (checked by the serializer, with the maximum)."""


class IntentMandateSignSerializer(serializers.Serializer):
    # Untrimmed: the pattern holds for the id as it was sent, as the contract states it.
    product_id = JsonStringField(
        max_length=19,
        trim_whitespace=False,
        validators=[RegexValidator(r"^[0-9]+\Z", "Give the catalog product id as digits.")],
        help_text='The catalog product id, as a string of digits ("1001").',
    )
    amount_limit = PositiveAmountField(
        help_text="The most the mandate allows to spend: above 0, at most MANDATE_MAX_AMOUNT "
        "(100000 by default), at most 4 decimal places."
    )
    currency = JsonStringField(
        default="USD",
        trim_whitespace=False,
        validators=[RegexValidator(r"^[A-Za-z]{3}\Z", "Give a 3-letter ISO 4217 code.")],
        help_text="ISO 4217 code, default USD.",
    )

    def validate_product_id(self, value: str) -> int:
        if int(value) > MAX_PRODUCT_ID:
            raise serializers.ValidationError(PROPOSED_PRODUCT_NOT_FOUND.message)
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
    """The signed object: the signature (ES256 or RS256) covers its RFC 8785 canonical JSON,
    every field."""

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
        help_text="The signature of canonical_payload, base64url without padding: ECDSA P-256 "
        "with SHA-256 as r || s (64 bytes) for ES256, RSASSA-PKCS1-v1_5 with SHA-256 for RS256."
    )
    algorithm = serializers.ChoiceField(
        choices=ALGORITHM_CHOICES,
        help_text="The signing key's algorithm: ES256 for an EC P-256 key (the default of new "
        "deployments), RS256 for an RSA key.",
    )
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
        help_text="ES256 or RS256, as the mandate was signed; it must be the algorithm of the "
        "key (key_id). Anything else is unsupported_algorithm.",
    )


class IntentMandateVerificationSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    reason = serializers.ChoiceField(
        choices=Reason.choices,
        allow_null=True,
        help_text="Why the mandate is not valid; null when it is.",
    )
