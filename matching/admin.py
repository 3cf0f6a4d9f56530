import json
from datetime import datetime
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import ngettext

from kernel.admin_display import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    Tile,
    changelist,
    console_tiles,
    pretty_json,
)
from matching import ranking
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
from merchants.models import MerchantAgent


class ProposalInline(ReadOnlyInline):
    model = Proposal
    fields = ("proposal_id", "merchant", "product", "offer_title", "price", "status", "valid_until")
    readonly_fields = fields
    show_change_link = True


class MatchSessionInline(ReadOnlyInline):
    model = MatchSession
    fields = ("match_session_id", "best_proposal", "status", "created_at")
    readonly_fields = fields
    show_change_link = True


class ResolutionStateFilter(admin.SimpleListFilter):
    """Where an intent stands with the engine (matching/resolving.py)."""

    title = "resolution"
    parameter_name = "resolution"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("resolved", "resolved"),
            ("waiting", "unresolved, to be tried again"),
            ("given_up", "unresolved, given up"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Intent]) -> QuerySet[Intent]:
        unresolved = queryset.filter(resolution_source=ResolutionSource.UNRESOLVED)
        return {
            "resolved": queryset.exclude(resolution_source=ResolutionSource.UNRESOLVED),
            "waiting": unresolved.filter(next_resolution_at__isnull=False),
            "given_up": unresolved.filter(next_resolution_at__isnull=True),
        }.get(self.value() or "", queryset)


@admin.register(Intent)
class IntentAdmin(ReadOnlyAdmin):
    # Demand agents state intents through the API, which resolves and announces them; what
    # merchants were told is kept as it was told.
    list_display = (
        "intent_id",
        "raw_query",
        "region",
        "resolution_source",
        "resolution_attempts",
        "next_resolution_at",
        "created_at",
    )
    list_filter = (ResolutionStateFilter, "resolution_source", "region")
    search_fields = ("=intent_id", "raw_query")
    date_hierarchy = "created_at"
    inlines = [ProposalInline, MatchSessionInline]
    actions = ["resolve_now"]
    exclude = ("demand_token_hash",)  # the digest of a secret: never shown

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
    list_display = ("proposal_id", "merchant", "intent", "product", "price", "status", "created_at")
    list_select_related = ("merchant", "intent", "product")
    list_filter = ("status", "provenance", "inventory_status")
    search_fields = ("=proposal_id", "=intent__intent_id", "merchant__merchant_id", "offer_title")
    date_hierarchy = "created_at"
    readonly_fields = ("ranked_in",)

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
            link = _link("matching_matchsession", session.pk, session.pk)
            places.append(format_html("{}: {}", link, place))
        if not places:
            return format_html("-")
        return format_html_join(mark_safe("<br>"), "{}", ((place,) for place in places))


def _link(model: str, pk: Any, text: Any) -> SafeString:
    return format_html(
        '<a href="{}">{}</a>', reverse(f"admin:{model}_change", args=[quote(pk)]), text
    )


def ranking_table(session: MatchSession) -> SafeString:
    """The session's ranking as staff read it, best first: each proposal with its merchant and
    product, the score, the components that made it (each with its weight) and the reasons, in
    a table that fits the page (the reasons wrap in the widest column)."""
    merchants = dict(
        MerchantAgent.objects.filter(
            merchant_id__in={item.get("merchant_agent_id") for item in session.ranked_proposals}
        ).values_list("merchant_id", "pk")
    )
    rows = []
    for item in session.ranked_proposals:
        merchant = item.get("merchant_agent_id") or "catalog"
        product = item.get("product_id")
        components = item.get("components") or {}
        who = format_html(
            "{}<small>{} &middot; product {}</small>",
            _link("matching_proposal", item["proposal_id"], item["proposal_id"]),
            _link("merchants_merchantagent", merchants[merchant], merchant)
            if merchant in merchants
            else merchant,
            _link("catalog_product", product, product) if product is not None else "-",
        )
        parts = format_html_join(
            "",
            '<span title="weight {}">{} {}</span>',
            (
                (weight, name, _component(components.get(name)))
                for name, weight in ranking.WEIGHTS.items()
            ),
        )
        reasons = format_html_join(
            "", '<div class="reason">{}</div>', ((r,) for r in item.get("reasons") or [])
        )
        rows.append(
            format_html(
                '<tr><td>{}</td><td>{}</td><td><b>{}</b></td><td class="parts">{}</td>'
                "<td>{}</td></tr>",
                item.get("rank"),
                who,
                f"{item.get('score', 0):.3f}",
                parts,
                reasons,
            )
        )
    return format_html(
        '<table class="ranking"><colgroup><col class="rank"><col class="who"><col class="score">'
        '<col class="parts"><col class="reasons"></colgroup><thead><tr><th>#</th>'
        "<th>proposal</th><th>score</th><th>components</th><th>reasons</th></tr></thead>"
        "<tbody>{}</tbody></table>",
        format_html_join("", "{}", ((row,) for row in rows)),
    )


def _component(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, int | float) else "-"


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
    list_display = ("match_session_id", "intent", "best_proposal", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("=match_session_id", "=intent__intent_id")
    date_hierarchy = "created_at"
    fields = ("match_session_id", "intent", "best_proposal", "status", "ranking", "summary_json")
    readonly_fields = ("ranking", "summary_json")
    inlines = [MatchTokenInline]
    actions = ["expire"]

    @admin.display(description="ranked proposals: why each one placed where it did")
    def ranking(self, session: MatchSession) -> SafeString:
        return ranking_table(session)

    @admin.display(description="summary")
    def summary_json(self, session: MatchSession) -> SafeString:
        return pretty_json(session.summary)

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
        "confirmed_by",
        "issued_at",
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
        "snapshots",
    )
    readonly_fields = fields

    @admin.display(description="snapshots and trace ids")
    def snapshots(self, token: MatchToken) -> SafeString:
        return pretty_json(
            {
                "trace_ids": token.trace_ids,
                "ranking_snapshot": token.ranking_snapshot,
                "proposal_snapshot": token.proposal_snapshot,
                "intent_snapshot": token.intent_snapshot,
            }
        )


@admin.register(IntentMandate)
class IntentMandateAdmin(ReadOnlyAdmin):
    list_display = (
        "mandate_id",
        "product",
        "amount_limit",
        "currency",
        "key_id",
        "algorithm",
        "issued_at",
        "expires_at",
    )
    list_select_related = ("product",)
    list_filter = ("currency", "algorithm", "key_id")
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
        return pretty_json(json.loads(mandate.canonical_payload))


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
