"""Intent-matching use cases: intents, proposals, match sessions and match tokens."""

from matching.services.intents import (
    FeedPage,
    StatedIntent,
    intent_create,
    intent_create_async,
    intent_get,
    intent_insert,
    intent_proposals,
    intent_tag_rows,
    intents_feed,
)
from matching.services.proposals import (
    proposal_get,
    proposal_submit,
    proposals_withdraw,
)
from matching.services.sessions import (
    TIE_BREAK,
    Candidate,
    candidates_of,
    intent_facts,
    match_cards,
    match_create,
    match_get,
    proposal_facts,
    session_ranking,
    session_record,
    session_row,
)
from matching.services.tokens import (
    match_accept,
    match_token_get,
)

__all__ = [
    "TIE_BREAK",
    "Candidate",
    "FeedPage",
    "StatedIntent",
    "candidates_of",
    "intent_create",
    "intent_create_async",
    "intent_facts",
    "intent_get",
    "intent_insert",
    "intent_proposals",
    "intent_tag_rows",
    "intents_feed",
    "match_accept",
    "match_cards",
    "match_create",
    "match_get",
    "match_token_get",
    "proposal_facts",
    "proposal_get",
    "proposal_submit",
    "proposals_withdraw",
    "session_ranking",
    "session_record",
    "session_row",
]
