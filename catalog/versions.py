"""The catalog's version: a token that every committed write of products changes, shared by every
process and host through the `default` cache (Redis, or the files of the embedded default).

What a process keeps of the catalog in its own memory (cards' products, search hits) is keyed by
the version, so a write reaches every web process on every host within CHECK_S: each process
reads the shared token at most that often. Search itself is the database's, current as of the
last commit; the counts of words it weighs and corrects by are kept by version too
(catalog/fulltext.py, documents_with).
"""

import logging
import secrets
import time

from django.core.cache import caches
from django.db import transaction
from redis.exceptions import RedisError

from kernel.cache import cached

logger = logging.getLogger(__name__)

KEY = "catalog:version"
# When the version last changed (a Unix time): how fresh the catalog is (catalog/metrics.py).
CHANGED_AT_KEY = "catalog:changed-at"
CHECK_S = 5
# Every key the gateway writes expires (docs/data.md, "Caches"); a version that expired
# is replaced by a new one, which lets every memory go once: harmless.
LIFETIME_S = 7 * 86_400


def current() -> str:
    """The version as this process last read it (at most CHECK_S ago)."""
    return cached(f"{KEY}:seen", CHECK_S, _shared)


def _shared() -> str:
    cache = caches["default"]
    try:
        version = cache.get(KEY)
        if version is None:
            # Never written, or evicted: any new token will do, one for every process.
            cache.add(KEY, secrets.token_hex(8), timeout=LIFETIME_S)
            version = cache.get(KEY)
    except RedisError as exc:
        logger.warning("catalog version unreadable, the catalog's memories start again: %s", exc)
        return secrets.token_hex(8)
    return str(version)


def changed() -> None:
    """Say that products changed: once the write commits, every process's memories of the
    catalog are let go within CHECK_S."""

    def publish() -> None:
        try:
            caches["default"].set_many(
                {KEY: secrets.token_hex(8), CHANGED_AT_KEY: time.time()}, timeout=LIFETIME_S
            )
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
