from django.contrib import admin

from gateway.admin_display import ReadOnlyAdmin
from reporting.models import Click


@admin.register(Click)
class ClickAdmin(ReadOnlyAdmin):
    list_display = ("recommendation", "product", "channel", "clicked_at", "user_agent")
    list_select_related = ("recommendation__product",)
    list_filter = ("recommendation__channel",)
    search_fields = ("=recommendation__rec_id",)
    date_hierarchy = "clicked_at"

    @admin.display(description="product")
    def product(self, click: Click) -> str:
        return str(click.recommendation.product)

    @admin.display(description="channel")
    def channel(self, click: Click) -> str:
        return click.recommendation.channel or "-"
