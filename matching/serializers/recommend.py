"""GET /v1/recommend: its query and its answer."""

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from catalog.search import TIERS
from catalog.serializers import CardSerializer
from kernel.serializer_fields import (
    JsonStringField,
    PatternField,
    channel_field,
    limit_field,
)
from matching.engine.resolution import MAX_INTENT_CHARS
from matching.serializers.resources import DEMAND_CREDENTIAL_HELP, ProposalSerializer


class RecommendQuerySerializer(serializers.Serializer):
    # Trimmed: one of only spaces is blank, and the contract says so (NonBlankStringExtension).
    intent = JsonStringField(
        max_length=MAX_INTENT_CHARS, help_text="The shopper's words, in natural language."
    )
    limit = limit_field(default=3)
    region = PatternField(
        r"^[A-Za-z]{2}\Z",
        required=False,
        allow_null=True,
        default=None,
        help_text="ISO 3166-1 alpha-2 country code: only products sold there.",
        error_messages={"invalid": "Give a two-letter ISO country code, e.g. US."},
    )
    channel = channel_field()

    def validate_region(self, value: str | None) -> str | None:
        return value.upper() if value else None


class RetrievalBudgetSerializer(serializers.Serializer):
    min = serializers.FloatField(allow_null=True, help_text="The floor as the shopper stated it.")
    max = serializers.FloatField(allow_null=True, help_text="The ceiling as the shopper stated it.")
    currency = serializers.CharField(
        help_text="The ISO 4217 code it was stated in (USD when the shopper named none; XXX "
        "for money the engine could not name)."
    )
    applied = serializers.BooleanField(
        help_text="Whether it filtered the products: false when the gateway has no exchange "
        "rate for its currency (its USD_RATES setting), and then no product was left out for "
        "its price."
    )
    usd_per_unit = serializers.FloatField(
        allow_null=True, help_text="The rate it was converted at; null when not applied."
    )
    min_usd = serializers.FloatField(
        allow_null=True,
        help_text="The floor in the catalog's US dollars, to the cent (rounded up): the "
        "figure retrieval applied.",
    )
    max_usd = serializers.FloatField(
        allow_null=True,
        help_text="The ceiling in the catalog's US dollars, to the cent (rounded down): the "
        "figure retrieval applied.",
    )


class RetrievalSerializer(serializers.Serializer):
    intent_hits = serializers.IntegerField(help_text="Products found by the tiers.")
    trending_fill = serializers.IntegerField(help_text="Trending products added to fill.")
    excluded = serializers.ListField(
        child=serializers.CharField(),
        help_text=(
            "What the shopper ruled out (read from the engine's constraints and exclude list): "
            "no product whose title, tags or brand holds one of these is served, in any tier "
            "or the trending fill. Empty when nothing was ruled out."
        ),
    )
    budget = RetrievalBudgetSerializer(
        allow_null=True,
        help_text="The budget the shopper stated and what of it filtered the products, "
        "converted to US dollars when stated in another currency; null when none was stated.",
    )


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
    demand_token = serializers.CharField(help_text=DEMAND_CREDENTIAL_HELP)
    shopper_guide = serializers.CharField(
        help_text="For a person: what was understood and how each pick relates to it."
    )
    note = serializers.ChoiceField(
        choices=["intent_plus_trending", "trending_suggested"],
        allow_null=True,
        help_text="Machine hint: whether trending products filled the list.",
    )
    match_tier = serializers.ChoiceField(
        choices=[*TIERS, "none"],
        help_text="The loosest retrieval tier that contributed a product, before trending fill.",
    )
    intent_source = serializers.ChoiceField(choices=["engine", "engine_cached"])
    resolved_keywords = serializers.ListField(child=serializers.CharField())
    resolved_categories = serializers.ListField(child=serializers.CharField())
    retrieval = RetrievalSerializer()
    generated_at = serializers.DateTimeField()
