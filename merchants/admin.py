from django.contrib import admin

from merchants.models import MerchantAgent


@admin.register(MerchantAgent)
class MerchantAgentAdmin(admin.ModelAdmin):
    list_display = ("merchant_id", "status", "agent_endpoint", "protocol_version", "last_seen_at")
    list_filter = ("status", "protocol_version")
    search_fields = ("merchant_id", "agent_endpoint")
    date_hierarchy = "registered_at"
    # The token hash and the webhook secret never appear in the admin.
    exclude = ("token_hash", "webhook_secret")
    readonly_fields = ("registered_at", "updated_at", "last_seen_at", "deactivated_at", "status")
