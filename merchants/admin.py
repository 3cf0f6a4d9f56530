from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import ngettext
from kombu.exceptions import OperationalError

from kernel.admin_display import (
    ReadOnlyAdmin,
    ReadOnlyInline,
    Tile,
    changelist,
    console_tiles,
    counted,
    figure,
    grouped,
    intent_link,
    keep_out_of_reach,
    list_link,
    long_name,
    related_filter,
)
from kernel.dispatch import dispatch
from merchants import delivery, services, tasks
from merchants.admin_forms import MerchantAgentForm
from merchants.admin_probes import LATENCY, TRIGGERS
from merchants.models import (
    VERIFICATION_FIELDS,
    DeliveryAttempt,
    DeliveryStatus,
    HealthProbe,
    MerchantAgent,
    MerchantStatus,
    ProbeTrigger,
    WebhookDelivery,
)
from merchants.serializers import VERIFICATION_STATES, verification_state
from merchants.verification import VERIFY_ENDPOINT

keep_out_of_reach(VERIFICATION_FIELDS)


class VerificationFilter(admin.SimpleListFilter):
    """Verified, pending or parked endpoints: a filter of its own, since no lookup may touch a
    verification column (gateway/admin_site.py)."""

    title = "endpoint verification"
    parameter_name = "verification"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(value, value) for value, _ in VERIFICATION_STATES]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        unverified = queryset.filter(endpoint_verified_at__isnull=True)
        return {
            "verified": queryset.filter(endpoint_verified_at__isnull=False),
            "pending": unverified.filter(verification_parked_at__isnull=True),
            "parked": unverified.filter(verification_parked_at__isnull=False),
        }.get(self.value() or "", queryset)


@admin.register(MerchantAgent)
class MerchantAgentAdmin(admin.ModelAdmin):
    form = MerchantAgentForm
    list_display = (
        "merchant_id",
        "status",
        "endpoint",
        "last_seen_at",
        "verification",
        "deliveries_off",
    )
    list_filter = ("status", VerificationFilter, "protocol_version")
    actions = ["probe_now", "verify_now", "deactivate"]
    search_fields = ("merchant_id", "agent_endpoint")
    date_hierarchy = "registered_at"
    # The token hash and the webhook secret never appear in the admin; nor does the pending
    # challenge, which only the endpoint should echo.
    exclude = ("token_hash", "webhook_secret", "verification_challenge", "verification_event_id")
    readonly_fields = (
        "merchant_id",
        "registered_at",
        "updated_at",
        "last_seen_at",
        "deactivated_at",
        "status",
        "deliveries_disabled_at",
        "endpoint_verified_at",
        "verification_attempt_count",
        "next_verification_at",
        "last_verification_error",
        "verification_parked_at",
        "delivery_health",
        "recent_probes",
        "records",
    )
    verification_attempt_count = figure("verification_attempts", "verification attempts")

    @admin.display(description="agent endpoint URL", ordering="agent_endpoint")
    def endpoint(self, merchant: MerchantAgent) -> SafeString | str:
        return long_name(merchant.agent_endpoint)

    @admin.display(description="records")
    def records(self, merchant: MerchantAgent) -> SafeString:
        """Its deliveries, probes and proposals, each the list filtered to this merchant."""
        deliveries = merchant.deliveries.count()
        probes = merchant.probes.count()
        proposals = merchant.proposals.count()
        return format_html(
            "{} &middot; {} &middot; {}",
            list_link(
                WebhookDelivery,
                counted(deliveries, "webhook delivery", "webhook deliveries"),
                merchant__id__exact=merchant.pk,
            ),
            list_link(
                HealthProbe,
                counted(probes, "health probe", "health probes"),
                merchant__id__exact=merchant.pk,
            ),
            _proposals_link(merchant, proposals),
        )

    @admin.display(description="endpoint verification")
    def verification(self, merchant: MerchantAgent) -> str:
        """The state, and for an endpoint not verified why its latest attempt failed."""
        state = verification_state(merchant)
        if state == "verified" or not merchant.last_verification_error:
            return state
        return f"{state}: {merchant.last_verification_error}"

    @admin.display(description="deliveries off since", ordering="deliveries_disabled_at")
    def deliveries_off(self, merchant: MerchantAgent) -> datetime | None:
        return merchant.deliveries_disabled_at

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Merchants register themselves: only registration issues a token and a secret.
        return False

    @admin.display(description="Deliveries, last 24 hours")
    def delivery_health(self, merchant: MerchantAgent) -> SafeString:
        since = timezone.now() - timedelta(hours=24)
        counts = dict(
            merchant.deliveries.filter(created_at__gte=since)
            .values_list("status")
            .annotate(n=Count("id"))
            .values_list("status", "n")
        )
        last = merchant.deliveries.exclude(last_error="").first()
        return format_html(
            "{}<br>{}",
            ", ".join(
                f"{grouped(counts.get(status, 0))} {status}" for status in DeliveryStatus.values
            ),
            f"Latest error: {last.last_error}" if last else "No errors.",
        )

    @admin.display(description="Recent probes")
    def recent_probes(self, merchant: MerchantAgent) -> SafeString:
        probes = merchant.probes.all()[:10]
        if not probes:
            return format_html("{}", "Never probed.")
        return format_html_join(
            "",
            "<div>{} {}: {} {}</div>",
            (
                (
                    f"{probe.checked_at:%Y-%m-%d %H:%M:%S}",
                    TRIGGERS.get(probe.trigger, probe.trigger),  # type: ignore[call-overload]
                    "healthy" if probe.healthy else "unhealthy",
                    probe.error or f"{probe.status_code} in {grouped(probe.latency_ms)} ms",
                )
                for probe in probes
            ),
        )

    def save_model(self, request: HttpRequest, obj: MerchantAgent, form: Any, change: bool) -> None:
        # Through the use case, as a PATCH would: a new endpoint re-enables deliveries.
        changes = {name: form.cleaned_data[name] for name in form.changed_data}
        services.merchant_update(merchant=obj, changes=changes)

    @admin.action(description="Deactivate the selected merchants (withdraws their open proposals)")
    def deactivate(self, request: HttpRequest, queryset: QuerySet[MerchantAgent]) -> None:
        count = 0
        for merchant in queryset:
            services.merchant_deactivate(merchant_id=merchant.merchant_id)
            count += 1
        message = ngettext(
            "%(count)d merchant deactivated.", "%(count)d merchants deactivated.", count
        )
        self.message_user(request, message % {"count": count}, messages.SUCCESS)

    @admin.action(
        description="Send the endpoint verification now (pending merchants; a parked one is "
        "re-armed by its merchant only)",
        permissions=["change"],
    )
    def verify_now(self, request: HttpRequest, queryset: QuerySet[MerchantAgent]) -> None:
        pending = queryset.filter(
            endpoint_verified_at__isnull=True, verification_parked_at__isnull=True
        ).exclude(status=MerchantStatus.DEACTIVATED)
        merchants = list(pending.values_list("pk", flat=True))
        pending.update(next_verification_at=timezone.now())
        # They are due now: with the broker down, the sweeper sends what was not sent.
        if not all(dispatch(VERIFY_ENDPOINT, pk) for pk in merchants):
            self.message_user(
                request, "The broker is unavailable; the sweeper will send them.", messages.WARNING
            )
            return
        message = ngettext(
            "%(count)d verification queued.", "%(count)d verifications queued.", len(merchants)
        )
        self.message_user(request, message % {"count": len(merchants)}, messages.SUCCESS)

    @admin.action(
        description="Probe now (a signed ping, in the background)", permissions=["change"]
    )
    def probe_now(self, request: HttpRequest, queryset: QuerySet[MerchantAgent]) -> None:
        merchants = list(queryset.values_list("pk", flat=True))
        try:
            for pk in merchants:
                tasks.probe.delay(pk, ProbeTrigger.STAFF)
        except (OperationalError, OSError):
            self.message_user(request, "The broker is unavailable; try again.", messages.ERROR)
            return
        message = ngettext(
            "%(count)d probe queued; its result appears on the merchant's page.",
            "%(count)d probes queued; results appear on each merchant's page.",
            len(merchants),
        )
        self.message_user(request, message % {"count": len(merchants)}, messages.SUCCESS)


# Deliveries that wait for no further attempt.
FINISHED = frozenset({DeliveryStatus.SUCCEEDED, DeliveryStatus.FAILED})


class DeliveryAttemptInline(ReadOnlyInline):
    model = DeliveryAttempt
    fields = (
        "number",
        "started_at",
        "outcome",
        "status_code",
        "latency",
        "error",
        "response_excerpt",
    )
    readonly_fields = fields
    latency = LATENCY


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "event_type",
        "merchant",
        "intent_id",
        "status",
        "attempts",
        "last_status_code",
        "next_attempt",
        "created_at",
    )
    list_select_related = ("merchant", "event")
    # From an intent's page: the deliveries that announced it (`?intent=`).
    list_filter = (
        "status",
        "event__event_type",
        ("merchant", admin.RelatedOnlyFieldListFilter),
        related_filter("intent", "intent", "event__intent_id"),
    )
    search_fields = ("=event__event_id", "=event__intent_id", "merchant__merchant_id")
    date_hierarchy = "created_at"
    fields = (
        "event_id",
        "event_type",
        "merchant",
        "intent_id",
        "status",
        "attempts",
        "next_attempt",
        "last_status_code",
        "last_error",
        "created_at",
        "completed_at",
        "payload",
    )
    readonly_fields = fields
    inlines = [DeliveryAttemptInline]
    actions = ["retry_now"]
    attempts = figure("attempt_count", "attempts")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        """A finished delivery (succeeded, failed for good) has no next attempt to show."""
        fields = list(super().get_fields(request, obj))
        if obj is not None and obj.status in FINISHED:
            fields.remove("next_attempt")
        return fields

    @admin.display(description="next attempt at", ordering="next_attempt_at")
    def next_attempt(self, delivery: WebhookDelivery) -> datetime | str | None:
        """When the next attempt is due, while one is pending; nothing once it finished."""
        if delivery.status in FINISHED:
            return ""
        return delivery.next_attempt_at

    @admin.display(description="event type", ordering="event__event_type")
    def event_type(self, delivery: WebhookDelivery) -> str:
        return delivery.event.event_type

    @admin.display(description="intent", ordering="event__intent_id")
    def intent_id(self, delivery: WebhookDelivery) -> SafeString | str:
        return intent_link(delivery.event.intent_id)

    @admin.display(description="Body (the exact bytes signed and sent)")
    def payload(self, delivery: WebhookDelivery) -> SafeString:
        # As stored and sent, never re-serialized: the signature covers these bytes. Long lines
        # wrap on screen (gateway/static/gateway/admin.css); the text itself is unchanged.
        body = delivery.event.body
        return format_html(
            '<pre class="exact-bytes">{}</pre><small>{} bytes, UTF-8</small>',
            body,
            len(body.encode()),
        )

    @admin.action(
        description="Retry now (one more attempt for failed deliveries)", permissions=["act"]
    )
    def retry_now(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        count = delivery.deliveries_retry(delivery_ids=queryset.values_list("pk", flat=True))
        message = ngettext("%(count)d delivery due now.", "%(count)d deliveries due now.", count)
        self.message_user(request, message % {"count": count}, messages.SUCCESS)


def _proposals_link(merchant: MerchantAgent, count: int) -> SafeString:
    """Its proposals, in the matching app's list (`?merchant=`: the proposals' own filter)."""
    return format_html(
        '<a href="{}?{}">{}</a>',
        reverse("admin:matching_proposal_changelist"),
        urlencode({"merchant__id__exact": merchant.pk}),
        counted(count, "proposal", "proposals"),
    )


@console_tiles(position=20)
def today(start: datetime) -> list[Tile]:
    since = start.isoformat()
    failed = WebhookDelivery.objects.filter(status=DeliveryStatus.FAILED, completed_at__gte=start)
    retrying = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, attempt_count__gte=1)
    return [
        Tile(
            "deliveries failed",
            failed.count(),
            changelist(WebhookDelivery, status="failed", completed_at__gte=since),
            alarm=True,
            one="delivery failed",
        ),
        Tile(
            "deliveries retrying",
            retrying.count(),
            changelist(WebhookDelivery, status="pending", attempt_count__gte=1),
            alarm=True,
            one="delivery retrying",
        ),
        Tile(
            "unhealthy merchants",
            MerchantAgent.objects.filter(status=MerchantStatus.UNHEALTHY).count(),
            changelist(MerchantAgent, status="unhealthy"),
            alarm=True,
            one="unhealthy merchant",
        ),
    ]
