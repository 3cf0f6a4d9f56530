"""Lists of strings (tags, regions, capabilities, image URLs) edited in the staff console as
text, one item a line, instead of as JSON: staff type `trail, running` or paste a column of
URLs, and the form says which item is wrong and why, before the model's own validators run.

    tags = StringListField(max_items=30, max_length=64, normalize=str.lower)
    gallery = StringListField(max_items=20, max_length=1000, separators="\\n", item=http_url)

Items are trimmed, blank ones dropped and repeats removed (the first kept), as the API and the
catalog import treat the same lists, so what the console saves reads the same as what they do.
"""

import re
from collections.abc import Callable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.text import Truncator

# Enough of an item to recognise it in a message, not a wall of text.
SHOWN = 60


class StringListWidget(forms.Textarea):
    """A textarea holding one item a line, as tall as its list (within reason)."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__({"class": "string-list", "spellcheck": "false", **(attrs or {})})

    def format_value(self, value: Any) -> str | None:
        if isinstance(value, list | tuple):
            return "\n".join(str(item) for item in value)
        return super().format_value(value)  # text as typed, shown again beside its error

    def get_context(self, name: str, value: Any, attrs: dict[str, Any] | None) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        lines = (self.format_value(value) or "").count("\n") + 2
        context["widget"]["attrs"]["rows"] = min(max(lines, 3), 16)
        return context


def _shown(item: str) -> str:
    return Truncator(item).chars(SHOWN)


class StringListField(forms.Field):
    """A JSON array of strings, typed as text: items separated by new lines (and by commas
    unless `separators` says otherwise: URLs may hold commas). Each item is trimmed and
    `normalize`d; blanks and repeats go; each must fit `max_length` and pass `item` (a
    validator raising ValidationError); at most `max_items` remain."""

    widget = StringListWidget

    def __init__(
        self,
        *,
        max_items: int,
        max_length: int,
        separators: str = ",\n",
        normalize: Callable[[str], str] | None = None,
        item: Callable[[str], None] | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", _help(max_items, max_length, separators))
        super().__init__(**kwargs)
        self.max_items = max_items
        self.max_length = max_length
        self.split = re.compile("|".join(re.escape(s) for s in separators) + "|\r")
        self.normalize = normalize
        self.item = item

    def to_python(self, value: Any) -> list[str]:
        if value in self.empty_values:
            return []
        if isinstance(value, list | tuple):
            pieces = [str(piece) for piece in value]
        else:
            pieces = self.split.split(str(value))
        items = [piece.strip() for piece in pieces]
        if self.normalize:
            items = [self.normalize(item) for item in items]
        return list(dict.fromkeys(item for item in items if item))

    def validate(self, value: list[str]) -> None:
        super().validate(value)
        errors = [problem for item in value if (problem := self._problem(item))]
        if len(value) > self.max_items:
            errors.append(
                ValidationError(
                    "At most %(limit)d items, not %(count)d.",
                    code="max_items",
                    params={"limit": self.max_items, "count": len(value)},
                )
            )
        if errors:
            raise ValidationError(errors)

    def _problem(self, item: str) -> ValidationError | None:
        """Why `item` cannot be kept, naming it; None when it can."""
        if len(item) > self.max_length:
            return ValidationError(
                "“%(item)s” is %(length)s characters long; at most %(limit)s.",
                code="max_length",
                params={
                    "item": _shown(item),
                    "length": f"{len(item):,}",
                    "limit": f"{self.max_length:,}",
                },
            )
        if "\x00" in item:
            return ValidationError(
                "“%(item)s” holds a NUL character.", code="null", params={"item": _shown(item)}
            )
        if self.item is None:
            return None
        try:
            self.item(item)
        except ValidationError as exc:
            return ValidationError(
                "“%(item)s”: %(problem)s",
                code="item",
                params={"item": _shown(item), "problem": " ".join(exc.messages)},
            )
        return None

    def has_changed(self, initial: Any, data: Any) -> bool:
        if self.disabled:
            return False
        return list(initial or []) != self.to_python(data)


def _help(max_items: int, max_length: int, separators: str) -> str:
    apart = "One a line, or separated by commas" if "," in separators else "One a line"
    return f"{apart}; up to {max_items:,} items of at most {max_length:,} characters each."


COUNTRY_CODE = RegexValidator(r"\A[A-Z]{2}\Z", "not a two-letter country code (e.g. US, GB).")


def country_codes(**kwargs: Any) -> StringListField:
    """Regions as ISO 3166-1 alpha-2 codes, upper-cased, as the API and the import take them."""
    kwargs.setdefault(
        "help_text", "Country codes (ISO 3166-1 alpha-2, e.g. US, GB), separated by commas."
    )
    return StringListField(
        max_items=250, max_length=2, normalize=str.upper, item=COUNTRY_CODE, **kwargs
    )
