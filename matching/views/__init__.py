"""Intent-matching endpoints: intents, the merchants' intent feed, proposals, matches, tokens,
signed intent mandates."""

from matching.views.intents import (
    IntentViewSet,
)
from matching.views.mandates import (
    IntentMandateViewSet,
)
from matching.views.matches import (
    MatchTokenViewSet,
    MatchViewSet,
)
from matching.views.parameters import (
    INTENT_ID,
    MATCH_SESSION_ID,
    MATCH_TOKEN_ID,
    PROPOSAL_ID,
    TOKEN_ERRORS,
)
from matching.views.proposals import (
    ProposalViewSet,
)
from matching.views.recommend import (
    RecommendViewSet,
)

__all__ = [
    "INTENT_ID",
    "MATCH_SESSION_ID",
    "MATCH_TOKEN_ID",
    "PROPOSAL_ID",
    "TOKEN_ERRORS",
    "IntentMandateViewSet",
    "IntentViewSet",
    "MatchTokenViewSet",
    "MatchViewSet",
    "ProposalViewSet",
    "RecommendViewSet",
]
