"""The catalog's version: a token that every committed write of products changes, shared by every
process and host through the `default` cache (Redis, or the files of the embedded default).

What a process keeps of the catalog in its own memory (cards' products, search hits) is keyed by
the version, so a write reaches every web process on every host within CHECK_S: each process
reads the shared token at most that often. Search itself is the database's, current as of the
last commit.

The statistics search weighs and corrects by (how many products hold a word, whether a word is
the catalog's, how many products are of a type) are kept apart, by `statistic()`: an edit of a
few products moves them by a product or two, and letting every process's statistics go on each
such edit made every query after it cold at once, the worst recommends of a catalog under edits
(docs/benchmarks.md, "Scale"). They follow a token of their own, which a write of a large share
of the catalog changes (`changed(reweigh=True)`), and are kept at most CATALOG_CACHE_S; an
answer of none (no product holds the word) follows the version, so a word an edit brings is
known on every process within CHECK_S, as its search hits are.
"""

import logging
import secrets
import time
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from redis.exceptions import RedisError

from kernel.cache import cached, recalled, remember

T = TypeVar("T")

logger = logging.getLogger(__name__)

KEY = "catalog:version"
# The statistics' token: changed by a write of a large share of the catalog.
STATISTICS_KEY = "catalog:statistics"
# When the version last changed (a Unix time): how fresh the catalog is (catalog/metrics.py).
CHANGED_AT_KEY = "catalog:changed-at"
CHECK_S = 5
# Every key the gateway writes expires (docs/data.md, "Caches"); a version that expired
# is replaced by a new one, which lets every memory go once: harmless.
LIFETIME_S = 7 * 86_400


def current() -> str:
    """The version as this process last read it (at most CHECK_S ago)."""
    return cached(f"{KEY}:seen", CHECK_S, lambda: _shared(KEY))


def statistic(name: str, key: str, compute: Callable[[], T]) -> T:
    """The catalog's statistic `name` of `key` (a count, whether a word is known), as this
    process last computed it: kept across edits of a few products for CATALOG_CACHE_S at most,
    but an answer of none (0, False, nothing) only while the version holds."""
    weights = cached(f"{STATISTICS_KEY}:seen", CHECK_S, lambda: _shared(STATISTICS_KEY))
    lasting, versioned = f"catalog:{name}:{weights}:{key}", f"catalog:{name}:{current()}:{key}"
    found = recalled([lasting, versioned])
    for kept in (lasting, versioned):
        if kept in found:
            value: T = found[kept]
            return value
    value = compute()
    remember({lasting if value else versioned: value}, settings.CATALOG_CACHE_S)
    return value


def _shared(key: str) -> str:
    cache = caches["default"]
    try:
        version = cache.get(key)
        if version is None:
            # Never written, or evicted: any new token will do, one for every process.
            cache.add(key, secrets.token_hex(8), timeout=LIFETIME_S)
            version = cache.get(key)
    except RedisError as exc:
        logger.warning("catalog version unreadable, the catalog's memories start again: %s", exc)
        return secrets.token_hex(8)
    return str(version)


def changed(*, reweigh: bool = True) -> None:
    """Say that products changed: once the write commits, every process's memories of the
    catalog are let go within CHECK_S; its statistics too where `reweigh` (a write of a large
    share of the catalog, or of a share not known)."""

    def publish() -> None:
        tokens: dict[str, object] = {KEY: secrets.token_hex(8), CHANGED_AT_KEY: time.time()}
        if reweigh:
            tokens[STATISTICS_KEY] = secrets.token_hex(8)
        try:
            caches["default"].set_many(tokens, timeout=LIFETIME_S)
        except RedisError as exc:
            logger.warning("catalog version not published: %s", exc)

    transaction.on_commit(publish)


def changed_at() -> float | None:
    """When products last changed (a Unix time), as far as the shared cache remembers (at most
    LIFETIME_S, since the last change or since the cache was emptied)."""
    try:
        found = caches["default"].get(CHANGED_AT_KEY)
    except RedisError:
        return None
    return float(found) if found is not None else None
