"""The staff console: Django's admin, whose front page opens on today's activity.

Each figure links to the records behind it, filtered, so staff go from "3 deliveries failing"
to the deliveries, their attempts and the merchant in a click or two. The apps' admin modules
provide the figures (kernel.admin_display.console_tiles): this module imports no app.
"""

from typing import Any
from urllib.parse import urlsplit

from axes.apps import AppConfig as AxesAppConfig
from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import resolve
from django.utils import timezone

from gateway.admin_forms import ConsoleForms
from kernel.admin_display import OUT_OF_REACH, TILE_PROVIDERS, Tile, change_link


def _may_view(user: Any, tile: Tile) -> bool:
    """Whether `user` may view the records behind a tile (those of the admin list it links)."""
    model_admin = getattr(resolve(urlsplit(tile.url).path).func, "model_admin", None)
    if model_admin is None:
        return False
    opts = model_admin.model._meta
    return bool(user.has_perm(f"{opts.app_label}.view_{opts.model_name}"))


def today_tiles(user: Any) -> list[Tile]:
    """Today's figures (UTC) of every app that shows some (kernel.admin_display.console_tiles),
    each with the admin list that shows those records; only those `user` may view."""
    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    tiles = [tile for _, provider in sorted(TILE_PROVIDERS) for tile in provider(start)]
    return [tile for tile in tiles if _may_view(user, tile)]


def out_of_reach(path: Any) -> bool:
    """Whether a lookup, search field or ordering (`merchant__token_hash`, `=webhook_secret`,
    `-next_verification_at`) touches a column kept out of reach."""
    if not isinstance(path, str):
        return False
    return bool(OUT_OF_REACH.intersection(path.lstrip("=^@-").split(LOOKUP_SEP)))


class SecretsOutOfReach:
    """Mixed into every ModelAdmin of the site: a query-string lookup that touches a column out
    of reach (`?webhook_secret__startswith=`, `?merchant__token_hash__gt=`,
    `?verification_challenge__startswith=`) is refused (400), as Django refuses it on a user's
    password; no search field or sortable column reaches one either."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if out_of_reach(lookup):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc]

    def get_search_fields(self, request: HttpRequest) -> list[str]:
        fields = super().get_search_fields(request)  # type: ignore[misc]
        return [field for field in fields if not out_of_reach(field)]

    def get_sortable_by(self, request: HttpRequest) -> list[Any]:
        sortable = super().get_sortable_by(request)  # type: ignore[misc]
        return [name for name in sortable if not out_of_reach(self._ordered_by(name))]

    def _ordered_by(self, name: Any) -> Any:
        """What a list column orders by: its admin_order_field, or the field of that name."""
        attribute = getattr(self, name, None) if isinstance(name, str) else name
        return getattr(attribute, "admin_order_field", name) if attribute else name

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        """The list, whose `?o=` ordering skips a column that orders by what is out of reach
        (sortable_by only hides the header's link)."""
        base = super().get_changelist(request, **kwargs)  # type: ignore[misc]

        class GuardedChangeList(base):  # type: ignore[misc,valid-type]
            def get_ordering_field(self, field_name: Any) -> Any:
                field = super().get_ordering_field(field_name)
                return None if out_of_reach(field) else field

        return GuardedChangeList


def _foreign_key(model: type[models.Model], name: Any) -> Any:
    """The foreign key of `model` named `name`, or None."""
    if not isinstance(name, str):
        return None
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return None
    return field if isinstance(field, models.ForeignKey) else None


def _linked(field: Any, site: admin.AdminSite) -> Any:
    """A list column showing the record `field` refers to as a link to its page."""

    def display(obj: models.Model) -> Any:
        related = getattr(obj, field.name)
        if related is None:
            return "-"
        return change_link(related) if type(related) in site._registry else str(related)

    display.__name__ = field.name  # the column's class stays field-<name>
    return admin.display(description=field.verbose_name, ordering=field.name)(display)


class RelatedLinks:
    """Mixed into every ModelAdmin of the site: a list column that is a foreign key (a
    delivery's merchant, a token's proposal) reads as a link to that record's page, as it does
    on a record's own page, never as plain text; the list still fetches them in its query."""

    def get_list_display(self, request: HttpRequest) -> Any:
        names = list(super().get_list_display(request))  # type: ignore[misc]
        site = self.admin_site  # type: ignore[attr-defined]
        return [
            _linked(field, site) if at and (field := _foreign_key(self.model, name)) else name  # type: ignore[attr-defined]
            for at, name in enumerate(names)
        ]

    def get_list_select_related(self, request: HttpRequest) -> Any:
        chosen = super().get_list_select_related(request)  # type: ignore[misc]
        if chosen is True:
            return chosen
        names = super().get_list_display(request)  # type: ignore[misc]
        linked = [name for name in names if _foreign_key(self.model, name)]  # type: ignore[attr-defined]
        return tuple(dict.fromkeys([*(chosen or ()), *linked])) or False


class GatewayAdminSite(admin.AdminSite):
    site_header = "Gateway staff console"
    site_title = "Gateway staff console"
    index_title = "Today"
    # The lists and a session's ranking need the width more than a second menu does: the front
    # page lists every model, and the breadcrumbs lead back to it.
    enable_nav_sidebar = False

    def register(self, model_or_iterable: Any, admin_class: Any = None, **options: Any) -> None:
        base = admin_class or admin.ModelAdmin
        guarded = type(
            base.__name__,
            (SecretsOutOfReach, RelatedLinks, ConsoleForms, base),
            {"__module__": base.__module__},
        )
        super().register(model_or_iterable, guarded, **options)

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        tiles = today_tiles(request.user)
        context = {"tiles": tiles, "today": timezone.now().date(), **(extra_context or {})}
        response: TemplateResponse = super().index(request, context)
        return response


class GatewayAdminConfig(AdminConfig):
    default_site = "gateway.admin_site.GatewayAdminSite"


class StaffLoginAttemptsConfig(AxesAppConfig):
    """django-axes, named for what staff find under it on the console's front page and in its
    breadcrumbs: the staff login's attempts and lockouts (not "Axes")."""

    verbose_name = "Staff login attempts"
