"""Cursors of the API's pages: a record's time and id, opaque to the caller.

A page ends with `next_cursor`; passed back unchanged as `cursor`, it continues right after the
last record of that page, in the listing's order, whatever was created meanwhile. Records are
named by an id the gateway minted (`prefix`) or, for the records it numbers (deliveries), by
their integer primary key (`prefix=None`).
"""

import base64
import binascii
import re
from datetime import UTC, datetime
from typing import TypeVar

from django.db.models import Model, Q, QuerySet

from kernel.errors import BAD_CURSOR
from kernel.ids import is_minted

M = TypeVar("M", bound=Model)

# A positive integer key that fits any database's 64-bit integer.
NUMBERED = re.compile(r"[1-9][0-9]{0,17}")


def cursor_of(created_at: datetime, record_id: str | int) -> str:
    raw = f"{created_at.isoformat()}|{record_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _is_id(record_id: str, prefix: str | None) -> bool:
    if prefix is None:
        return NUMBERED.fullmatch(record_id) is not None
    return is_minted(prefix, record_id)


def cursor_read(cursor: str, prefix: str | None) -> tuple[datetime, str]:
    """The (time, id) a cursor stands for. Raises BAD_CURSOR for one the gateway did not give."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment, record_id = raw.split("|")
        created_at = datetime.fromisoformat(moment)
        if created_at.tzinfo is None or not _is_id(record_id, prefix):
            raise ValueError
        return created_at.astimezone(UTC), record_id
    except (ValueError, UnicodeDecodeError, binascii.Error, OverflowError):
        raise BAD_CURSOR(
            fields={"cursor": ["Pass next_cursor from the previous page unchanged."]}
        ) from None


def page_of(
    rows: QuerySet[M],
    *,
    id_field: str,
    prefix: str | None,
    cursor: str | None,
    limit: int,
    newest_first: bool,
) -> tuple[list[M], str | None]:
    """One page of `rows` in (created_at, id) order, after `cursor`; and the next page's cursor,
    None on the last."""
    later = "lt" if newest_first else "gt"
    if cursor:
        created_at, record_id = cursor_read(cursor, prefix)
        rows = rows.filter(
            Q(**{f"created_at__{later}": created_at})
            | Q(created_at=created_at, **{f"{id_field}__{later}": record_id})
        )
    sign = "-" if newest_first else ""
    page = list(rows.order_by(f"{sign}created_at", f"{sign}{id_field}")[: limit + 1])
    if len(page) <= limit:
        return page, None
    last = page[limit - 1]
    return page[:limit], cursor_of(last.created_at, getattr(last, id_field))  # type: ignore[attr-defined]
