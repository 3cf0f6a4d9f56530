"""The staff console: Django's admin, whose front page opens on today's activity.

Each figure links to the records behind it, filtered, so staff go from "3 deliveries failing"
to the deliveries, their attempts and the merchant in a click or two. The apps' admin modules
provide the figures (gateway.admin_display.console_tiles): this module imports no app.
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

from gateway.admin_display import TILE_PROVIDERS, Tile
from gateway.admin_forms import ConsoleForms


def _may_view(user: Any, tile: Tile) -> bool:
    """Whether `user` may view the records behind a tile (those of the admin list it links)."""
    model_admin = getattr(resolve(urlsplit(tile.url).path).func, "model_admin", None)
    if model_admin is None:
        return False
    opts = model_admin.model._meta
    return bool(user.has_perm(f"{opts.app_label}.view_{opts.model_name}"))


def today_tiles(user: Any) -> list[Tile]:
    """Today's figures (UTC) of every app that shows some (gateway.admin_display.console_tiles),
    each with the admin list that shows those records; only those `user` may view."""
    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    tiles = [tile for _, provider in sorted(TILE_PROVIDERS) for tile in provider(start)]
    return [tile for tile in tiles if _may_view(user, tile)]


# Columns that hold a secret or a hash of one. No admin page filters, searches or orders by
# them, on the model or through a relation, whatever the staff member's permissions.
SECRET_COLUMNS = frozenset({"webhook_secret", "token_hash", "password", "demand_token_hash"})


class SecretsOutOfReach:
    """Mixed into every ModelAdmin of the site: a query-string lookup that touches a secret
    column (`?webhook_secret__startswith=`, `?merchant__token_hash__gt=`) is refused (400), as
    Django refuses it on a user's password."""

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        if SECRET_COLUMNS.intersection(lookup.split(LOOKUP_SEP)):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc]


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
