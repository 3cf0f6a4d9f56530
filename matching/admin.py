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

from gateway.admin_display import (
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
class IntentAdmin(admin.ModelAdmin):
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
    readonly_fields = (
        "intent_id",
        "resolution_attempts",
        "next_resolution_at",
        "resolution_error",
        "created_at",
        "updated_at",
    )
    inlines = [ProposalInline, MatchSessionInline]
    actions = ["resolve_now"]

    @admin.action(description="Try the selected unresolved intents again (given up ones too)")
    def resolve_now(self, request: HttpRequest, queryset: QuerySet[Intent]) -> None:
        count = queryset.filter(resolution_source=ResolutionSource.UNRESOLVED).update(
            next_resolution_at=timezone.now()
        )
        self.message_user(
            request,
            f"{count} unresolved {'intent' if count == 1 else 'intents'} will be tried again "
            "at the next sweep (within INTENT_SWEEP_INTERVAL_S).",
            messages.SUCCESS,
        )


@admin.register(Proposal)
class ProposalAdmin(admin.ModelAdmin):
    list_display = ("proposal_id", "merchant", "intent", "product", "price", "status", "created_at")
    list_select_related = ("merchant", "intent", "product")
    list_filter = ("status", "provenance", "inventory_status")
    search_fields = ("=proposal_id", "=intent__intent_id", "merchant__merchant_id", "offer_title")
    date_hierarchy = "created_at"
    raw_id_fields = ("merchant", "intent", "product")
    readonly_fields = (
        "proposal_id",
        "proposal_score_inputs",
        "ranked_in",
        "created_at",
        "updated_at",
    )

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
    """The session's ranking as staff read it: each proposal with its merchant, product, score,
    the weighted components that made the score, and the reasons, best first."""
    names = list(ranking.WEIGHTS)
    merchants = dict(
        MerchantAgent.objects.filter(
            merchant_id__in={item.get("merchant_agent_id") for item in session.ranked_proposals}
        ).values_list("merchant_id", "pk")
    )
    head = format_html_join(
        "", "<th>{} <small>(&times;{})</small></th>", ((n, ranking.WEIGHTS[n]) for n in names)
    )
    rows = []
    for item in session.ranked_proposals:
        merchant = item.get("merchant_agent_id") or "catalog"
        components = item.get("components") or {}
        rows.append(
            format_html(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td>{}<td>{}</td></tr>",
                item.get("rank"),
                _link("matching_proposal", item["proposal_id"], item["proposal_id"]),
                _link("merchants_merchantagent", merchants[merchant], merchant)
                if merchant in merchants
                else merchant,
                _link("catalog_product", item.get("product_id"), item.get("product_id"))
                if item.get("product_id") is not None
                else "-",
                f"{item.get('score', 0):.3f}",
                format_html_join("", "<td>{}</td>", ((components.get(n, "-"),) for n in names)),
                "; ".join(item.get("reasons") or []),
            )
        )
    return format_html(
        '<table class="ranking"><thead><tr><th>rank</th><th>proposal</th><th>merchant</th>'
        "<th>product</th><th>score</th>{}<th>reasons</th></tr></thead><tbody>{}</tbody></table>",
        head,
        format_html_join("", "{}", ((row,) for row in rows)),
    )


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
class MatchSessionAdmin(admin.ModelAdmin):
    list_display = ("match_session_id", "intent", "best_proposal", "status", "created_at")
    list_filter = ("status",)
    search_fields = ("=match_session_id", "=intent__intent_id")
    date_hierarchy = "created_at"
    fields = ("match_session_id", "intent", "best_proposal", "status", "ranking", "summary_json")
    readonly_fields = (
        "match_session_id",
        "intent",
        "best_proposal",
        "status",
        "ranking",
        "summary_json",
    )
    inlines = [MatchTokenInline]
    actions = ["expire"]

    @admin.display(description="ranked proposals: why each one placed where it did")
    def ranking(self, session: MatchSession) -> SafeString:
        return ranking_table(session)

    @admin.display(description="summary")
    def summary_json(self, session: MatchSession) -> SafeString:
        return pretty_json(session.summary)

    @admin.action(description="Expire the selected open sessions")
    def expire(self, request: HttpRequest, queryset: QuerySet[MatchSession]) -> None:
        count = queryset.filter(status=MatchStatus.OPEN).update(status=MatchStatus.EXPIRED)
        self.message_user(request, f"{count} session(s) expired.", messages.SUCCESS)


@admin.register(MatchToken)
class MatchTokenAdmin(ReadOnlyAdmin):
    list_display = (
        "match_token_id",
        "session",
        "proposal",
        "acceptance_state",
        "issued_at",
        "accepted_at",
    )
    list_filter = ("acceptance_state",)
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
        "issued_at",
        "expires_at",
    )
    list_select_related = ("product",)
    list_filter = ("currency", "key_id")
    search_fields = ("=mandate_id", "=product__id", "product__title", "=key_id")
    date_hierarchy = "issued_at"
    fields = (
        "mandate_id",
        "product",
        "amount_limit",
        "currency",
        "key_id",
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
        ),
        Tile(
            "proposals",
            Proposal.objects.filter(created_at__gte=start).count(),
            changelist(Proposal, **created_today),
        ),
        Tile(
            "match sessions",
            MatchSession.objects.filter(created_at__gte=start).count(),
            changelist(MatchSession, **created_today),
        ),
        Tile(
            "accepted match tokens",
            accepted.count(),
            changelist(MatchToken, acceptance_state="accepted", accepted_at__gte=since),
        ),
    ]
