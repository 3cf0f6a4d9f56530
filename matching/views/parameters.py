"""What several matching endpoints document alike: typed id parameters and credential errors."""

from gateway.contract import (
    MISSING_TOKEN,
    id_parameter,
)
from gateway.errors import (
    INVALID_TOKEN,
)
from gateway.ids import INTENT, MATCH_SESSION, MATCH_TOKEN, PROPOSAL

TOKEN_ERRORS = {401: MISSING_TOKEN, 403: INVALID_TOKEN.doc()}


INTENT_ID = id_parameter("intentId", INTENT, "The intent_id: `int_` and 24 hex characters.")


PROPOSAL_ID = id_parameter("proposalId", PROPOSAL, "The proposal_id: `prp_` and 24 hex characters.")


MATCH_SESSION_ID = id_parameter(
    "matchSessionId", MATCH_SESSION, "The match_session_id: `mss_` and 24 hex characters."
)


MATCH_TOKEN_ID = id_parameter(
    "matchTokenId", MATCH_TOKEN, "The match_token_id: `mtk_` and 24 hex characters."
)
