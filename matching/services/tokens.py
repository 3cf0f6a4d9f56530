"""Match tokens: minted for the proposal a demand agent accepts, then confirmed; only the
demand side's confirmation accepts the match (matching/demand.py)."""

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from kernel.errors import (
    MATCH_ALREADY_ACCEPTED,
    MATCH_EXPIRED,
    MATCH_TOKEN_EXPIRED,
    MATCH_TOKEN_NOT_FOUND,
    PROPOSAL_NOT_RANKED,
    PROPOSAL_UNAVAILABLE,
    SESSION_TOKEN_NOT_FOUND,
    TOKEN_OF_ANOTHER_PROPOSAL,
    ApiError,
)
from kernel.ids import MATCH_TOKEN, find_minted, new_id
from matching.demand import confirmer, decides
from matching.models import (
    AcceptanceState,
    Intent,
    MatchSession,
    MatchStatus,
    MatchToken,
    Proposal,
    ProposalStatus,
    Provenance,
)
from matching.serializers import IntentSerializer, ProposalSerializer
from matching.services.sessions import match_get
from merchants.models import MerchantAgent


def match_token_get(*, match_token_id: str) -> MatchToken:
    missing = MATCH_TOKEN_NOT_FOUND()
    return find_minted(MatchToken.objects.all(), MATCH_TOKEN, match_token_id, missing)


def _ensure_live(proposal: Proposal, now: datetime) -> None:
    if not proposal.is_live(now):
        raise PROPOSAL_UNAVAILABLE(status=proposal.status_at(now))


def _already_accepted() -> ApiError:
    return MATCH_ALREADY_ACCEPTED()


def _mint(session: MatchSession, proposal_id: str, request_id: str | None) -> MatchToken:
    ranked = next(
        (item for item in session.ranked_proposals if item["proposal_id"] == proposal_id), None
    )
    if ranked is None:
        raise PROPOSAL_NOT_RANKED()
    existing = session.tokens.filter(proposal_id=proposal_id).first()
    if session.status == MatchStatus.ACCEPTED:
        # Only the accepted token answers now; any other acceptance is a conflict.
        if existing is not None and existing.acceptance_state == AcceptanceState.ACCEPTED:
            return existing
        raise _already_accepted()
    if existing is not None:
        return existing
    proposal = Proposal.objects.select_related("merchant", "intent").get(proposal_id=proposal_id)
    now = timezone.now()
    _ensure_live(proposal, now)
    rank_summary = {
        key: session.summary.get(key) for key in ("weights", "tie_break", "considered", "ranked")
    }
    try:
        with transaction.atomic():
            return MatchToken.objects.create(
                match_token_id=new_id(MATCH_TOKEN),
                session=session,
                intent=proposal.intent,
                proposal=proposal,
                intent_snapshot=dict(IntentSerializer(proposal.intent).data),
                proposal_snapshot=dict(ProposalSerializer(proposal, context={"now": now}).data),
                ranking_snapshot={**ranked, "summary": rank_summary},
                trace_ids={
                    # Only the gateway's own catalog proposals carry an attribution id; a
                    # merchant's metadata must not be able to claim one.
                    "rec_id": proposal.metadata.get("rec_id")
                    if proposal.provenance == Provenance.CATALOG
                    else None,
                    "intent_id": proposal.intent_id,
                    "match_session_id": session.match_session_id,
                    "proposal_id": proposal.proposal_id,
                    "request_id": request_id,
                },
                issued_at=now,
                expires_at=now + timedelta(hours=settings.MATCH_TOKEN_TTL_HOURS),
            )
    except IntegrityError:
        # The same proposal was minted by a concurrent request: that token is the answer.
        return session.tokens.get(proposal_id=proposal_id)


def _decided(intent_id: str) -> bool:
    """Whether a session of the intent is accepted: its demand side has decided, and a
    confirmation that binds nothing is no longer taken anywhere on the intent."""
    return MatchSession.objects.filter(intent_id=intent_id, status=MatchStatus.ACCEPTED).exists()


def _recorded(
    token: MatchToken, now: datetime, accepted_by: MerchantAgent | None, confirmed_by: str
) -> None:
    token.acceptance_state, token.accepted_at = AcceptanceState.ACCEPTED, now
    token.accepted_by, token.confirmed_by = accepted_by, confirmed_by
    token.save(update_fields=["acceptance_state", "accepted_at", "accepted_by", "confirmed_by"])


def _confirm(
    session: MatchSession,
    token: MatchToken,
    accepted_by: MerchantAgent | None,
    confirmed_by: str,
    binding: bool,
) -> MatchToken:
    """Confirm `token`. A `binding` confirmation accepts the match: the session is accepted,
    the proposal too, and the session's other tokens (confirmed without binding or not) are
    superseded, and so are the tokens of the intent's other sessions confirmed without binding.
    Any other is recorded on the token alone (`confirmed_by`), changes nothing else, and gives
    way to the demand side's: once that is made, anywhere on the intent, it is refused."""
    now = timezone.now()
    if token.acceptance_state == AcceptanceState.ACCEPTED and (
        session.status == MatchStatus.ACCEPTED or not binding
    ):
        return token
    if (
        session.status == MatchStatus.ACCEPTED
        or token.acceptance_state == AcceptanceState.SUPERSEDED
        or (not binding and _decided(session.intent_id))
    ):
        raise _already_accepted()
    if token.expires_at <= now:
        raise MATCH_TOKEN_EXPIRED()
    _ensure_live(token.proposal, now)
    _recorded(token, now, accepted_by, confirmed_by)
    if not binding:
        return token
    session.tokens.exclude(pk=token.pk).filter(
        acceptance_state__in=(AcceptanceState.ISSUED, AcceptanceState.ACCEPTED)
    ).update(
        acceptance_state=AcceptanceState.SUPERSEDED,
        accepted_at=None,
        accepted_by=None,
        confirmed_by=None,
    )
    # The intent's other sessions may hold tokens confirmed without binding (a rival's, an
    # anonymous one): the demand side has decided, and they read so.
    MatchToken.objects.filter(
        intent_id=session.intent_id,
        acceptance_state=AcceptanceState.ACCEPTED,
        session__status=MatchStatus.OPEN,
    ).exclude(session=session).update(
        acceptance_state=AcceptanceState.SUPERSEDED,
        accepted_at=None,
        accepted_by=None,
        confirmed_by=None,
    )
    session.status = MatchStatus.ACCEPTED
    session.save(update_fields=["status", "updated_at"])
    Proposal.objects.filter(pk=token.proposal_id).update(
        status=ProposalStatus.ACCEPTED, updated_at=now
    )
    return token


def match_accept(
    *,
    match_session_id: str,
    proposal_id: str | None,
    match_token_id: str | None,
    request_id: str | None,
    accepted_by: MerchantAgent | None = None,
    demand_tokens: Sequence[str] = (),
) -> MatchToken:
    """`proposal_id` mints (or returns) the session's token for that proposal; `match_token_id`
    confirms a minted token.

    The confirmation records who made it (`confirmed_by`, matching/demand.py): the demand side
    when `demand_tokens` (those presented) are the intent's credential, else the merchant whose
    token came with it (also recorded as `accepted_by`), else nobody known. Only the demand
    side's confirmation (anyone's, for an intent without a credential) accepts the match and
    supersedes its other tokens; any other binds nothing (`_confirm`). A demand token that is
    not the intent's is refused (403), on minting too."""
    found = match_get(match_session_id=match_session_id)  # 404 before anything else
    confirmed_by = confirmer(found.intent_id, demand_tokens, accepted_by)
    binding = decides(found.intent_id, confirmed_by)
    with transaction.atomic():
        # Lock the intent, then the session: acceptances of one intent are decided one after
        # the other, in any of its sessions (the demand side's decision in one supersedes the
        # confirmations binding nothing in the others, and refuses those that come after).
        list(Intent.objects.select_for_update().filter(pk=found.intent_id).values_list("pk"))
        session = MatchSession.objects.select_for_update().get(match_session_id=match_session_id)
        if session.status == MatchStatus.EXPIRED:
            raise MATCH_EXPIRED()
        if match_token_id is None:
            assert proposal_id is not None
            return _mint(session, proposal_id, request_id)
        missing = SESSION_TOKEN_NOT_FOUND()
        token = find_minted(session.tokens.all(), MATCH_TOKEN, match_token_id, missing)
        if proposal_id is not None and token.proposal_id != proposal_id:
            raise TOKEN_OF_ANOTHER_PROPOSAL(
                fields={"proposal_id": ["Does not match the token's proposal."]}
            )
        return _confirm(session, token, accepted_by, confirmed_by, binding)
