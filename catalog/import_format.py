"""One line of the import format, validated: the product, its videos and their creators, or
the reason the line is rejected (LineError). Text is cleaned as it is stored (catalog.text)."""

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import orjson

from catalog.models import REGION, USERNAME, RiskLevel
from catalog.text import clean

MAX_ID = 2**63 - 1  # bigint columns: ids, followers, views


MAX_INT = 2**31 - 1  # integer columns: orders, duration_s


MAX_MONEY = 9_999_999_999.99


MAX_VIDEOS = 200
RISK_LEVELS = tuple(RiskLevel.values)  # Django builds the list on each use


_URL = re.compile(r"https?://[^\s/?#@]+(?:[/?#]\S*)?")


class LineError(ValueError):
    """Why one line of the import was rejected."""


def _text(data: dict[str, Any], key: str, limit: int, *, required: bool = False) -> str | None:
    value = data.get(key)
    if value is None:
        if required:
            raise LineError(f"{key} is required")
        return None
    if not isinstance(value, str):
        raise LineError(f"{key} must be a string")
    if "\x00" in value:
        raise LineError(f"{key} must not contain NUL characters")
    value = value.strip()
    if required and not value:
        raise LineError(f"{key} must not be empty")
    if len(value) > limit:
        raise LineError(f"{key} must be at most {limit} characters")
    return value or None


def _required_text(data: dict[str, Any], key: str, limit: int) -> str:
    value = _text(data, key, limit, required=True)
    assert value is not None  # _text raised otherwise
    return value


def _url(data: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    value = _text(data, key, 1000, required=required)
    if value is not None and not _URL.fullmatch(value):
        raise LineError(f"{key} must be an http(s) URL")
    return value


def _required_url(data: dict[str, Any], key: str) -> str:
    value = _url(data, key, required=True)
    assert value is not None  # _url raised otherwise
    return value


def _count(data: dict[str, Any], key: str, limit: int = MAX_INT) -> int:
    value = data.get(key, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise LineError(f"{key} must be a whole number from 0 to {limit}")
    return value


def _amount(data: dict[str, Any], key: str) -> Decimal | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LineError(f"{key} must be a number")
    # Bounded before the Decimal conversion, which fails on very large exponents.
    if not 0 <= value <= MAX_MONEY:
        raise LineError(f"{key} must be between 0 and {MAX_MONEY:.2f}")
    return Decimal(str(value)).quantize(Decimal("0.01"))


def _strings(data: dict[str, Any], key: str, *, limit: int, each: int) -> list[str]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise LineError(f"{key} must be a list of strings")
    if len(value) > limit:
        raise LineError(f"{key} must have at most {limit} entries")
    items = [item.strip() for item in value if item.strip()]
    if any(len(item) > each for item in items):
        raise LineError(f"{key} entries must be at most {each} characters")
    if any("\x00" in item for item in items):
        raise LineError(f"{key} entries must not contain NUL characters")
    return list(dict.fromkeys(items))


def _moment(data: dict[str, Any], key: str) -> datetime | None:
    value = data.get(key)
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise TypeError
        moment = datetime.fromisoformat(value)
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    except (TypeError, ValueError, OverflowError):
        raise LineError(f"{key} must be an ISO 8601 date-time between years 1 and 9999") from None


def _object(data: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise LineError(f"{where}{key} must be an object")
    return value


# Parsed rows are plain dicts keyed by column (attname): the writer needs only their values, and
# building tens of thousands of model instances was a third of the parsing time.
Row = dict[str, Any]


def _creator(data: dict[str, Any]) -> Row:
    username = _required_text(data, "username", 64)
    if not USERNAME.fullmatch(username):
        raise LineError("creator.username must be 1-64 characters of A-Z a-z 0-9 . _ -")
    return {
        "username": username,
        "display_name": _text(data, "display_name", 200) or username,
        "avatar": _url(data, "avatar"),
        "followers": _count(data, "followers", MAX_ID),
    }


def _video(data: Any, product_id: int, position: int) -> tuple[Row, Row]:
    where = f"videos[{position}]."
    if not isinstance(data, dict):
        raise LineError(f"videos[{position}] must be an object")
    try:
        task_id = _required_text(data, "task_id", 128)
        creator = _creator(_object(data, "creator", ""))
        video = {
            "task_id": task_id,
            "product_id": product_id,
            "thumbnail": _url(data, "thumbnail"),
            "video_url": _url(data, "video_url"),
            "platform_video_url": _url(data, "platform_video_url"),
            "duration_s": _count(data, "duration_s"),
            "gmv_usd": _amount(data, "gmv_usd") or Decimal(0),
            "orders": _count(data, "orders"),
            "views": _count(data, "views", MAX_ID),
            "published_at": _moment(data, "published_at"),
        }
    except LineError as exc:
        raise LineError(f"{where}{exc}") from None
    return video, creator


@dataclass
class ProductRecord:
    """One validated line: the product, its videos and their creators."""

    product: Row
    videos: list[tuple[Row, Row]]  # (video, its creator)
    cleaned: bool = False


def parse_line(raw: bytes | str) -> ProductRecord:
    """Validate one JSON line of the import format, or raise LineError saying why not."""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise LineError(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise LineError("a line must be a JSON object")
    product_id = data.get("id")
    if (
        isinstance(product_id, bool)
        or not isinstance(product_id, int)
        or not 1 <= product_id <= MAX_ID
    ):
        raise LineError("id must be a positive integer")
    risk = data.get("risk_level") or RiskLevel.LOW
    if risk not in RISK_LEVELS:
        raise LineError(f"risk_level must be one of {', '.join(RiskLevel.values)}")
    regions = [region.upper() for region in _strings(data, "regions", limit=250, each=2)]
    if not all(REGION.fullmatch(region) for region in regions):
        raise LineError("regions must be ISO 3166-1 alpha-2 country codes")
    gallery = _strings(data, "gallery", limit=20, each=1000)
    if not all(_URL.fullmatch(url) for url in gallery):
        raise LineError("gallery must hold http(s) URLs")
    audience = data.get("target_audience")
    audience = {} if audience is None else audience
    if not isinstance(audience, dict):
        raise LineError("target_audience must be an object")
    product = {
        "id": product_id,
        "title": _required_text(data, "title", 300),
        "brand": _text(data, "brand", 120),
        "price_usd": _amount(data, "price_usd"),
        "original_price_usd": _amount(data, "original_price_usd"),
        "main_image": _url(data, "main_image"),
        "gallery": gallery,
        "category_l1": _text(data, "category_l1", 120),
        "category_l2": _text(data, "category_l2", 120),
        "url": _required_url(data, "url"),
        "description": _text(data, "description", 5000) or "",
        "tags": _strings(data, "tags", limit=30, each=64),
        "regions": list(dict.fromkeys(regions)),
        "risk_level": risk,
        "target_persona": _text(audience, "persona", 200) or "",
        "target_age": _text(audience, "age", 40) or "",
        "declared_type": _text(data, "product_type", 64),
    }
    videos = data.get("videos", [])
    videos = [] if videos is None else videos
    if not isinstance(videos, list):
        raise LineError("videos must be a list")
    if len(videos) > MAX_VIDEOS:
        raise LineError(f"videos must have at most {MAX_VIDEOS} entries")
    parsed = [_video(video, product_id, position) for position, video in enumerate(videos)]
    task_ids = [video["task_id"] for video, _ in parsed]
    if len(set(task_ids)) != len(task_ids):
        raise LineError("videos repeat a task_id")
    return ProductRecord(product=product, videos=parsed, cleaned=_clean_text(product))


CLEANED_TEXT = ("title", "brand", "category_l1", "category_l2", "description", "declared_type")


def _clean_text(product: Row) -> bool:
    """Store readable text (catalog.text.clean): whether any of the product's text changed."""
    changed = False
    for key in CLEANED_TEXT:
        value = product[key]
        if value:
            product[key] = clean(value) or (None if key != "description" else "")
            changed = changed or product[key] != value
    if not product["title"]:
        raise LineError("title must not be empty")
    tags = list(dict.fromkeys(tag for tag in map(clean, product["tags"]) if tag))
    changed = changed or tags != product["tags"]
    product["tags"] = tags
    return changed
