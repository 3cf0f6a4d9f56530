"""The staff console: Django's admin, whose front page opens on today's activity.

Each figure links to the records behind it, filtered, so staff go from "3 deliveries failing"
to the deliveries, their attempts and the merchant in a click or two.
"""

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone


@dataclass(frozen=True)
class Tile:
    label: str
    value: int
    url: str
    alarm: bool = False  # shown as a warning while above zero


def _changelist(model: type[Any], **filters: Any) -> str:
    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    return f"{url}?{urlencode(filters)}" if filters else url


def today_tiles() -> list[Tile]:
    """Today's counts (UTC), each with the admin list that shows those records."""
    from matching.models import AcceptanceState, Intent, MatchSession, MatchToken, Proposal
    from merchants.models import DeliveryStatus, MerchantAgent, MerchantStatus, WebhookDelivery

    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    since = start.isoformat()  # with its offset: a naive time would be read in local time
    # The lists' date hierarchy on created_at selects the day by its parts.
    created_today = {
        "created_at__year": start.year,
        "created_at__month": start.month,
        "created_at__day": start.day,
    }
    failed = WebhookDelivery.objects.filter(status=DeliveryStatus.FAILED, completed_at__gte=start)
    retrying = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, attempt_count__gte=1)
    accepted = MatchToken.objects.filter(
        acceptance_state=AcceptanceState.ACCEPTED, accepted_at__gte=start
    )
    return [
        Tile(
            "intents",
            Intent.objects.filter(created_at__gte=start).count(),
            _changelist(Intent, **created_today),
        ),
        Tile(
            "proposals",
            Proposal.objects.filter(created_at__gte=start).count(),
            _changelist(Proposal, **created_today),
        ),
        Tile(
            "match sessions",
            MatchSession.objects.filter(created_at__gte=start).count(),
            _changelist(MatchSession, **created_today),
        ),
        Tile(
            "accepted match tokens",
            accepted.count(),
            _changelist(MatchToken, acceptance_state="accepted", accepted_at__gte=since),
        ),
        Tile(
            "deliveries failed",
            failed.count(),
            _changelist(WebhookDelivery, status="failed", completed_at__gte=since),
            alarm=True,
        ),
        Tile(
            "deliveries retrying",
            retrying.count(),
            _changelist(WebhookDelivery, status="pending", attempt_count__gte=1),
            alarm=True,
        ),
        Tile(
            "unhealthy merchants",
            MerchantAgent.objects.filter(status=MerchantStatus.UNHEALTHY).count(),
            _changelist(MerchantAgent, status="unhealthy"),
            alarm=True,
        ),
    ]


class GatewayAdminSite(admin.AdminSite):
    site_header = "Gateway staff console"
    site_title = "Gateway staff console"
    index_title = "Today"

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        context = {"tiles": today_tiles(), "today": timezone.now().date(), **(extra_context or {})}
        response: TemplateResponse = super().index(request, context)
        return response


class GatewayAdminConfig(AdminConfig):
    default_site = "gateway.admin_site.GatewayAdminSite"
