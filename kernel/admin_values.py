"""JSON values (metadata, capabilities, budgets, snapshots, cards) as staff read and type them
in the staff console, never as JSON text:

- read-only, a value is a small table: an object's keys beside their values, a list's items one
  a line (objects in a list numbered), nested values the same way inside, nothing shown as "-";
- typed in a cell of the console's editors (kernel/admin_objects.py), a value is plain text,
  unless it reads as a number, true, false, null or JSON: `gold` is the text "gold", `3` the
  number 3, `"3"` the text "3", `[1, 2]` a list. What a cell shows reads back as the same value.
"""

import json
import re
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kernel.jsonio import NotJson, loads

# Text that reads as a JSON value rather than as itself.
_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?")
_WORDS = frozenset({"true", "false", "null"})


def read_value(text: str) -> Any:
    """The value typed as `text` in a cell: a number, true, false, null, a quoted text or a
    JSON list or object as JSON (no deeper than the API takes); any other text as itself."""
    text = text.strip()
    if not (text[:1] in ('"', "[", "{") or text in _WORDS or _NUMBER.fullmatch(text)):
        return text
    try:
        return loads(text.encode())
    except NotJson as exc:
        if exc.too_deep:
            raise ValidationError(exc.message, code="too_deep") from None
        if text[:1] in ("[", "{"):
            raise ValidationError(
                "“%(text)s” starts as a list or object but is not valid JSON.",
                code="invalid",
                params={"text": text if len(text) <= 60 else text[:59] + "…"},
            ) from None
        return text  # a text that merely starts with a quote


def write_value(value: Any, *, reserved: str = "") -> str:
    """`value` as a cell shows it, reading back as `value` (read_value): a text as itself
    unless it would read as something else or holds a line break or one of `reserved`, in which
    case quoted."""
    if isinstance(value, str):
        plain = value == value.strip() and not any(char in value for char in "\r\n\t" + reserved)
        return value if plain and _reads_as_itself(value) else json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def _reads_as_itself(text: str) -> bool:
    try:
        return bool(read_value(text) == text)
    except ValidationError:
        return False


def _scalar(value: Any) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))  # 150, as the amount was typed, not 150.0
    return str(value)


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def value_table(value: Any) -> SafeString:
    """A JSON value as staff read it (escaped): "-" for nothing, a text or number as itself,
    a list of texts one a line, an object as a table of its keys, a list of objects numbered."""
    if _is_empty(value):
        return format_html("{}", "-")
    if isinstance(value, dict):
        rows = format_html_join(
            "",
            '<tr><th scope="row">{}</th><td>{}</td></tr>',
            ((key, value_table(item)) for key, item in value.items()),
        )
        return format_html('<table class="values"><tbody>{}</tbody></table>', rows)
    if isinstance(value, list):
        if all(not isinstance(item, dict | list) for item in value):
            items = format_html_join("", "<li>{}</li>", ((_scalar(item),) for item in value))
            return format_html('<ul class="values">{}</ul>', items)
        items = format_html_join("", "<li>{}</li>", ((value_table(item),) for item in value))
        return format_html('<ol class="values">{}</ol>', items)
    return format_html("{}", _scalar(value))


def readable(value: Any) -> SafeString:
    """value_table in a box of its own, which scrolls when the value is long (a card)."""
    return format_html('<div class="values">{}</div>', value_table(value))
