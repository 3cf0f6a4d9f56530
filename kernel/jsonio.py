"""JSON in and out: the renderer, the parser and its limits, and the content negotiation."""

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

import orjson
from django.conf import settings
from rest_framework import exceptions
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

from kernel.errors import ApiError
from kernel.handlers import payload_too_large

# --- JSON in and out ---------------------------------------------------------------------------


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


INT64 = 2**63


def _within_int64(value: Any) -> Any:
    """`value` with every integer beyond 64 bits as a float. A JSON number such as 1e20 is
    parsed as a float, but PostgreSQL's jsonb keeps it as 100000000000000000000 and gives it
    back as an integer that orjson cannot write."""
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64 <= value < INT64:
        return float(value)
    if isinstance(value, dict):
        return {key: _within_int64(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_within_int64(item) for item in value]
    return value


def dumps(data: Any) -> bytes:
    """Serialize to JSON bytes with orjson (Decimals as numbers, datetimes as ISO 8601)."""
    try:
        return orjson.dumps(data, default=_default, option=orjson.OPT_UTC_Z)
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise
        return orjson.dumps(_within_int64(data), default=_default, option=orjson.OPT_UTC_Z)


class OrjsonRenderer(BaseRenderer):
    """Render responses with orjson: plain dicts in, JSON bytes out."""

    media_type = "application/json"
    format = "json"
    charset = None

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        return dumps(data)


class AnyAccept(BaseContentNegotiation):
    """Answer whatever the client accepts: for links that browsers follow (Accept: text/html)."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser:
        return next(iter(parsers))

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, renderer.media_type


MAX_JSON_DEPTH = 32
TOO_DEEP = f"JSON must not nest deeper than {MAX_JSON_DEPTH} levels."


class NotJson(ValueError):
    """Bytes the gateway does not read as JSON: malformed, or nested too deep (`too_deep`)."""

    def __init__(self, message: str, *, too_deep: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.too_deep = too_deep


def loads(raw: bytes) -> Any:
    """The JSON document `raw`, read by every entry point that takes JSON (the REST API's
    parser, A2A, MCP) before anything else parses it. Raises NotJson.

    orjson reads without recursing in Python and stops by itself past 1,024 levels; a document
    deeper than MAX_JSON_DEPTH is refused here, so no parser that recurses (Python's json,
    protobuf's, pydantic's) ever sees one, and every body may end up in a JSON column and be
    served again.
    """
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):  # orjson's own bound, past 1,024 levels
            raise NotJson(TOO_DEEP, too_deep=True) from None
        raise NotJson(f"The request body is not valid JSON: {exc}.") from None
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise NotJson(TOO_DEEP, too_deep=True)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return data


def json_problem(value: Any) -> str | None:
    """Why a parsed JSON body cannot be stored, or None: PostgreSQL refuses NUL characters."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "Strings must not contain NUL characters."
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class OrjsonParser(BaseParser):
    """Parse JSON bodies with orjson, reading at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes.

    DRF's own JSON parser reads the stream without that bound, so a large body would be read
    whole into memory before anything refused it.
    """

    media_type = "application/json"

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise exceptions.UnsupportedMediaType(
                media_type or self.media_type, f"Unsupported charset {encoding!r}."
            )
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise payload_too_large()
        try:
            data = loads(raw)
        except NotJson as exc:
            if exc.too_deep:
                raise ApiError(400, "invalid_body", exc.message) from None
            raise exceptions.ParseError(exc.message) from None
        problem = json_problem(data)
        if problem:
            raise ApiError(400, "invalid_body", problem)
        return data
