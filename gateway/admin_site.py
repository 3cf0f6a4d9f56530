"""The staff console: Django's admin, whose front page opens on today's activity.

Each figure links to the records behind it, filtered, so staff go from "3 deliveries failing"
to the deliveries, their attempts and the merchant in a click or two. The apps' admin modules
provide the figures (kernel.admin_display.console_tiles): this module imports no app.
"""

from typing import Any
from urllib.parse import urlsplit

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import resolve
from django.utils import timezone

from gateway.admin_forms import ConsoleForms
from kernel.admin_display import OUT_OF_REACH, TILE_PROVIDERS, Tile


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
            base.__name__, (SecretsOutOfReach, ConsoleForms, base), {"__module__": base.__module__}
        )
        super().register(model_or_iterable, guarded, **options)

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        tiles = today_tiles(request.user)
        context = {"tiles": tiles, "today": timezone.now().date(), **(extra_context or {})}
        response: TemplateResponse = super().index(request, context)
        return response


class GatewayAdminConfig(AdminConfig):
    default_site = "gateway.admin_site.GatewayAdminSite"
