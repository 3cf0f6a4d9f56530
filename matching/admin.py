import json
from datetime import datetime
from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import ngettext

from kernel.admin_display import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    Tile,
    change_link,
    changelist,
    console_tiles,
    counted,
    figure,
    list_link,
    related_filter,
)
from kernel.admin_values import readable
from matching.admin_filters import (
    InventoryFilter,
    ResolutionStateFilter,
    SigningKeyFilter,
    inventory_words,
)
from matching.admin_session import CATALOG, ranking_table, summary_table
from matching.models import (
    AcceptanceState,
    Intent,
    IntentMandate,
    MatchSession,
    MatchStatus,
    MatchToken,
    Proposal,
    ResolutionSource,
)
from merchants.models import WebhookDelivery


@admin.display(description="merchant", ordering="merchant__merchant_id")
def offered_by(proposal: Proposal) -> Any:
    """The merchant, linked; the gateway's own catalog for a catalog proposal, which has none."""
    return change_link(proposal.merchant) if proposal.merchant else CATALOG


PRICE = figure("price", "price")


class ProposalInline(ReadOnlyInline):
    model = Proposal
    fields = (
        "proposal_id",
        "offered_by",
        "product",
        "offer_title",
        "shown_price",
        "status",
        "valid_until",
    )
    readonly_fields = fields
    show_change_link = True
    shown_price = PRICE

    @admin.display(description="merchant")
    def offered_by(self, proposal: Proposal) -> Any:
        return offered_by(proposal)


class MatchSessionInline(ReadOnlyInline):
    model = MatchSession
    fields = ("match_session_id", "best_proposal", "status", "created_at")
    readonly_fields = fields
    show_change_link = True


@admin.register(Intent)
class IntentAdmin(ReadOnlyAdmin):
    # Demand agents state intents through the API, which resolves and announces them; what
    # merchants were told is kept as it was told.
    list_display = (
        "intent_id",
        "raw_query",
        "region",
        "resolution_source",
        "attempts",
        "next_resolution_at",
        "created_at",
    )
    list_filter = (ResolutionStateFilter, "resolution_source", "region")
    search_fields = ("=intent_id", "raw_query")
    date_hierarchy = "created_at"
    inlines = [ProposalInline, MatchSessionInline]
    actions = ["resolve_now"]
    exclude = ("demand_token_hash",)  # the digest of a secret: never shown
    readonly_fields = ("records",)
    attempts = figure("resolution_attempts", "resolution attempts")

    @admin.display(description="records")
    def records(self, intent: Intent) -> SafeString:
        """Its match sessions, proposals and webhook deliveries, each the list filtered to it."""
        sessions = intent.match_sessions.count()
        proposals = intent.proposals.count()
        deliveries = WebhookDelivery.objects.filter(event__intent_id=intent.pk).count()
        return format_html(
            "{} &middot; {} &middot; {}",
            list_link(
                MatchSession, counted(sessions, "match session", "match sessions"), intent=intent.pk
            ),
            list_link(Proposal, counted(proposals, "proposal", "proposals"), intent=intent.pk),
            list_link(
                WebhookDelivery,
                counted(deliveries, "webhook delivery", "webhook deliveries"),
                intent=intent.pk,
            ),
        )

    @admin.action(
        description="Try the selected unresolved intents again (given up ones too)",
        permissions=["act"],
    )
    def resolve_now(self, request: HttpRequest, queryset: QuerySet[Intent]) -> None:
        count = queryset.filter(resolution_source=ResolutionSource.UNRESOLVED).update(
            next_resolution_at=timezone.now()
        )
        message = ngettext(
            "%(count)d unresolved intent will be tried again at the next sweep "
            "(within INTENT_SWEEP_INTERVAL_S).",
            "%(count)d unresolved intents will be tried again at the next sweep "
            "(within INTENT_SWEEP_INTERVAL_S).",
            count,
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)


@admin.register(Proposal)
class ProposalAdmin(ReadOnlyAdmin):
    # Merchants propose through the API (recommend proposes for the catalog); a proposal is
    # what a match session ranked and a match token may hold: never edited afterwards.
    list_display = (
        "proposal_id",
        "offered_by",
        "intent",
        "product",
        "shown_price",
        "status",
        "created_at",
    )
    list_select_related = ("merchant", "intent", "product")
    # From an intent's page: its proposals (`?intent=`); from a merchant's: `?merchant__id__exact`.
    list_filter = (
        "status",
        "provenance",
        InventoryFilter,
        related_filter("intent", "intent", "intent_id"),
    )
    search_fields = ("=proposal_id", "=intent__intent_id", "merchant__merchant_id", "offer_title")
    date_hierarchy = "created_at"
    readonly_fields = ("offered_by", "inventory", "ranked_in")
    shown_price = PRICE

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        """Who offered it in the merchant's place, naming the catalog where there is none; its
        inventory in words."""
        shown: dict[Any, Any] = {"merchant": "offered_by", "inventory_status": "inventory"}
        fields = [
            name
            for name in super().get_fields(request, obj)
            if name not in ("offered_by", "inventory")
        ]
        return [shown.get(name, name) for name in fields]

    @admin.display(description="inventory", ordering="inventory_status")
    def inventory(self, proposal: Proposal) -> str:
        return inventory_words(proposal.inventory_status)

    @admin.display(description="merchant", ordering="merchant__merchant_id")
    def offered_by(self, proposal: Proposal) -> Any:
        return offered_by(proposal)

    @admin.display(description="ranked in")
    def ranked_in(self, proposal: Proposal) -> SafeString:
        """The intent's match sessions, and where this proposal placed in each."""
        places = []
        for session in MatchSession.objects.filter(intent_id=proposal.intent_id):
            found = [
                item for item in session.ranked_proposals if item["proposal_id"] == proposal.pk
            ]
            place = (
                f"rank {found[0]['rank']} of {len(session.ranked_proposals)}, "
                f"score {found[0]['score']:.3f}"
                if found
                else "not among the returned"
            )
            places.append(format_html("{}: {}", change_link(session), place))
        if not places:
            return format_html("{}", "-")
        return format_html_join(mark_safe("<br>"), "{}", ((place,) for place in places))


class MatchTokenInline(ReadOnlyInline):
    model = MatchToken
    fields = (
        "match_token_id",
        "proposal",
        "acceptance_state",
        "issued_at",
        "expires_at",
        "accepted_at",
    )
    readonly_fields = fields
    show_change_link = True


@admin.register(MatchSession)
class MatchSessionAdmin(ReadOnlyAdmin):
    list_display = ("match_session_id", "intent_link", "best_proposal", "status", "created_at")
    list_select_related = ("intent",)
    # From an intent's page: its sessions.
    list_filter = ("status", related_filter("intent", "intent", "intent_id"))
    search_fields = ("=match_session_id", "=intent__intent_id")
    date_hierarchy = "created_at"
    fields = ("match_session_id", "intent", "best_proposal", "status", "ranking", "summary_shown")
    readonly_fields = ("ranking", "summary_shown")
    inlines = [MatchTokenInline]
    actions = ["expire"]

    @admin.display(description="ranked proposals: why each one placed where it did")
    def ranking(self, session: MatchSession) -> SafeString:
        return ranking_table(session)

    @admin.display(description="intent", ordering="intent")
    def intent_link(self, session: MatchSession) -> SafeString:
        return change_link(session.intent)

    @admin.display(description="summary")
    def summary_shown(self, session: MatchSession) -> SafeString:
        return summary_table(session)

    @admin.action(description="Expire the selected open sessions", permissions=["act"])
    def expire(self, request: HttpRequest, queryset: QuerySet[MatchSession]) -> None:
        count = queryset.filter(status=MatchStatus.OPEN).update(status=MatchStatus.EXPIRED)
        message = ngettext("%(count)d session expired.", "%(count)d sessions expired.", count)
        self.message_user(request, message % {"count": count}, messages.SUCCESS)


@admin.register(MatchToken)
class MatchTokenAdmin(ReadOnlyAdmin):
    list_display = (
        "match_token_id",
        "session",
        "proposal",
        "acceptance_state",
        "accepted_at",
    )
    list_filter = ("acceptance_state", "confirmed_by")
    search_fields = ("=match_token_id", "=session__match_session_id", "=proposal__proposal_id")
    date_hierarchy = "issued_at"
    fields = (
        "match_token_id",
        "session",
        "intent",
        "proposal",
        "acceptance_state",
        "issued_at",
        "expires_at",
        "accepted_at",
        "confirmed_by",
        "accepted_by",
        "trace_ids",
        "ranking_snapshot",
        "proposal_snapshot",
        "intent_snapshot",
    )
    readonly_fields = fields


@admin.register(IntentMandate)
class IntentMandateAdmin(ReadOnlyAdmin):
    list_display = (
        "mandate_id",
        "product",
        "limit",
        "currency",
        "algorithm",
        "issued_at",
        "expires_at",
    )
    limit = figure("amount_limit", "amount limit")
    list_select_related = ("product",)
    list_filter = ("currency", "algorithm", SigningKeyFilter)
    search_fields = ("=mandate_id", "=product__id", "product__title", "=key_id")
    date_hierarchy = "issued_at"
    fields = (
        "mandate_id",
        "product",
        "amount_limit",
        "currency",
        "key_id",
        "algorithm",
        "issued_at",
        "expires_at",
        "created_at",
        "payload",
        "signature",
    )
    readonly_fields = fields

    @admin.display(description="signed mandate (canonical payload)")
    def payload(self, mandate: IntentMandate) -> SafeString:
        return readable(json.loads(mandate.canonical_payload))


@console_tiles(position=10)
def today(start: datetime) -> list[Tile]:
    since = start.isoformat()  # with its offset: a naive time would be read in local time
    # The lists' date hierarchy on created_at selects the day by its parts.
    created_today = {
        "created_at__year": start.year,
        "created_at__month": start.month,
        "created_at__day": start.day,
    }
    accepted = MatchToken.objects.filter(
        acceptance_state=AcceptanceState.ACCEPTED, accepted_at__gte=start
    )
    return [
        Tile(
            "intents",
            Intent.objects.filter(created_at__gte=start).count(),
            changelist(Intent, **created_today),
            one="intent",
        ),
        Tile(
            "proposals",
            Proposal.objects.filter(created_at__gte=start).count(),
            changelist(Proposal, **created_today),
            one="proposal",
        ),
        Tile(
            "match sessions",
            MatchSession.objects.filter(created_at__gte=start).count(),
            changelist(MatchSession, **created_today),
            one="match session",
        ),
        Tile(
            "accepted match tokens",
            accepted.count(),
            changelist(MatchToken, acceptance_state="accepted", accepted_at__gte=since),
            one="accepted match token",
        ),
    ]
