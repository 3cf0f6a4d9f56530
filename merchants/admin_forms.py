"""The merchant's page in the staff console edits what the merchant itself may change (PATCH),
checked as the API checks it: its endpoint, its lists as the API keeps them, its metadata no
larger than the API takes."""

from typing import Any

from django import forms

from kernel.admin_lists import StringListField, country_codes
from kernel.admin_objects import ItemsField, KeyValueField
from kernel.serializer_fields import METADATA_MAX_BYTES
from merchants.endpoints import registration_problem
from merchants.models import MUTABLE_FIELDS, MerchantAgent


def _tags(help_text: str = "") -> StringListField:
    """Tags as the API takes them (merchants/serializers.py): at most 100 of 64 characters,
    lower-cased."""
    return StringListField(max_items=100, max_length=64, normalize=str.lower, help_text=help_text)


class MerchantAgentForm(forms.ModelForm):
    subscription_tags = _tags(
        'The intent tags it receives, "*" for all; one a line or separated by commas.'
    )
    capabilities = _tags()
    category_tags = _tags()
    regions = country_codes()
    inventory_scope = ItemsField(
        max_items=100,
        help_text="What it stocks, one scope a line, e.g. “sku_prefix = TF-; region = US”.",
    )
    metadata = KeyValueField(max_bytes=METADATA_MAX_BYTES)

    class Meta:
        model = MerchantAgent
        fields = MUTABLE_FIELDS

    def clean_agent_endpoint(self) -> str:
        endpoint: str = self.cleaned_data["agent_endpoint"]
        problem = registration_problem(endpoint)
        if problem:
            raise forms.ValidationError(f"The endpoint {problem}.")
        return endpoint

    def clean_inventory_scope(self) -> list[Any]:
        """Each scope is an object, as the API takes them."""
        scopes: list[Any] = self.cleaned_data["inventory_scope"]
        for number, scope in enumerate(scopes, start=1):
            if not isinstance(scope, dict):
                raise forms.ValidationError(
                    "Scope %(number)d is not of the form “name = value; name = value”.",
                    code="not_an_object",
                    params={"number": number},
                )
        return scopes
