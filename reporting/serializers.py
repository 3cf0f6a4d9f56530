"""Requests of the attribution endpoints (validation) and their representations."""

from decimal import Decimal
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from catalog.models import MAX_PRODUCT_ID
from kernel.contract import AtLeastOneOfSerializer
from kernel.errors import PRODUCT_NOT_FOUND
from kernel.serializer_fields import (
    CHANNEL_PATTERN,
    JsonDecimalField,
    JsonStringField,
    PatternField,
    QueryIntegerField,
)
from reporting.models import CLOCK_SKEW, Conversion

MAX_AMOUNT = Decimal("100000000")  # 1e8 in any currency: beyond that, a unit mix-up


class ConversionCreateSerializer(AtLeastOneOfSerializer):
    at_least_one_of = ("rec_id", "match_token_id")

    merchant_agent_id = JsonStringField(max_length=64)
    rec_id = JsonStringField(
        max_length=64,
        required=False,
        allow_null=True,
        help_text="The card's attribution id (from its buy link).",
    )
    match_token_id = JsonStringField(
        max_length=64,
        required=False,
        allow_null=True,
        help_text="An accepted match token whose proposal this order fulfils.",
    )
    order_id = JsonStringField(max_length=128, help_text="The merchant's own order id.")
    amount = JsonDecimalField(
        max_digits=12,
        decimal_places=2,
        min_value=Decimal(0),
        max_value=MAX_AMOUNT,
        coerce_to_string=False,  # a JSON number, in the contract as in the body
        # DRF counts every digit first: 89.999 is refused for its third decimal, not its length.
        error_messages={"max_digits": "Give at most 12 digits, at most two after the point."},
        help_text="The order's value, 0 to 100,000,000, at most two decimals.",
    )
    currency = PatternField(r"^[A-Za-z]{3}\Z", help_text="ISO 4217 code, e.g. USD.")
    occurred_at = serializers.DateTimeField(help_text="When the order was placed; not later.")
    quantity = serializers.IntegerField(
        min_value=1, max_value=100_000, default=1, help_text="Units of the product ordered."
    )

    def validate_currency(self, value: str) -> str:
        return value.upper()

    def validate_occurred_at(self, value: Any) -> Any:
        if value > timezone.now() + CLOCK_SKEW:
            raise serializers.ValidationError("occurred_at must not be in the future.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("rec_id") and not attrs.get("match_token_id"):
            message = ["Give rec_id, match_token_id, or both."]
            raise serializers.ValidationError({"rec_id": message, "match_token_id": message})
        return attrs


class ConversionSerializer(serializers.ModelSerializer):
    merchant_agent_id = JsonStringField(source="merchant.merchant_id")
    rec_id = JsonStringField(source="recommendation_id", allow_null=True)
    match_token_id = JsonStringField(allow_null=True)
    product_id = serializers.IntegerField()
    amount = serializers.DecimalField(max_digits=12, decimal_places=2, coerce_to_string=False)

    class Meta:
        model = Conversion
        fields = [
            "conversion_id",
            "merchant_agent_id",
            "order_id",
            "rec_id",
            "match_token_id",
            "product_id",
            "channel",
            "amount",
            "currency",
            "quantity",
            "occurred_at",
            "created_at",
            "flags",
        ]
        extra_kwargs = {
            "flags": {
                "help_text": "Why the sale is not counted in the report (conversions and GMV): "
                "`self_accepted` (credited through a match token its own merchant confirmed), "
                "`not_confirmed_by_demand` (through a match token confirmed without the "
                "intent's demand_token), `amount_above_price` (over CONVERSION_PRICE_FACTOR "
                "times the catalog's price times the quantity), `no_catalog_price` (the catalog "
                "has no price to bound it by). Empty for a counted sale."
            }
        }


class ConversionEnvelopeSerializer(serializers.Serializer):
    conversion = ConversionSerializer()


# --- The report ----------------------------------------------------------------------------------


class ReportQuerySerializer(serializers.Serializer):
    days = QueryIntegerField(
        min_value=1, max_value=365, default=30, help_text="1 to 365, default 30."
    )
    channel = PatternField(
        CHANNEL_PATTERN,
        required=False,
        default=None,
        help_text="Only facts of this channel.",
        error_messages={"invalid": "Use 1-64 characters of A-Z a-z 0-9 . _ : -"},
    )
    product_id = PatternField(
        r"^[0-9]{1,19}\Z",
        required=False,
        default=None,
        help_text="Only facts of this product (its catalog id).",
        error_messages={"invalid": "Give the product's id in digits."},
    )

    def validate_product_id(self, value: str | None) -> int | None:
        if value and int(value) > MAX_PRODUCT_ID:
            raise serializers.ValidationError(PRODUCT_NOT_FOUND.message)
        return int(value) if value else None


class CsvQuerySerializer(ReportQuerySerializer):
    breakdown = serializers.ChoiceField(
        choices=["day", "channel", "product", "creator"], default="day"
    )


class WindowSerializer(serializers.Serializer):
    days = serializers.IntegerField()
    since = serializers.DateTimeField(help_text="Midnight UTC of the window's first day.")
    until = serializers.DateTimeField(help_text="When the report was made.")


class FiltersSerializer(serializers.Serializer):
    channel = serializers.CharField(allow_null=True)
    product_id = serializers.IntegerField(allow_null=True)


def _rate(help_text: str) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, help_text=help_text)


def _amounts(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.FloatField(), help_text=help_text)


class FiguresSerializer(serializers.Serializer):
    recommendations = serializers.IntegerField(help_text="Cards issued.")
    clicks = serializers.IntegerField(
        help_text="Buy-link follows counted: one per card and client in 30 minutes, no "
        "crawlers, no HEAD."
    )
    unique_clicks = serializers.IntegerField(
        help_text="Clicks with each card and client address (an IPv6 /64 as one) counted once "
        "a day."
    )
    click_through_rate = _rate("clicks / recommendations; null without recommendations.")
    match_sessions = serializers.IntegerField()
    accepted_matches = serializers.IntegerField(help_text="Match tokens accepted.")
    conversions = serializers.IntegerField(
        help_text="Orders reported, in any currency, that count (not flagged)."
    )
    flagged_conversions = serializers.IntegerField(
        help_text="Orders flagged by the conversions policy (through a match token the "
        "demand side did not confirm, or above the catalog's price): counted apart, no GMV."
    )
    gmv_usd = serializers.FloatField(
        help_text="Sum of the amounts of USD conversions, flagged ones left out."
    )
    conversion_rate = _rate("conversions / clicks; null without clicks.")
    gmv_by_currency = _amounts(
        "Sum of the amounts of counted conversions per currency (ISO 4217 code), unconverted."
    )
    gmv_usd_total = serializers.FloatField(
        help_text="GMV in US dollars: USD conversions plus the currencies that usd_rates prices, "
        "converted at those rates. Currencies without a rate are not in it: see gmv_unconverted."
    )
    gmv_unconverted = _amounts(
        "The part of gmv_by_currency in currencies without a rate in usd_rates, left out of "
        "gmv_usd_total. Empty when every currency could be converted."
    )


# The figures of the whole window, under their own name in the contract.
class TotalsSerializer(FiguresSerializer):
    pass


class DayFiguresSerializer(FiguresSerializer):
    date = serializers.DateField()


class ChannelFiguresSerializer(FiguresSerializer):
    channel = serializers.CharField(allow_null=True, help_text="null: no channel hint.")


class ProductFiguresSerializer(FiguresSerializer):
    product_id = serializers.IntegerField()
    title = serializers.CharField()
    creator = serializers.CharField(
        allow_null=True, help_text="Username of the creator its figures are attributed to."
    )


class CreatorFiguresSerializer(FiguresSerializer):
    username = serializers.CharField()
    display_name = serializers.CharField()
    products = serializers.IntegerField(help_text="Products attributed to the creator.")


# Served by a `list` action, yet one object: never an array in the contract.
@extend_schema_serializer(many=False)
class AttributionReportSerializer(serializers.Serializer):
    window = WindowSerializer()
    filters = FiltersSerializer()
    usd_rates = serializers.DictField(
        child=serializers.FloatField(),
        help_text="US dollars per unit of each currency the gateway converts for gmv_usd_total "
        "(its USD_RATES setting); USD itself is 1 and not listed.",
    )
    totals = TotalsSerializer()
    by_day = DayFiguresSerializer(many=True)
    by_channel = ChannelFiguresSerializer(many=True)
    by_product = ProductFiguresSerializer(many=True)
    by_creator = CreatorFiguresSerializer(many=True)
