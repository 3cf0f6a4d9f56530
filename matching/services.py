"""Intent-matching use cases: intents, proposals, match sessions and match tokens."""

import base64
import binascii
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import orjson
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import (
    BooleanField,
    Exists,
    ExpressionWrapper,
    OuterRef,
    Q,
    QuerySet,
    TextField,
)
from django.db.models.functions import Cast
from django.utils import timezone

from catalog.models import Product, Recommendation, product_id_from
from catalog.services import cards_build, cards_record, products_with_videos
from gateway.api import (
    INTENT,
    MATCH_SESSION,
    MATCH_TOKEN,
    PROPOSAL,
    ApiError,
    find_minted,
    is_minted,
    new_id,
)
from gateway.api import not_found as _not_found
from matching import ranking, resolving
from matching.models import (
    AcceptanceState,
    Intent,
    IntentTag,
    MatchSession,
    MatchStatus,
    MatchToken,
    Proposal,
    ProposalStatus,
    Provenance,
    ResolutionSource,
)
from matching.serializers import IntentSerializer, ProposalSerializer
from merchants.delivery import surge_publish
from merchants.models import MerchantAgent, MerchantStatus
from merchants.services import merchant_get

logger = logging.getLogger(__name__)


def intent_not_found() -> ApiError:
    return _not_found("intent_not_found", "No intent has that intent_id.")


def proposal_not_found(message: str = "No proposal has that proposal_id.") -> ApiError:
    return _not_found("proposal_not_found", message)


def merchant_deactivated() -> ApiError:
    return ApiError(
        403,
        "merchant_deactivated",
        "This merchant agent is deactivated; register again with its token to reactivate it.",
    )


# --- Intents -----------------------------------------------------------------------------------


def intent_create(
    *,
    raw_query: str,
    region: str | None,
    audience: str | None,
    budget_range: dict[str, Any] | None,
    constraints: list[str],
    intent_tags: list[str] | None,
    source_channel: str | None,
    metadata: dict[str, Any],
    attempt: resolving.Attempt | None = None,
) -> Intent:
    """Record a demand agent's intent and announce it to the merchants its tags fit
    (Intent.Surge). Tags given by the agent make it `client`-resolved; otherwise the intent
    engine resolves it within its timeout (`attempt`, when the caller already asked it), and
    when it cannot, the intent is stored `unresolved` and tried again on a schedule
    (matching/resolving.py). Never fails for the engine."""
    fields: dict[str, Any] = {
        "region": region,
        "target_audience": audience,
        "budget_range": budget_range,
        "constraints": constraints,
        "intent_tags": intent_tags or [],
    }
    if intent_tags:
        fields["resolution_source"] = ResolutionSource.CLIENT
    else:
        outcome = attempt or resolving.attempt(raw_query, region)
        fields.update(resolving.creation_fields(outcome, kept=fields, now=timezone.now()))
    with transaction.atomic():
        intent = intent_insert(
            intent_id=new_id(INTENT),
            raw_query=raw_query,
            source_channel=source_channel,
            metadata=metadata,
            **fields,
        )
        surge_publish(intent=IntentSerializer(intent).data)
    return intent


async def intent_create_async(**fields: Any) -> Intent:
    """`intent_create` for coroutine views: the engine is awaited holding no thread."""
    outcome = None
    if not fields["intent_tags"]:
        outcome = await resolving.attempt_async(fields["raw_query"], fields["region"])
    return await sync_to_async(intent_create)(**fields, attempt=outcome)


def intent_insert(**fields: Any) -> Intent:
    intent = Intent.objects.create(**fields)
    IntentTag.objects.bulk_create(IntentTag(intent=intent, tag=tag) for tag in intent.intent_tags)
    return intent


def intent_get(*, intent_id: str) -> Intent:
    return find_minted(Intent.objects.all(), INTENT, intent_id, intent_not_found())


def intent_proposals(*, intent_id: str, include_expired: bool) -> tuple[Intent, list[Proposal]]:
    """The intent's proposals, oldest first; expired ones only when asked for."""
    intent = intent_get(intent_id=intent_id)
    proposals = intent.proposals.select_related("merchant")
    if not include_expired:
        proposals = proposals.exclude(
            status=ProposalStatus.SUBMITTED, valid_until__lte=timezone.now()
        )
    return intent, list(proposals)


@dataclass(frozen=True)
class FeedPage:
    intents: list[Intent]
    next_cursor: str | None


def _cursor(intent: Intent) -> str:
    raw = f"{intent.created_at.isoformat()}|{intent.intent_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _after_cursor(cursor: str) -> Q:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment, intent_id = raw.split("|")
        created_at = datetime.fromisoformat(moment)
        if created_at.tzinfo is None or not is_minted(INTENT, intent_id):
            raise ValueError
        created_at = created_at.astimezone(UTC)
    except (ValueError, UnicodeDecodeError, binascii.Error, OverflowError):
        raise ApiError(
            400,
            "invalid_parameter",
            "The cursor is not one this feed returned.",
            fields={"cursor": ["Pass next_cursor from the previous page unchanged."]},
        ) from None
    return Q(created_at__lt=created_at) | Q(created_at=created_at, intent_id__lt=intent_id)


def intents_feed(
    *, merchant: MerchantAgent, since: datetime | None, cursor: str | None, limit: int
) -> FeedPage:
    """Intents whose tags fit the merchant's subscriptions and regions, newest first."""
    if merchant.is_deactivated:
        raise merchant_deactivated()
    intents: QuerySet[Intent] = Intent.objects.all()
    subscriptions = merchant.subscription_tags
    if "*" not in subscriptions:
        intents = intents.filter(
            Exists(IntentTag.objects.filter(intent=OuterRef("pk"), tag__in=subscriptions))
        )
    if merchant.regions:
        intents = intents.filter(Q(region__isnull=True) | Q(region__in=merchant.regions))
    if since is not None:
        intents = intents.filter(created_at__gte=since)
    if cursor:
        intents = intents.filter(_after_cursor(cursor))
    page = list(intents.order_by("-created_at", "-intent_id")[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    return FeedPage(page, _cursor(page[-1]) if more else None)


# --- Proposals ---------------------------------------------------------------------------------


def proposal_submit(
    *, merchant: MerchantAgent, intent_id: str, product_id: str, fields: dict[str, Any]
) -> Proposal:
    """Record a merchant's proposal; it supersedes the merchant's earlier live proposal of the
    same product for the same intent."""
    if merchant.is_deactivated:
        raise merchant_deactivated()
    intent = intent_get(intent_id=intent_id)
    known = product_id_from(product_id)
    product = Product.objects.filter(id=known).first() if known is not None else None
    if product is None:
        raise _not_found("product_not_found", "No product has that product_id.")
    offer_title = fields.get("offer_title") or product.title
    price = fields.get("price")
    snapshot = fields.get("product_snapshot") or {
        "id": str(product.id),
        "title": product.title,
        "brand": product.brand,
        "price_usd": float(product.price_usd) if product.price_usd is not None else None,
        "category_l1": product.category_l1,
        "category_l2": product.category_l2,
        "url": product.url,
    }
    inputs = ranking.score_inputs(
        price=float(price) if price is not None else None,
        inventory_status=fields.get("inventory_status") or "unknown",
        shipping_commitment=fields.get("shipping_commitment") or {},
        commission_plan=fields.get("commission_plan") or {},
        evidence=fields.get("evidence") or [],
        # The product's own catalog text: offer_title is the merchant's words, shown only.
        product_fields=ranking.product_fields(
            title=product.title,
            tags=product.tags,
            brand=product.brand,
            categories=[product.category_l1, product.category_l2],
        ),
    )
    with transaction.atomic():
        # Lock the merchant: a deactivation committing meanwhile must not leave this proposal
        # live, and two submissions of the same product must supersede one after the other.
        locked = MerchantAgent.objects.select_for_update().get(pk=merchant.pk)
        if locked.is_deactivated:
            raise merchant_deactivated()
        Proposal.objects.filter(
            merchant=merchant, intent=intent, product=product, status=ProposalStatus.SUBMITTED
        ).update(status=ProposalStatus.SUPERSEDED, updated_at=timezone.now())
        return Proposal.objects.create(
            proposal_id=new_id(PROPOSAL),
            merchant=merchant,
            intent=intent,
            product=product,
            offer_title=offer_title,
            price=price,
            inventory_status=fields.get("inventory_status") or "unknown",
            shipping_commitment=fields.get("shipping_commitment") or {},
            commission_plan=fields.get("commission_plan") or {},
            service_terms=fields.get("service_terms") or {},
            evidence=fields.get("evidence") or [],
            valid_until=fields.get("valid_until"),
            proposal_score_inputs=inputs,
            product_snapshot=snapshot,
            metadata=fields.get("metadata") or {},
        )


def proposal_get(*, proposal_id: str) -> Proposal:
    proposals = Proposal.objects.select_related("merchant")
    return find_minted(proposals, PROPOSAL, proposal_id, proposal_not_found())


def merchant_deactivate(*, merchant_id: str) -> MerchantAgent:
    """Deactivate a merchant: it receives no events and its open proposals are withdrawn."""
    merchant = merchant_get(merchant_id=merchant_id)
    with transaction.atomic():
        if not merchant.is_deactivated:
            now = timezone.now()
            merchant.status, merchant.deactivated_at = MerchantStatus.DEACTIVATED, now
            merchant.save(update_fields=["status", "deactivated_at", "updated_at"])
            Proposal.objects.filter(merchant=merchant, status=ProposalStatus.SUBMITTED).update(
                status=ProposalStatus.WITHDRAWN, updated_at=now
            )
    return merchant


# --- Match sessions ----------------------------------------------------------------------------

TIE_BREAK = "score desc, then price asc (none last), then submission time, then proposal_id"


def intent_facts(intent: Intent) -> ranking.IntentFacts:
    budget = intent.budget_range or {}
    return ranking.IntentFacts(
        tags=tuple(intent.intent_tags), budget_min=budget.get("min"), budget_max=budget.get("max")
    )


class Candidate(NamedTuple):
    """What ranking reads of a proposal, computed by the database where it can be: expiry and
    merchant recency as booleans, score inputs as JSON text. Building 1,000 full proposals with
    all their JSON and dates cost more than the ranking itself."""

    proposal_id: str
    status: str
    expired: bool
    product_id: int
    score_inputs: str
    merchant_id: str | None
    merchant_status: str | None
    seen_recently: bool


def candidates_of(intent: Intent, now: datetime) -> QuerySet[Any]:
    """The intent's proposals as Candidate rows, in submission order."""
    return intent.proposals.order_by("created_at", "proposal_id").values_list(
        "proposal_id",
        "status",
        ExpressionWrapper(Q(valid_until__lte=now), output_field=BooleanField()),
        "product_id",
        Cast("proposal_score_inputs", TextField()),
        "merchant__merchant_id",
        "merchant__status",
        ExpressionWrapper(
            Q(merchant__last_seen_at__gte=now - ranking.RECENTLY_SEEN), output_field=BooleanField()
        ),
    )


def proposal_facts(candidate: Candidate, order: int) -> ranking.ProposalFacts:
    inputs = orjson.loads(candidate.score_inputs)
    fields = ranking.ProposalFacts.fields_of(
        inputs.get("product_fields", inputs.get("product_terms"))
    )
    return ranking.ProposalFacts(
        proposal_id=candidate.proposal_id,
        price=inputs.get("price"),
        inventory_status=inputs.get("inventory_status", "unknown"),
        shipping_days=inputs.get("shipping_days"),
        free_shipping=bool(inputs.get("free_shipping")),
        commission_rate=inputs.get("commission_rate"),
        evidence_count=int(inputs.get("evidence_count", 0)),
        product_terms=frozenset().union(*(terms for _, terms in fields)),
        product_fields=fields,
        reliability=ranking.merchant_reliability(
            status=candidate.merchant_status, seen_recently=bool(candidate.seen_recently)
        ),
        order=order,
    )


def session_ranking(
    intent: Intent, candidates: list[Candidate], limit: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rank the live candidates: the ranked items (best first) and the session's summary."""
    live, excluded = [], []
    for candidate in candidates:
        if candidate.status == ProposalStatus.SUBMITTED and not candidate.expired:
            live.append(candidate)
        else:
            reason = ProposalStatus.EXPIRED if candidate.expired else candidate.status
            excluded.append({"proposal_id": candidate.proposal_id, "reason": reason})
    facts = (proposal_facts(candidate, order) for order, candidate in enumerate(live))
    top = ranking.rank(intent_facts(intent), facts, limit)
    by_id = {candidate.proposal_id: candidate for candidate in live}
    for item in top:
        candidate = by_id[item["proposal_id"]]
        item["product_id"] = candidate.product_id
        item["merchant_agent_id"] = candidate.merchant_id or "catalog"
    summary = {
        "weights": ranking.WEIGHTS,
        "considered": len(candidates),
        "ranked": len(live),
        "returned": len(top),
        "excluded": excluded,
        "limit": limit,
        "tie_break": TIE_BREAK,
        "intent_tags": list(intent.intent_tags),
        "budget_range": intent.budget_range,
    }
    return top, summary


def match_create(*, intent_id: str, proposal_ids: list[str] | None, limit: int) -> MatchSession:
    """Rank the intent's live proposals (or the listed ones) and record the session."""
    intent = intent_get(intent_id=intent_id)
    now = timezone.now()
    rows = candidates_of(intent, now)
    if proposal_ids is not None:
        wanted = list(dict.fromkeys(proposal_ids))
        # In submission order, as the query returns them: the tie-break must not depend on
        # the order in which the caller listed the ids.
        found = {row[0]: Candidate(*row) for row in rows.filter(proposal_id__in=wanted)}
        missing = [pid for pid in wanted if pid not in found]
        if missing:
            raise proposal_not_found(f"Not proposals of this intent: {', '.join(missing[:10])}.")
        candidates = list(found.values())
    else:
        candidates = [Candidate(*row) for row in rows]
    top, summary = session_ranking(intent, candidates, limit)
    product_ids = list(dict.fromkeys(item["product_id"] for item in top))
    loaded = {p.id: p for p in products_with_videos().filter(id__in=product_ids)}
    products = [loaded[pid] for pid in product_ids if pid in loaded]
    # Cards are built before the transaction: no write lock is held while they are composed.
    cards = cards_build(products=products, channel=None)
    with transaction.atomic():
        cards_record(products=products, cards=cards, intent_id=intent.intent_id)
        return session_record(intent, top, summary, cards)


def session_record(
    intent: Intent, top: list[dict[str, Any]], summary: dict[str, Any], cards: list[dict[str, Any]]
) -> MatchSession:
    """Record a ranking (session_ranking) with the cards issued for its products."""
    return MatchSession.objects.create(
        match_session_id=new_id(MATCH_SESSION),
        intent=intent,
        best_proposal_id=top[0]["proposal_id"] if top else None,
        ranked_proposals=top,
        summary=summary,
        card_rec_ids=[card["rec_id"] for card in cards],
    )


def match_get(*, match_session_id: str) -> MatchSession:
    missing = _not_found("match_not_found", "No match session has that match_session_id.")
    return find_minted(MatchSession.objects.all(), MATCH_SESSION, match_session_id, missing)


def match_cards(*, session: MatchSession, limit: int | None) -> list[dict[str, Any]]:
    """The cards issued with the session, best first: the products of its first `limit` ranked
    proposals. Reading them writes nothing."""
    ranked = session.ranked_proposals[:limit] if limit else session.ranked_proposals
    wanted = {item["product_id"] for item in ranked}
    cards = dict(
        Recommendation.objects.filter(rec_id__in=session.card_rec_ids).values_list("rec_id", "card")
    )
    return [
        cards[rec_id]
        for rec_id in session.card_rec_ids
        if rec_id in cards and int(cards[rec_id]["product"]["id"]) in wanted
    ]


# --- Match tokens ------------------------------------------------------------------------------


def match_token_get(*, match_token_id: str) -> MatchToken:
    missing = _not_found("match_token_not_found", "No match token has that match_token_id.")
    return find_minted(MatchToken.objects.all(), MATCH_TOKEN, match_token_id, missing)


def _ensure_live(proposal: Proposal, now: datetime) -> None:
    if not proposal.is_live(now):
        raise ApiError(
            409,
            "proposal_unavailable",
            f"The proposal is {proposal.status_at(now)}; it cannot be accepted.",
        )


def _already_accepted() -> ApiError:
    return ApiError(409, "match_already_accepted", "Another proposal of this match was accepted.")


def _mint(session: MatchSession, proposal_id: str, request_id: str | None) -> MatchToken:
    ranked = next(
        (item for item in session.ranked_proposals if item["proposal_id"] == proposal_id), None
    )
    if ranked is None:
        raise proposal_not_found("That proposal is not ranked in this match session.")
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


def _confirm(session: MatchSession, token: MatchToken) -> MatchToken:
    now = timezone.now()
    if token.acceptance_state == AcceptanceState.ACCEPTED:
        return token
    if (
        session.status == MatchStatus.ACCEPTED
        or token.acceptance_state == AcceptanceState.SUPERSEDED
    ):
        raise _already_accepted()
    if token.state_at(now) == AcceptanceState.EXPIRED:
        raise ApiError(410, "match_token_expired", "The match token expired; mint a new match.")
    _ensure_live(token.proposal, now)
    token.acceptance_state, token.accepted_at = AcceptanceState.ACCEPTED, now
    token.save(update_fields=["acceptance_state", "accepted_at"])
    session.tokens.exclude(pk=token.pk).filter(acceptance_state=AcceptanceState.ISSUED).update(
        acceptance_state=AcceptanceState.SUPERSEDED
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
) -> MatchToken:
    """`proposal_id` mints (or returns) the session's token for that proposal; `match_token_id`
    confirms a minted token, which accepts the match and supersedes its other tokens."""
    match_get(match_session_id=match_session_id)  # 404 before anything else
    with transaction.atomic():
        # Lock the session so two acceptances of one match are decided one after the other.
        session = MatchSession.objects.select_for_update().get(match_session_id=match_session_id)
        if session.status == MatchStatus.EXPIRED:
            raise ApiError(409, "match_expired", "This match session has expired.")
        if match_token_id is None:
            assert proposal_id is not None
            return _mint(session, proposal_id, request_id)
        missing = _not_found("match_token_not_found", "No token of this match session has that id.")
        token = find_minted(session.tokens.all(), MATCH_TOKEN, match_token_id, missing)
        if proposal_id is not None and token.proposal_id != proposal_id:
            raise ApiError(
                400,
                "invalid_body",
                "proposal_id and match_token_id name different proposals.",
                fields={"proposal_id": ["Does not match the token's proposal."]},
            )
        return _confirm(session, token)
