"""What several matching endpoints document alike: typed id parameters and credential errors."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from kernel.contract import (
    MISSING_TOKEN,
    id_parameter,
)
from kernel.errors import (
    INVALID_TOKEN,
)
from kernel.ids import INTENT, MATCH_SESSION, MATCH_TOKEN, PROPOSAL
from matching.demand import HEADER as DEMAND_HEADER

TOKEN_ERRORS = {401: MISSING_TOKEN, 403: INVALID_TOKEN.doc()}


INTENT_ID = id_parameter("intentId", INTENT, "The intent_id: `int_` and 24 hex characters.")


PROPOSAL_ID = id_parameter("proposalId", PROPOSAL, "The proposal_id: `prp_` and 24 hex characters.")


MATCH_SESSION_ID = id_parameter(
    "matchSessionId", MATCH_SESSION, "The match_session_id: `mss_` and 24 hex characters."
)


MATCH_TOKEN_ID = id_parameter(
    "matchTokenId", MATCH_TOKEN, "The match_token_id: `mtk_` and 24 hex characters."
)


DEMAND_TOKEN = OpenApiParameter(
    DEMAND_HEADER,
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description="The demand_token that creating the intent (POST /v1/intents or GET "
    "/v1/recommend) answered. A confirmation that carries it is the demand side's decision; "
    "one that does not is recorded, but no sale is credited through it. A value that is not "
    "the intent's credential is 403.",
)


# Answers that carry a credential shown once are kept by no cache on the way.
NOT_STORED = {"Cache-Control": "no-store"}
