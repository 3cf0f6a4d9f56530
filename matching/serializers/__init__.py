"""Requests of the intent-matching endpoints (validation) and the protocol's representations."""

from matching.serializers.fields import (
    MAX_TAGS,
    BudgetRangeSerializer,
    ConstraintsField,
    JsonIntegerField,
)
from matching.serializers.mandates import (
    MAX_AMOUNT_DECIMALS,
    IntentMandateSerializer,
    IntentMandateSignSerializer,
    IntentMandateVerificationSerializer,
    IntentMandateVerifySerializer,
    PositiveAmountField,
    SignedIntentMandateSerializer,
)
from matching.serializers.recommend import (
    RecommendQuerySerializer,
    RecommendSerializer,
    RetrievalSerializer,
)
from matching.serializers.requests import (
    IntentCreateSerializer,
    IntentFeedQuerySerializer,
    IntentProposalsQuerySerializer,
    MatchAcceptSerializer,
    MatchCreateSerializer,
    MatchGetQuerySerializer,
    ProposalCreateSerializer,
)
from matching.serializers.resources import (
    IntentEnvelopeSerializer,
    IntentFeedSerializer,
    IntentProposalsSerializer,
    IntentSerializer,
    MatchDetailSerializer,
    MatchSessionEnvelopeSerializer,
    MatchSessionSerializer,
    MatchTokenEnvelopeSerializer,
    MatchTokenSerializer,
    ProposalEnvelopeSerializer,
    ProposalSerializer,
)

__all__ = [
    "MAX_AMOUNT_DECIMALS",
    "MAX_TAGS",
    "BudgetRangeSerializer",
    "ConstraintsField",
    "IntentCreateSerializer",
    "IntentEnvelopeSerializer",
    "IntentFeedQuerySerializer",
    "IntentFeedSerializer",
    "IntentMandateSerializer",
    "IntentMandateSignSerializer",
    "IntentMandateVerificationSerializer",
    "IntentMandateVerifySerializer",
    "IntentProposalsQuerySerializer",
    "IntentProposalsSerializer",
    "IntentSerializer",
    "JsonIntegerField",
    "MatchAcceptSerializer",
    "MatchCreateSerializer",
    "MatchDetailSerializer",
    "MatchGetQuerySerializer",
    "MatchSessionEnvelopeSerializer",
    "MatchSessionSerializer",
    "MatchTokenEnvelopeSerializer",
    "MatchTokenSerializer",
    "PositiveAmountField",
    "ProposalCreateSerializer",
    "ProposalEnvelopeSerializer",
    "ProposalSerializer",
    "RecommendQuerySerializer",
    "RecommendSerializer",
    "RetrievalSerializer",
    "SignedIntentMandateSerializer",
]
