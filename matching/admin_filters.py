"""The filters of the matching lists in the staff console, each naming its choices in words:
where an intent stands with the engine, a proposal's inventory, a mandate's signing key."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from matching.models import Intent, IntentMandate, ResolutionSource
from matching.ranking import INVENTORY_STATUSES


class ResolutionStateFilter(admin.SimpleListFilter):
    """Where an intent stands with the engine (matching/intent_resolution.py)."""

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


# A proposal's inventory status (matching/ranking.py AVAILABILITY) in words.
INVENTORY = {
    "in_stock": "In stock",
    "low_stock": "Low stock",
    "preorder": "Preorder",
    "out_of_stock": "Out of stock",
    "unknown": "Unknown",
}


def inventory_words(code: str) -> str:
    return INVENTORY.get(code) or code.replace("_", " ").capitalize()


class InventoryFilter(admin.SimpleListFilter):
    """The proposals of one inventory status, named in words."""

    title = "inventory"
    parameter_name = "inventory_status__exact"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(code, inventory_words(code)) for code in INVENTORY_STATUSES]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(inventory_status=self.value()) if self.value() else queryset


class SigningKeyFilter(admin.SimpleListFilter):
    """The mandates signed with one key, named by the start and end of its id: a key id (a
    43-character thumbprint) is one word, longer than the sidebar is wide."""

    title = "signing key"
    parameter_name = "key_id__exact"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        keys = IntentMandate.objects.order_by("key_id").values_list("key_id", flat=True)
        return [
            (key, key if len(key) <= 16 else f"{key[:8]}…{key[-4:]}") for key in keys.distinct()
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(key_id=self.value()) if self.value() else queryset
