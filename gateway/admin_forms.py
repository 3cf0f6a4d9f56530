"""Fields of the staff console's forms, on every ModelAdmin of the site (gateway/admin_site.py),
so no admin module has to remember them:

- JSON: a read-only JSON field reads as an indented block instead of one long line (a list of
  strings as its items, one a line); an editable one is a monospace editor, indented, that says
  at once when its text is not JSON (the server says it again on save: "Enter a valid JSON."),
  and is read by the API's reader (gateway/jsonio.loads), so text nested deeper than the API
  takes is the form's error. Lists of strings the apps know are edited as text instead
  (kernel/admin_lists.py).
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
from django.utils.html import format_html_join
from django.utils.safestring import mark_safe

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

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField | None:
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = Autocomplete(db_field, self.admin_site, using=kwargs.get("using"))
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


def _shown(name: str) -> str:
    return f"{name}_shown"


def _readable(field: "models.Field[Any, Any]") -> Any:
    """The JSON field's value as staff read it: a list of strings as its items, one a line;
    any other value indented (kernel.admin_display.pretty_json)."""

    def display(obj: models.Model) -> Any:
        value = getattr(obj, field.name)
        if value in (None, "", [], {}):
            return "-"
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return format_html_join(mark_safe("<br>"), "{}", ((item,) for item in value))
        return pretty_json(value)

    return admin.display(description=field.verbose_name)(display)
