from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from merchants.endpoints import endpoint_problem
from merchants.models import MUTABLE_FIELDS, MerchantAgent


class MerchantAgentForm(forms.ModelForm):
    class Meta:
        model = MerchantAgent
        fields = MUTABLE_FIELDS

    def clean_agent_endpoint(self) -> str:
        endpoint: str = self.cleaned_data["agent_endpoint"]
        problem = endpoint_problem(endpoint)
        if problem:
            raise forms.ValidationError(f"The endpoint {problem}.")
        return endpoint


@admin.register(MerchantAgent)
class MerchantAgentAdmin(admin.ModelAdmin):
    form = MerchantAgentForm
    list_display = ("merchant_id", "status", "agent_endpoint", "protocol_version", "last_seen_at")
    list_filter = ("status", "protocol_version")
    search_fields = ("merchant_id", "agent_endpoint")
    date_hierarchy = "registered_at"
    # The token hash and the webhook secret never appear in the admin.
    exclude = ("token_hash", "webhook_secret")
    readonly_fields = (
        "merchant_id",
        "registered_at",
        "updated_at",
        "last_seen_at",
        "deactivated_at",
        "status",
    )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Merchants register themselves: only registration issues a token and a secret.
        return False
