"""The demand side's credential: proof that a confirmation comes from whoever stated the intent.

Accepting a ranked proposal is open to anyone (the interface declares no credential), so an
acceptance alone cannot tell the shopper's agent from the merchant whose proposal it is. The
request that creates an intent (POST /v1/intents, or GET /v1/recommend, which records an
intent and its match session) answers a `demand_token`, shown once, like a merchant's
registration token: 256 random bits, stored only as a SHA-256 digest. A match token confirmed
with it (header X-Demand-Token) is the demand side's decision: it alone accepts the match
(`decides`). Any other confirmation is recorded on its token as what it was and binds nothing:
the session stays open, the proposal available to the demand side, whose confirmation
supersedes it; the conversions policy (reporting/services/conversions.py) credits no sale to
it, and retention (reporting/retention.py) keeps nothing for it.

One credential per intent, for every session of that intent: POST /v1/match issues none, since
it is open to anyone and a credential it gave out would let anyone, the proposing merchant
included, confirm as the demand side.
"""

import hmac
import secrets
from collections.abc import Sequence

from kernel.digests import token_digest
from kernel.errors import INVALID_DEMAND_TOKEN
from matching.models import ConfirmedBy, Intent
from merchants.models import MerchantAgent

HEADER = "X-Demand-Token"
PREFIX = "dmt_"


def new_demand_token() -> tuple[str, str]:
    """A fresh credential and the digest under which its intent keeps it."""
    token = PREFIX + secrets.token_urlsafe(32)
    return token, token_digest(token)


def demand_token_valid(stored: str, presented: str) -> bool:
    """Whether `presented` is the credential whose digest an intent keeps (`stored`), compared
    in constant time. An intent recorded before credentials existed has none, and nothing is
    its credential."""
    if not stored:
        return False
    return hmac.compare_digest(token_digest(presented), stored)


def intent_digest(intent_id: str) -> str:
    """The stored digest of the intent's credential, read alone (an intent's other columns
    may be large)."""
    return Intent.objects.values_list("demand_token_hash", flat=True).get(pk=intent_id)


def confirmer(intent_id: str, presented: Sequence[str], merchant: MerchantAgent | None) -> str:
    """Who a confirmation of one of the intent's match tokens comes from: the demand side (its
    credential), else a merchant (an X-Merchant-Token alone), else nobody known. Each credential
    presented (in the header, in the body) must be the intent's: one that is not is refused
    (403), never taken for an anonymous confirmation."""
    if presented:
        stored = intent_digest(intent_id)
        if not all(demand_token_valid(stored, token) for token in presented):
            raise INVALID_DEMAND_TOKEN()
        return ConfirmedBy.DEMAND
    return ConfirmedBy.MERCHANT if merchant is not None else ConfirmedBy.ANONYMOUS


def decides(intent_id: str, confirmed_by: str) -> bool:
    """Whether a confirmation so made accepts the match: the demand side's always; anyone's
    for an intent recorded before credentials existed, which has none to confirm with."""
    return confirmed_by == ConfirmedBy.DEMAND or not intent_digest(intent_id)
