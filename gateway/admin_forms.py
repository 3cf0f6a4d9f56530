"""Fields of the staff console's forms, on every ModelAdmin of the site (gateway/admin_site.py),
so no admin module has to remember them:

- JSON: a read-only JSON field reads as an indented block instead of one long line; an editable
  one is a monospace editor, indented, that says at once when its text is not JSON (the server
  says it again on save: "Enter a valid JSON."), and is read by the API's reader
  (gateway/jsonio.loads), so text nested deeper than the API takes is the form's error.
- Related records picked by search (`autocomplete_fields`), with a value that names no record
  refused as a form error: Django's own widget, re-rendering such a value, fails with a 500.
"""

import json
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db import models
from django.forms.fields import InvalidJSONInput
from django.http import HttpRequest

from kernel.admin_display import pretty_json
from kernel.jsonio import NotJson, loads


class JSONEditor(forms.Textarea):
    """A textarea for JSON: indented, monospace, as tall as its text (within reason), checked
    as staff type (gateway/static/gateway/json-editor.js)."""

    class Media:
        js = ["gateway/json-editor.js"]

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"class": "json-editor", "spellcheck": "false", **(attrs or {})})

    def format_value(self, value: Any) -> str | None:
        text = super().format_value(value)
        if not text:
            return text
        try:  # the form field's compact JSON, indented; text that is not JSON stays as typed
            return json.dumps(loads(text.encode()), indent=2, ensure_ascii=False)
        except NotJson:
            return text

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        lines = (self.format_value(value) or "").count("\n") + 1
        context["widget"]["attrs"]["rows"] = min(max(lines, 3), 24)
        return context


def _too_deep(value: Any) -> str | None:
    """Why the text `value` is nested deeper than the API takes, or None."""
    if not isinstance(value, str):
        return None
    try:
        loads(value.encode())
    except NotJson as exc:
        return exc.message if exc.too_deep else None
    return None


class BoundedJSONField(forms.JSONField):
    """Django's JSON form field, whose text is first read as the API reads a body: text nested
    deeper than MAX_JSON_DEPTH is an error of the form, shown again as typed (Django's own
    reader would recurse until the interpreter gave up, a 500)."""

    def to_python(self, value: Any) -> Any:
        if not self.disabled and (problem := _too_deep(value)):
            raise ValidationError(problem, code="invalid")
        return super().to_python(value)

    def bound_data(self, data: Any, initial: Any) -> Any:
        if not self.disabled and _too_deep(data):
            return InvalidJSONInput(data)
        return super().bound_data(data, initial)


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
        self.formfield_overrides = {  # type: ignore[misc]  # Django merges it per instance too
            models.JSONField: {"widget": JSONEditor, "form_class": BoundedJSONField},
            **(self.formfield_overrides or {}),
        }
        super().__init__(model, admin_site)
        # A read-only field is displayed by the admin's attribute of the same name when there
        # is one (django.contrib.admin.utils.lookup_field): one per JSON field that has none.
        for field in model._meta.get_fields():
            if isinstance(field, models.JSONField) and not hasattr(self, field.name):
                setattr(self, field.name, _shown_pretty(field.name))

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField | None:
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = Autocomplete(db_field, self.admin_site, using=kwargs.get("using"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def _shown_pretty(name: str) -> Any:
    def display(obj: models.Model) -> Any:
        value = getattr(obj, name)
        return pretty_json(value) if value not in (None, "", [], {}) else "-"

    return display
