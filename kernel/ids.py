"""The ids the gateway mints: a typed prefix and 24 random characters (DESIGN.md section 4)."""

import re
import secrets
from typing import TYPE_CHECKING, Any, TypeVar

from django.db.models import QuerySet

# --- Identifiers -------------------------------------------------------------------------------

# Typed prefixes of the ids the gateway mints (DESIGN.md section 4).
REC, INTENT, PROPOSAL, MATCH_SESSION, MATCH_TOKEN, MANDATE, EVENT, REQUEST, CONVERSION = (
    "rec",
    "int",
    "prp",
    "mss",
    "mtk",
    "mdt",
    "evt",
    "req",
    "cnv",
)


def new_id(prefix: str) -> str:
    """Mint an unguessable typed id: the prefix, an underscore and 24 hex characters (96 bits)."""
    return f"{prefix}_{secrets.token_hex(12)}"


def is_minted(prefix: str, value: str) -> bool:
    """Whether `value` has the shape of an id minted with `prefix`."""
    return (
        len(value) == len(prefix) + 25
        and re.fullmatch(rf"{prefix}_[0-9a-f]{{24}}", value) is not None
    )


if TYPE_CHECKING:
    from kernel.errors import ApiError

R = TypeVar("R")


def find_minted(queryset: "QuerySet[Any, R]", prefix: str, value: str, missing: "ApiError") -> R:
    """The row whose primary key is `value`, or raise `missing`.

    The id's minted shape is checked before any query, so no stray byte of a path (a NUL, which
    PostgreSQL refuses) ever reaches the database.
    """
    row = queryset.filter(pk=value).first() if is_minted(prefix, value) else None
    if row is None:
        raise missing
    return row
