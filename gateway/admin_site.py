"""The staff console: Django's admin, whose front page opens on today's activity.

Each figure links to the records behind it, filtered, so staff go from "3 deliveries failing"
to the deliveries, their attempts and the merchant in a click or two. The apps' admin modules
provide the figures (gateway.admin_display.console_tiles): this module imports no app.
"""

from typing import Any

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

from gateway.admin_display import TILE_PROVIDERS, Tile


def today_tiles() -> list[Tile]:
    """Today's figures (UTC) of every app that shows some (gateway.admin_display.console_tiles),
    each with the admin list that shows those records."""
    start = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    return [tile for _, provider in sorted(TILE_PROVIDERS) for tile in provider(start)]


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
