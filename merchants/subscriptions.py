"""Which intent tags merchants subscribe to, so that an intent nobody subscribes to costs its
request no Intent.Surge event and no fan-out task.

Each process keeps the set of tags that merchants not deactivated subscribe to ("*" among them
when one subscribes to everything), and rebuilds it when the version in the shared cache moves.
Registration and every update of a merchant move it, after commit. The set may hold more than
the merchants would take today (an unhealthy merchant, a 410); more is harmless, an intent whose
event fans out to nobody. With the cache unreachable every intent is announced.
"""

import contextlib
import secrets
from collections.abc import Iterable

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from redis.exceptions import RedisError

from merchants.models import MerchantAgent, MerchantStatus

VERSION_KEY = "merchants:subscriptions-version"
EVERYTHING = "*"

_memo: tuple[str, frozenset[str]] | None = None


def changed() -> None:
    """Merchants' subscriptions changed: every process rebuilds its set (after commit)."""

    def bump() -> None:
        with contextlib.suppress(RedisError):
            cache.set(VERSION_KEY, secrets.token_hex(8), timeout=None)

    transaction.on_commit(bump)


def _current_version() -> str | None:
    try:
        version = cache.get(VERSION_KEY)
        if version is None:
            cache.add(VERSION_KEY, secrets.token_hex(8), timeout=None)
            version = cache.get(VERSION_KEY)
    except RedisError:
        return None
    return str(version) if version is not None else None


def _tags() -> frozenset[str]:
    subscribed: set[str] = set()
    live = MerchantAgent.objects.exclude(status=MerchantStatus.DEACTIVATED)
    for tags in live.values_list("subscription_tags", flat=True).iterator():
        subscribed.update(tags or ())
    return frozenset(subscribed)


def anyone_subscribes(tags: set[str]) -> bool:
    """Whether a merchant not deactivated subscribes to one of `tags` (or to everything)."""
    global _memo
    version = _current_version()
    if version is None:
        return True
    if _memo is None or _memo[0] != version:
        _memo = (version, _tags())
    subscribed = _memo[1]
    return EVERYTHING in subscribed or not subscribed.isdisjoint(tags)


def subscribed_to(tags: Iterable[str]) -> RawSQL:
    """A filter on merchants: subscribed to any of `tags` or to "*", decided by the database
    (a JSON array of strings on both vendors), so a surge reads only the merchants it fits
    rather than every active one."""
    # Constant SQL; the tags are bound parameters.
    wanted = sorted({*tags, "*"})
    if connection.vendor == "postgresql":
        sql = "merchants_merchantagent.subscription_tags ?| %s::text[]"
        return RawSQL(sql, [wanted], output_field=BooleanField())  # noqa: S611
    marks = ", ".join(["%s"] * len(wanted))
    sql = (
        "EXISTS (SELECT 1 FROM json_each(merchants_merchantagent.subscription_tags) "  # noqa: S608
        f"WHERE json_each.value IN ({marks}))"
    )
    return RawSQL(sql, wanted, output_field=BooleanField())  # noqa: S611


def fits(merchant: MerchantAgent, tags: set[str], region: str | None) -> bool:
    """Whether an intent with these (lower-case) tags and region is for this merchant."""
    subscriptions = set(merchant.subscription_tags)
    if "*" not in subscriptions and not subscriptions & tags:
        return False
    return not merchant.regions or region is None or region in merchant.regions
