"""Small pieces the apps' admin pages share: grouped numbers, links between
records and read-only record pages."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.utils import quote
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

# Where a long name or URL may break across lines: after its separators.
_URL_SEPARATORS = re.compile(r"(?<=[/.?&=_:-])(?=[^/.?&=_:-])")


# A name longer than this (a merchant's chosen id, up to 64 characters) may break across lines.
LONG_NAME = 32
_LONG_RUN = re.compile(r"[^\s/.?&=_:-]{25,}")


def long_name(text: str) -> SafeString | str:
    """`text` as is while short; longer, free to break after its separators and, inside a run
    of 25 or more characters with none (`shopxxxx...`), every 16 characters: a 64-character
    merchant id wraps in its column instead of pushing the list's last columns out of view."""
    if len(text) <= LONG_NAME:
        return text
    pieces = []
    for piece in _URL_SEPARATORS.split(text):
        if _LONG_RUN.search(piece):
            pieces += [piece[at : at + 16] for at in range(0, len(piece), 16)]
        else:
            pieces.append(piece)
    return format_html_join(mark_safe("<wbr>"), "{}", ((piece,) for piece in pieces))


def grouped(value: Any) -> str:
    """A number with thousands separators (1,234,567; an amount 1,204.50), "-" for none."""
    if value is None:
        return "-"
    if isinstance(value, Decimal | float):
        return f"{value:,.2f}"
    return f"{value:,}"


def figure(name: str, description: str) -> Any:
    """A list column or read-only field showing the number field `name` grouped in thousands,
    sorted by the field. The admin's own display groups digits only when the whole site does
    (USE_THOUSAND_SEPARATOR), which would group ids and years as well; the attribute needs a
    name other than the field's, which the admin would display first."""

    def display(model_admin: Any, obj: Any) -> str:
        return grouped(getattr(obj, name))

    return admin.display(description=description, ordering=name)(display)


class ReadOnlyAdmin(admin.ModelAdmin):
    """For records only the API creates or that must never change (sessions, tokens,
    deliveries, clicks): staff may look, never add, change or delete. Actions that act on them
    (expire, retry) check a permission of their own."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_act_permission(self, request: HttpRequest) -> bool:
        """For actions declared with permissions=["act"]: the model's change permission, which
        staff hold even though the pages themselves never change a record."""
        opts = self.model._meta
        return bool(request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}"))


class ReadOnlyInline(admin.TabularInline):
    """Rows shown under their parent for reading: none added, changed or deleted there."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# --- The staff console's front page (gateway/admin_site.py) ------------------------------------


@dataclass(frozen=True)
class Tile:
    label: str  # under a count: the plural ("intents")
    value: int | str  # a count, or an amount already formatted ("1,204.50")
    url: str
    alarm: bool = False  # shown as a warning while above zero
    one: str = ""  # the label under a count of 1 ("intent"), when it differs

    @property
    def shown(self) -> str:
        """The value as read on the tile: a count grouped in thousands."""
        return grouped(self.value) if isinstance(self.value, int) else self.value

    @property
    def caption(self) -> str:
        return self.one if self.value == 1 and self.one else self.label


TileProvider = Callable[[datetime], list[Tile]]
TILE_PROVIDERS: list[tuple[int, TileProvider]] = []


def console_tiles(position: int) -> Callable[[TileProvider], TileProvider]:
    """Register an app's figures of the day (given the day's start, UTC) for the front page,
    shown in `position` order."""

    def register(provider: TileProvider) -> TileProvider:
        TILE_PROVIDERS.append((position, provider))
        return provider

    return register


def changelist(model: type[Any], **filters: Any) -> str:
    """The admin list of `model`, filtered."""
    opts = model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    return f"{url}?{urlencode(filters)}" if filters else url


# --- Links between related records, both ways -------------------------------------------------


def change_link(obj: Any, text: Any = None) -> SafeString:
    """A link to the admin page of `obj`, reading `text` (by default what the record calls
    itself)."""
    opts = obj._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[quote(obj.pk)])
    return format_html('<a href="{}">{}</a>', url, long_name(str(obj)) if text is None else text)


def intent_link(intent_id: str | None) -> SafeString | str:
    """A link to the page of the intent `intent_id` (an id other records keep as text: a
    webhook event's, a card's), "-" for none."""
    if not intent_id:
        return "-"
    url = reverse("admin:matching_intent_change", args=[quote(intent_id)])
    return format_html('<a href="{}">{}</a>', url, intent_id)


def list_link(model: type[Any], text: str, **filters: Any) -> SafeString:
    """A link to the admin list of `model` filtered to the records related to one other."""
    return format_html('<a href="{}">{}</a>', changelist(model, **filters), text)


def counted(count: int, one: str, many: str) -> str:
    """ "1 video", "1,204 videos"."""
    return f"{count:,} {one if count == 1 else many}"


def related_filter(title: str, parameter: str, lookup: str) -> type[admin.SimpleListFilter]:
    """A filter of an admin list to the records of one other record (`?creator=runner`), which
    that record's page links to. It shows in the sidebar only while it filters, naming the
    value, with "All" to leave it: a sidebar choice per creator or merchant would be longer than
    the list, and Django refuses a lookup through two relations that no filter declares."""

    class RelatedFilter(admin.SimpleListFilter):
        parameter_name = parameter

        def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
            value = self.value()
            return [(value, value)] if value else []

        def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
            value = self.value()
            if not value:
                return queryset
            # As a subquery: a join through a to-many relation would multiply the list's rows
            # and the counts it annotates (a product's videos).
            try:
                related = queryset.model._default_manager.filter(**{lookup: value})
                return queryset.filter(pk__in=related.values("pk"))
            except (ValueError, ValidationError) as exc:  # not a key of that record
                raise IncorrectLookupParameters(exc) from exc

    RelatedFilter.title = title
    RelatedFilter.__name__ = f"{parameter.title()}Filter"
    return RelatedFilter


# Columns that hold a secret or a hash of one. No admin page filters, searches or orders by
# them, on the model or through a relation, whatever the staff member's permissions
# (gateway/admin_site.py SecretsOutOfReach).
SECRET_COLUMNS = frozenset({"webhook_secret", "token_hash", "password", "demand_token_hash"})
# Those and the columns the apps' admin modules keep out of reach the same way
# (keep_out_of_reach), e.g. the challenge an endpoint verification waits for.
OUT_OF_REACH = set(SECRET_COLUMNS)


def keep_out_of_reach(columns: Iterable[str]) -> None:
    """No admin lookup, search or ordering may touch these columns, on any model or relation."""
    OUT_OF_REACH.update(columns)
