"""JSON objects and lists of them edited in the staff console as a person would, never as JSON
text, and saved as the same JSON the API stores:

- an object (a merchant's metadata, its A2A capabilities) as rows of a name and a value, with
  blank rows to add more (and a button that adds rows, gateway/static/gateway/key-values.js);
- a list (a merchant's inventory scope) one item a line, an object item written as
  `sku_prefix = TF-; region = US`.

A value is typed as kernel/admin_values.py reads it: `gold`, `3`, `true`, `"3"`, `[1, 2]`. What
the form cannot keep (a value without a name, a name twice, an item it cannot read, JSON deeper
than the API takes, an object past its size) is named in the form's error, nothing is saved,
and the rows are shown again as typed.
"""

import contextlib
import json
import re
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kernel.admin_lists import StringListWidget
from kernel.admin_values import read_value, write_value
from kernel.jsonio import json_problem

# Blank rows under an object's rows, for staff to add names without a script.
BLANK_ROWS = 3


def _size(value: Any) -> int:
    """Bytes of `value` as compact JSON, as the API measures metadata."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _write_name(name: str) -> str:
    """A name as its cell shows it: as itself, or quoted as JSON when the cell would not keep it
    (empty, spaces around it, a leading quote)."""
    if name and name == name.strip() and not name.startswith('"'):
        return name
    return json.dumps(name, ensure_ascii=False)


def _read_name(text: str) -> str:
    """A name typed in a cell: the text without spaces around it, or a quoted JSON string."""
    text = text.strip()
    if text.startswith('"'):
        with contextlib.suppress(ValueError):
            name = json.loads(text)
            if isinstance(name, str):
                return name
    return text


class KeyValueWidget(forms.Widget):
    """Rows of two inputs, a name and a value (`metadata-key-0`, `metadata-value-0`, ...)."""

    class Media:
        js = ["gateway/key-values.js"]

    def format_value(self, value: Any) -> list[tuple[str, str]]:
        if isinstance(value, dict):
            return [(_write_name(str(key)), write_value(item)) for key, item in value.items()]
        if isinstance(value, list):  # rows as typed, shown again beside their error
            return [(str(key), str(text)) for key, text in value]
        return []

    def render(
        self, name: str, value: Any, attrs: dict[str, Any] | None = None, renderer: Any = None
    ) -> SafeString:
        rows = self.format_value(value) + [("", "")] * BLANK_ROWS
        first_id = (attrs or {}).get("id") or f"id_{name}"
        cells = format_html_join(
            "",
            '<tr><td><input type="text" name="{0}-key-{1}" value="{2}" aria-label="name"{4}>'
            '</td><td><input type="text" name="{0}-value-{1}" value="{3}" aria-label="value">'
            "</td></tr>",
            (
                (name, n, key, text, format_html(' id="{}"', first_id) if n == 0 else "")
                for n, (key, text) in enumerate(rows)
            ),
        )
        return format_html(
            '<table class="key-values" data-name="{}"><thead><tr><th>Name</th><th>Value</th>'
            "</tr></thead><tbody>{}</tbody></table>",
            name,
            cells,
        )

    def value_from_datadict(self, data: Any, files: Any, name: str) -> list[tuple[str, str]]:
        # Rows as the form numbers them (ASCII digits, no leading zero): any other name is no
        # row of the form's.
        pattern = re.compile(rf"{re.escape(name)}-key-(0|[1-9][0-9]{{0,5}})\Z")
        numbers = sorted(
            (m.group(1) for key in data if (m := pattern.match(key))), key=lambda n: (len(n), n)
        )
        return [
            (data.get(f"{name}-key-{n}", ""), data.get(f"{name}-value-{n}", "")) for n in numbers
        ]

    def value_omitted_from_data(self, data: Any, files: Any, name: str) -> bool:
        return not any(key.startswith(f"{name}-key-") for key in data)

    def id_for_label(self, id_: str) -> str:
        return id_


class KeyValueField(forms.Field):
    """A JSON object typed as rows of a name and a value; blank rows are dropped. `max_bytes`
    bounds the object as compact JSON (metadata: 16 KB, as the API); empty, it is `{}` (None
    for a field that may be null)."""

    widget = KeyValueWidget

    def __init__(self, *, max_bytes: int | None = None, null: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            "One name and its value a row. A value is text, or a number, true, false or a "
            'quoted "text" as in JSON. Empty both cells of a row to remove it.',
        )
        super().__init__(**kwargs)
        self.max_bytes = max_bytes
        self.empty: dict[str, Any] | None = None if null else {}

    def to_python(self, value: Any) -> Any:
        if isinstance(value, dict) or value is None:
            return value if value else self.empty
        result: dict[str, Any] = {}
        errors = []
        for typed, text in value:
            key, text = _read_name(str(typed)), str(text).strip()
            if not typed.strip() and not text:
                continue
            if not typed.strip():
                errors.append(
                    ValidationError(
                        "The value “%(text)s” has no name.", code="no_name", params={"text": text}
                    )
                )
                continue
            if key in result:
                errors.append(
                    ValidationError(
                        "“%(key)s” is named twice.", code="duplicate", params={"key": key}
                    )
                )
                continue
            try:
                result[key] = read_value(text)
            except ValidationError as exc:
                errors.append(_about(key, exc))
        if errors:
            raise ValidationError(errors)
        return result or self.empty

    def validate(self, value: Any) -> None:
        super().validate(value)
        _storable(value)
        if self.max_bytes is not None and _size(value) > self.max_bytes:
            raise ValidationError(
                "At most %(limit)s bytes as compact JSON, not %(size)s.",
                code="too_large",
                params={"limit": f"{self.max_bytes:,}", "size": f"{_size(value):,}"},
            )

    def has_changed(self, initial: Any, data: Any) -> bool:
        if self.disabled:
            return False
        try:
            return bool((initial or self.empty) != self.to_python(data))
        except ValidationError:
            return True


def _storable(value: Any) -> None:
    """Refuse what the API refuses and PostgreSQL cannot store (a NUL character)."""
    problem = json_problem(value)
    if problem:
        raise ValidationError(problem, code="unstorable")


def _about(name: str, exc: ValidationError) -> ValidationError:
    return ValidationError(
        "“%(name)s”: %(problem)s",
        code="item",
        params={"name": name, "problem": " ".join(exc.messages)},
    )


# --- Lists, one item a line -------------------------------------------------------------------

_OPENERS = {"[": "]", "{": "}"}
_LINES = re.compile(r"\r\n|\r|\n")


def _split(line: str, separator: str) -> list[str]:
    """`line` cut at each `separator` outside quotes, lists and objects."""
    pieces, start, closing, quoted, escaped = [], 0, [], False, False
    for at, char in enumerate(line):
        if escaped:
            escaped = False
        elif quoted:
            escaped = char == "\\"
            quoted = char != '"'
        elif char == '"':
            quoted = True
        elif char in _OPENERS:
            closing.append(_OPENERS[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif char == separator and not closing:
            pieces.append(line[start:at])
            start = at + 1
    return [*pieces, line[start:]]


def _read_item(line: str) -> Any:
    """One line of a list: `name = value; ...` an object, anything else a value."""
    pairs = [_split(piece, "=") for piece in _split(line, ";")]
    if not all(len(pair) >= 2 and pair[0].strip() for pair in pairs):
        return read_value(line)
    item: dict[str, Any] = {}
    for key, *rest in pairs:
        item[key.strip()] = read_value("=".join(rest))
    return item


# What `_split` reads as structure: a name or value holding one is written quoted (or the whole
# item as JSON), so that every line reads back as the item it was written from.
_STRUCTURE = ';="[]{}'
_PLAIN_NAME = re.compile(r'[^=;"\[\]{}\s](?:[^=;"\[\]{}\r\n]*[^=;"\[\]{}\s])?\Z')


def _write_item(item: Any) -> str:
    if item == "":
        return '""'  # a blank line would be dropped
    if isinstance(item, dict) and item and all(_PLAIN_NAME.match(key) for key in item):
        return "; ".join(
            f"{key} = {write_value(v, reserved=_STRUCTURE)}" for key, v in item.items()
        )
    return write_value(item, reserved=_STRUCTURE)


class ItemsWidget(StringListWidget):
    def format_value(self, value: Any) -> str | None:
        if isinstance(value, list | tuple):
            return "\n".join(_write_item(item) for item in value)
        return super().format_value(value)


class ItemsField(forms.Field):
    """A JSON list typed one item a line: an object as `name = value; name = value`, any other
    item as a value (kernel/admin_values.py). Blank lines are dropped; at most `max_items`."""

    widget = ItemsWidget

    def __init__(self, *, max_items: int, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text",
            f"One item a line, at most {max_items:,}; an object as “name = value; name = value”.",
        )
        super().__init__(**kwargs)
        self.max_items = max_items

    def to_python(self, value: Any) -> list[Any]:
        if isinstance(value, list):
            return value
        items, errors = [], []
        # Lines end at CR, LF or CRLF only: str.splitlines would also cut at characters that
        # are text in JSON (U+2028, U+0085), splitting one item in two.
        for number, line in enumerate(_LINES.split(str(value or "")), start=1):
            if not line.strip():
                continue
            try:
                items.append(_read_item(line))
            except ValidationError as exc:
                errors.append(_about(f"line {number}", exc))
        if errors:
            raise ValidationError(errors)
        return items

    def validate(self, value: list[Any]) -> None:
        super().validate(value)
        _storable(value)
        if len(value) > self.max_items:
            raise ValidationError(
                "At most %(limit)d items, not %(count)d.",
                code="max_items",
                params={"limit": self.max_items, "count": len(value)},
            )

    def has_changed(self, initial: Any, data: Any) -> bool:
        if self.disabled:
            return False
        try:
            return list(initial or []) != self.to_python(data)
        except ValidationError:
            return True
