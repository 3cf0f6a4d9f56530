"""Fields of the staff console's forms, on every ModelAdmin of the site (gateway/admin_site.py),
so no admin module has to remember them:

- JSON is never shown nor typed as JSON text. Read-only, a JSON field is a small table of its
  keys and values, a list one item a line (kernel/admin_values.py). Editable, an object is rows
  of a name and a value, a list one item a line (kernel/admin_objects.py); the apps declare the
  lists they know better (kernel/admin_lists.py: tags, regions, URLs), with their limits.
- Related records picked by search (`autocomplete_fields`), with a value that names no record
  refused as a form error: Django's own widget, re-rendering such a value, fails with a 500.
"""

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db import models
from django.http import HttpRequest
from django.utils.text import capfirst

from kernel.admin_objects import ItemsField, KeyValueField
from kernel.admin_values import readable

# A list the app declares nothing for: as many items as a merchant's inventory scope may hold.
MAX_ITEMS = 100


def json_form_field(db_field: "models.JSONField[Any, Any]", **kwargs: Any) -> forms.Field:
    """The form field of a JSON model field: rows of names and values for an object (or a
    field that may be null), one item a line for a list."""
    kwargs.setdefault("label", capfirst(db_field.verbose_name))
    kwargs.setdefault("required", not db_field.blank)
    if db_field.help_text:
        kwargs.setdefault("help_text", db_field.help_text)
    if db_field.default is list:
        return ItemsField(max_items=MAX_ITEMS, **kwargs)
    return KeyValueField(null=db_field.null and db_field.default is not dict, **kwargs)


class Autocomplete(AutocompleteSelect):
    """Django's search-as-you-type picker, re-rendering only submitted values that can name a
    record (a bad one is already the form's error)."""

    def optgroups(self, name: str, value: Any, attrs: Any = None) -> Any:
        to_field = self.field.remote_field.model._meta.get_field(self.field.remote_field.field_name)
        return super().optgroups(name, [v for v in value if _names_a_key(to_field, v)], attrs)


def _names_a_key(field: "models.Field[Any, Any]", value: Any) -> bool:
    try:
        field.to_python(value)
    except ValidationError:
        return False
    return True


class ConsoleForms(admin.ModelAdmin):
    """Mixed into every ModelAdmin of the site."""

    def __init__(self, model: type[models.Model], admin_site: admin.AdminSite) -> None:
        super().__init__(model, admin_site)
        # The admin displays a model field by the field itself (a JSON value on one line,
        # django.contrib.admin.utils.lookup_field): on a page staff may only view, each JSON
        # field is displayed by an attribute of its own instead (get_fields).
        self.json_fields = [
            field for field in model._meta.get_fields() if isinstance(field, models.JSONField)
        ]
        for field in self.json_fields:
            if not hasattr(self, _shown(field.name)):  # the admin's own display comes first
                setattr(self, _shown(field.name), _readable(field))

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_fields(request, obj)
        if obj is None or self.has_change_permission(request, obj):
            return fields
        names = {field.name for field in self.json_fields}
        return [_shown(name) if name in names else name for name in fields]

    def formfield_for_dbfield(
        self, db_field: "models.Field[Any, Any]", request: HttpRequest, **kwargs: Any
    ) -> forms.Field | None:
        if isinstance(db_field, models.JSONField):
            return json_form_field(db_field)
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField | None:
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = Autocomplete(db_field, self.admin_site, using=kwargs.get("using"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def _shown(name: str) -> str:
    return f"{name}_shown"


def _readable(field: "models.Field[Any, Any]") -> Any:
    """The JSON field's value as staff read it (kernel/admin_values.py)."""

    def display(obj: models.Model) -> Any:
        return readable(getattr(obj, field.name))

    return admin.display(description=field.verbose_name)(display)
