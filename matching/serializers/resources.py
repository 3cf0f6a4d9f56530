"""How intents, proposals, match sessions and tokens are rendered, alone and in envelopes."""

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from catalog.serializers import CardSerializer
from kernel.serializer_fields import (
    JsonStringField,
    NullableObjectField,
)
from matching.models import ConfirmedBy, Intent, MatchSession, MatchToken, Proposal
from matching.rendering import intent_body, merchant_agent_id, proposal_body

DEMAND_CREDENTIAL_HELP = (
    "The intent's demand credential, shown only in this answer: keep it. Confirming a match "
    "token with it (header X-Demand-Token) makes the confirmation the demand side's decision; "
    "a sale is credited only through a token confirmed so."
)


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

    def to_representation(self, instance: Intent) -> dict[str, Any]:
        return intent_body(instance)


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
        return merchant_agent_id(proposal)

    def get_status(self, proposal: Proposal) -> str:
        return proposal.status_at(self.context.get("now") or timezone.now())

    def to_representation(self, instance: Proposal) -> dict[str, Any]:
        return proposal_body(instance, self.context.get("now"))


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
    confirmed_by = serializers.ChoiceField(
        choices=ConfirmedBy.choices,
        allow_null=True,
        read_only=True,
        help_text="Who confirmed it, by the credential the confirmation carried; null until "
        "confirmed. Only a token the demand side confirmed earns a sale.",
    )

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
            "confirmed_by",
        ]

    def get_acceptance_state(self, token: MatchToken) -> str:
        return token.state_at(timezone.now())


class IntentEnvelopeSerializer(serializers.Serializer):
    intent = IntentSerializer()


class IntentCreatedSerializer(IntentEnvelopeSerializer):
    demand_token = serializers.CharField(
        help_text=DEMAND_CREDENTIAL_HELP,
    )


# Served by a `list` action, yet one object: never an array in the contract.
@extend_schema_serializer(many=False)
class IntentFeedSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    intents = IntentSerializer(many=True)
    next_cursor = JsonStringField(allow_null=True)


class IntentProposalsSerializer(serializers.Serializer):
    intent_id = JsonStringField()
    count = serializers.IntegerField(help_text="Proposals on this page.")
    proposals = ProposalSerializer(many=True)
    next_cursor = JsonStringField(
        allow_null=True, help_text="Pass it back as cursor for the next page; null on the last."
    )


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
