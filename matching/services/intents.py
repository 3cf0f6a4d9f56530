"""Intents: stated by demand agents or recorded by recommend, and the merchants' feed of them."""

from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from asgiref.sync import sync_to_async
from django.db import transaction
from django.db.models import (
    Exists,
    OuterRef,
    Q,
    QuerySet,
)
from django.utils import timezone

from kernel.errors import (
    INTENT_NOT_FOUND,
    MERCHANT_DEACTIVATED,
)
from kernel.ids import INTENT, PROPOSAL, find_minted, new_id
from kernel.inserts import insert_together
from kernel.paging import page_of
from kernel.steps import after_the_wait
from matching import intent_resolution
from matching.demand import new_demand_token
from matching.models import (
    Intent,
    IntentTag,
    Proposal,
    ProposalStatus,
    ResolutionSource,
)
from matching.serializers import IntentSerializer
from merchants.delivery import surge_publish
from merchants.models import MerchantAgent


@dataclass(frozen=True)
class StatedIntent:
    """A new intent and its demand credential, which only this answer ever shows."""

    intent: Intent
    demand_token: str


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
    attempt: intent_resolution.Attempt | None = None,
) -> StatedIntent:
    """Record a demand agent's intent and announce it to the merchants its tags fit
    (Intent.Surge). Tags given by the agent make it `client`-resolved; otherwise the intent
    engine resolves it within its timeout (`attempt`, when the caller already asked it), and
    when it cannot, the intent is stored `unresolved` and tried again on a schedule
    (matching/intent_resolution.py). Never fails for the engine. The intent's demand credential
    (matching/demand.py) is kept as a digest and returned once."""
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
        outcome = attempt or intent_resolution.attempt(raw_query, region)
        fields.update(intent_resolution.creation_fields(outcome, kept=fields, now=timezone.now()))
    demand_token, digest = new_demand_token()
    with transaction.atomic():
        intent = intent_insert(
            intent_id=new_id(INTENT),
            raw_query=raw_query,
            source_channel=source_channel,
            metadata=metadata,
            demand_token_hash=digest,
            **fields,
        )
        surge_publish(intent=IntentSerializer(intent).data)
    return StatedIntent(intent, demand_token)


async def intent_create_async(**fields: Any) -> StatedIntent:
    """`intent_create` for coroutine views: the engine is awaited holding no thread."""
    if fields["intent_tags"]:
        return await sync_to_async(intent_create)(**fields, attempt=None)
    outcome = await intent_resolution.attempt_async(fields["raw_query"], fields["region"])
    return await after_the_wait(partial(intent_create, **fields, attempt=outcome))


def intent_insert(**fields: Any) -> Intent:
    intent = Intent(**fields)
    insert_together([intent], intent_tag_rows(intent))
    return intent


def intent_tag_rows(intent: Intent) -> list[IntentTag]:
    """The index rows of an intent's tags, not yet written."""
    return [IntentTag(intent=intent, tag=tag) for tag in intent.intent_tags]


def intent_get(*, intent_id: str) -> Intent:
    return find_minted(Intent.objects.all(), INTENT, intent_id, INTENT_NOT_FOUND())


@dataclass(frozen=True)
class ProposalsPage:
    intent: Intent
    proposals: list[Proposal]
    next_cursor: str | None


def intent_proposals(
    *,
    intent_id: str,
    include_expired: bool,
    include_superseded: bool = False,
    cursor: str | None = None,
    limit: int = 50,
) -> ProposalsPage:
    """A page of the intent's proposals, oldest first; expired and superseded ones (a merchant
    proposed the same product again) only when asked for."""
    intent = intent_get(intent_id=intent_id)
    proposals = intent.proposals.select_related("merchant")
    if not include_expired:
        proposals = proposals.exclude(
            status=ProposalStatus.SUBMITTED, valid_until__lte=timezone.now()
        )
    if not include_superseded:
        proposals = proposals.exclude(status=ProposalStatus.SUPERSEDED)
    page, next_cursor = page_of(
        proposals,
        id_field="proposal_id",
        prefix=PROPOSAL,
        cursor=cursor,
        limit=limit,
        newest_first=False,
    )
    return ProposalsPage(intent, page, next_cursor)


@dataclass(frozen=True)
class FeedPage:
    intents: list[Intent]
    next_cursor: str | None


def intents_feed(
    *, merchant: MerchantAgent, since: datetime | None, cursor: str | None, limit: int
) -> FeedPage:
    """Intents whose tags fit the merchant's subscriptions and regions, newest first."""
    if merchant.is_deactivated:
        raise MERCHANT_DEACTIVATED()
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
    page, next_cursor = page_of(
        intents, id_field="intent_id", prefix=INTENT, cursor=cursor, limit=limit, newest_first=True
    )
    return FeedPage(page, next_cursor)
