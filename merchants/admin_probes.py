"""Health probes in the staff console: when a merchant's endpoint was checked, who asked, and
what it answered."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from kernel.admin_display import ReadOnlyAdmin, figure
from merchants.models import HealthProbe, ProbeTrigger

# Milliseconds, grouped in thousands wherever they are read.
LATENCY = figure("latency_ms", "latency (ms)")

# What asked for a probe, in words (the stored values read "Api" once capitalized).
TRIGGERS = {
    ProbeTrigger.SCHEDULE: "on schedule",
    ProbeTrigger.API: "by its merchant (health API)",
    ProbeTrigger.STAFF: "by staff (probe now)",
}


class TriggerFilter(admin.SimpleListFilter):
    title = "asked"
    parameter_name = "trigger__exact"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(value), label) for value, label in TRIGGERS.items()]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(trigger=self.value()) if self.value() else queryset


@admin.register(HealthProbe)
class HealthProbeAdmin(ReadOnlyAdmin):
    list_display = (
        "merchant",
        "checked_at",
        "healthy",
        "status_code",
        "latency",
        "asked",
        "error",
    )
    latency = LATENCY
    list_select_related = ("merchant",)
    list_filter = ("healthy", TriggerFilter, ("merchant", admin.RelatedOnlyFieldListFilter))

    @admin.display(description="asked", ordering="trigger")
    def asked(self, probe: HealthProbe) -> str:
        return TRIGGERS.get(probe.trigger, probe.trigger)  # type: ignore[call-overload]

    search_fields = ("merchant__merchant_id",)
    date_hierarchy = "checked_at"
