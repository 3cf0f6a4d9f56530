from datetime import datetime
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.db.models import QuerySet, Sum, TextField
from django.db.models.functions import Cast
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from kernel.admin_display import ReadOnlyAdmin, Tile, change_link, changelist, console_tiles
from reporting.models import Click, Conversion
from reporting.services.conversions import FLAG_REASONS


@admin.register(Click)
class ClickAdmin(ReadOnlyAdmin):
    """A card's link followed: when, through which card (and so which product and channel),
    from what browser. Not its client key: a keyed hash of the address, kept only to count a
    client once per card."""

    list_display = ("clicked_at", "recommendation", "product", "channel", "user_agent")
    list_select_related = ("recommendation__product",)
    list_filter = ("recommendation__channel",)
    search_fields = ("=recommendation__rec_id",)
    date_hierarchy = "clicked_at"
    fields = ("recommendation", "product", "channel", "clicked_at", "user_agent", "referrer")
    readonly_fields = fields

    @admin.display(description="product", ordering="recommendation__product")
    def product(self, click: Click) -> SafeString:
        return change_link(click.recommendation.product)

    @admin.display(description="channel", ordering="recommendation__channel")
    def channel(self, click: Click) -> str:
        return click.recommendation.channel or "-"


def _change_link(viewname: str, pk: str | None) -> SafeString | str:
    if pk is None:
        return "-"
    return format_html('<a href="{}">{}</a>', reverse(viewname, args=[quote(pk)]), pk)


class FlagReasonFilter(admin.SimpleListFilter):
    """The conversions flagged for one reason of the conversions policy."""

    title = "flagged because"
    parameter_name = "reason"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(flag, flag.replace("_", " ").capitalize()) for flag in FLAG_REASONS]

    def queryset(
        self, request: HttpRequest, queryset: QuerySet[Conversion]
    ) -> QuerySet[Conversion]:
        flag = self.value()
        if flag not in FLAG_REASONS:
            return queryset
        # The flags as JSON text hold the quoted code (a JSON contains lookup is not on SQLite).
        text = Cast("flags", TextField())
        return queryset.filter(flagged=True).alias(text=text).filter(text__contains=f'"{flag}"')


@admin.register(Conversion)
class ConversionAdmin(ReadOnlyAdmin):
    list_display = (
        "conversion_id",
        "merchant",
        "order_id",
        "product",
        "sale",
        "occurred_at",
        "reasons",
    )
    list_select_related = ("merchant", "product")
    list_filter = (
        "flagged",
        FlagReasonFilter,
        "currency",
        "channel",
        ("merchant", admin.RelatedOnlyFieldListFilter),
        "occurred_at",
    )
    search_fields = (
        "=conversion_id",
        "=order_id",
        "merchant__merchant_id",
        "=recommendation__rec_id",
        "=match_token__match_token_id",
        "product__title",
    )
    date_hierarchy = "occurred_at"
    fields = (
        "conversion_id",
        "merchant",
        "order_id",
        "recommendation_link",
        "match_token_link",
        "product",
        "channel",
        "amount",
        "currency",
        "quantity",
        "occurred_at",
        "created_at",
        "reasons_explained",
    )
    readonly_fields = fields

    @admin.display(description="flagged because")
    def reasons(self, conversion: Conversion) -> str:
        return ", ".join(conversion.flags) or "-"

    @admin.display(description="flagged because (no GMV earned)")
    def reasons_explained(self, conversion: Conversion) -> SafeString | str:
        if not conversion.flags:
            return "- (counted in the report)"
        return format_html_join(
            mark_safe("<br>"),
            "<code>{}</code>: {}",
            ((flag, FLAG_REASONS.get(flag, "")) for flag in conversion.flags),
        )

    @admin.display(description="amount", ordering="amount")
    def sale(self, conversion: Conversion) -> str:
        return f"{conversion.amount:,.2f} {conversion.currency}"

    @admin.display(description="card (recommendation)", ordering="recommendation")
    def recommendation_link(self, conversion: Conversion) -> SafeString | str:
        return _change_link("admin:catalog_recommendation_change", conversion.recommendation_id)

    @admin.display(description="match token", ordering="match_token")
    def match_token_link(self, conversion: Conversion) -> SafeString | str:
        return _change_link("admin:matching_matchtoken_change", conversion.match_token_id)


@console_tiles(position=30)
def today(start: datetime) -> list[Tile]:
    """Today's clicks and conversions, and the GMV they credit, one figure per currency (as
    the report counts it: flagged conversions apart, earning none)."""
    since = start.isoformat()
    conversions = Conversion.objects.filter(occurred_at__gte=start)
    credited = conversions.filter(flagged=False)
    gmv = dict(
        credited.values_list("currency")
        .annotate(total=Sum("amount"))
        .values_list("currency", "total")
    )
    return [
        Tile(
            "clicks",
            Click.objects.filter(clicked_at__gte=start).count(),
            changelist(Click, clicked_at__gte=since),
            one="click",
        ),
        Tile(
            "conversions",
            credited.count(),
            changelist(Conversion, flagged=0, occurred_at__gte=since),
            one="conversion",
        ),
        Tile(
            "flagged conversions",
            conversions.filter(flagged=True).count(),
            changelist(Conversion, flagged=1, occurred_at__gte=since),
            alarm=True,
            one="flagged conversion",
        ),
        *(
            Tile(
                f"GMV, {currency}",
                f"{total:,.2f}",
                changelist(Conversion, flagged=0, currency=currency, occurred_at__gte=since),
            )
            for currency, total in sorted(gmv.items())
        ),
        *([] if gmv else [Tile("GMV", 0, changelist(Conversion, occurred_at__gte=since))]),
    ]
