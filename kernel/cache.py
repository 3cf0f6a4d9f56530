"""The gateway's caches: what lives where, the file stores of the embedded default, and each
process's memory of the catalog.

Three shared stores (settings.CACHES, gateway/cache_settings.py), so that no kind of entry
evicts another:

- `default`: shared state every process must agree on (throttle counters, per-host counters,
  locks, versions): small entries only, in Redis (django-redis) or, on the embedded default, in
  files under var/cache/ that a cull never takes while they live (SharedStateCache);
- `engine`: the intent engine's resolutions (each one a paid call), its breaker and its memory
  of bad inputs, in the same Redis or in their own files, sized by INTENT_ENGINE_CACHE_ENTRIES;
- `tasks`: A2A tasks (agents/a2a/tasks.py), each at most A2A_TASK_MAX_BYTES, under their own
  Redis prefix (or server, A2A_TASKS_REDIS_URL) or in their own files, at most
  A2A_TASK_STORE_ENTRIES of them.

And each process's memory of the catalog (products, search hits, trending, categories):
`cached()`, a cachetools TLRUCache reused for CATALOG_CACHE_S at most and bounded by
CATALOG_CACHE_ENTRIES; never shared, so the catalog's churn never pushes a resolution out.
"""

import itertools
import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from contextlib import suppress
from typing import Any, TypeVar

from cachetools import TLRUCache
from django.conf import settings
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache

T = TypeVar("T")

# This process's memory of the catalog: each entry (value, seconds to keep it) expires on its
# own. Values are kept as they are, never pickled (unpickling a product with its videos on every
# read was a sizeable share of a warm recommend), and shared by the process's threads: read,
# never changed.
_memory: "TLRUCache[str, tuple[Any, float]] | None" = None
_memory_lock = threading.Lock()


def _store() -> "TLRUCache[str, tuple[Any, float]]":
    global _memory
    if _memory is None:
        _memory = TLRUCache(
            maxsize=settings.CATALOG_CACHE_ENTRIES, ttu=lambda _key, entry, now: now + entry[1]
        )
    return _memory


def cached(key: str, timeout: float, compute: Callable[[], T]) -> T:
    """The value this process remembers under `key`, or `compute()`'s, then remembered for
    `timeout` seconds (0: not at all)."""
    with _memory_lock:
        entry = _store().get(key)
    if entry is not None:
        value: T = entry[0]
        return value
    value = compute()
    with _memory_lock:
        _store()[key] = (value, timeout)
    return value


def recalled(keys: Iterable[str]) -> dict[str, Any]:
    """What this process remembers of `keys`, by key."""
    with _memory_lock:
        store = _store()
        found = {key: store.get(key) for key in keys}
    return {key: entry[0] for key, entry in found.items() if entry is not None}


def remember(entries: dict[str, Any], timeout: float) -> None:
    """Remember each of `entries` for `timeout` seconds."""
    with _memory_lock:
        store = _store()
        for key, value in entries.items():
            store[key] = (value, timeout)


def forget(keys: Iterable[str] | None = None) -> None:
    """Let go of `keys`, or of everything this process remembers (and its size, read again)."""
    global _memory
    with _memory_lock:
        if keys is None:
            _memory = None
            return
        store = _store()
        for key in keys:
            with suppress(KeyError):
                del store[key]


# Each process's count of writes to each file cache directory (see FileCache).
_file_writes: dict[str, "itertools.count[int]"] = {}


class FileCache(FileBasedCache):
    """Django's file cache, checking its size on one write in a hundred.

    Django's backend lists its whole directory on every write to see whether to cull, a cost
    that grows with the entries stored until it outweighs the rest of a cold recommend
    (docs/benchmarks.md). Checked on one write in MAX_ENTRIES / 100 of the process's writes to
    the directory, the store may outgrow MAX_ENTRIES by about that many entries before a cull
    trims it. The count is the process's, not the cache object's: Django makes a cache object
    per thread and per async context, so a coroutine view's steps get a new one for each
    request, whose own count would cull on its first write. And the directory is made again
    only when it is gone, not tried on every write.

    Built on FileBasedCache's private methods; the canary in tests/kernel/test_file_cache.py
    fails on the Django upgrade that changes them. docs/development.md says why no maintained
    library replaces it (diskcache's Django cache opens its databases for every cache object).
    """

    def __init__(self, dir: str, params: dict[str, Any]) -> None:
        self._directory = os.path.abspath(dir)  # as Django keeps it (undeclared by its stubs)
        super().__init__(dir, params)
        self._writes = _file_writes.setdefault(self._directory, itertools.count())  # atomic
        self._cull_every = max(1, self._max_entries // 100)

    def _cull(self) -> None:
        if next(self._writes) % self._cull_every == 0:
            super()._cull()  # type: ignore[misc]

    def _createdir(self) -> None:
        if not os.path.isdir(self._directory):
            super()._createdir()  # type: ignore[misc]


class SharedStateCache(FileCache):
    """The file store of shared state (throttle counters, per-host counters, locks): past
    MAX_ENTRIES a cull deletes expired entries only, never a live one.

    Django's cull deletes a random third of the entries, live or not: a flood of other entries
    could erase a client's throttle counter and so lift its limit, or a lock. What this store
    holds is small and expires within its window (a throttle's period, a lock's lease), so it
    stays as large as the clients active within a window; MAX_ENTRIES only says when to look
    for the expired ones.
    """

    def add(
        self,
        key: str,
        value: Any,
        timeout: float | None = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> bool:
        """Store `value` unless the key holds a live one, atomically across processes: what a
        lock of this store relies on (a URL's verification turn). Django's `add` looks, then
        writes, and two workers that look at once both write and both hold the lock. Here the
        entry's file is linked into place, which fails when one is there; an expired one is
        removed (by `has_key`) and the link tried once more."""
        self._createdir()
        name = self._key_to_file(key, version)  # type: ignore[attr-defined]
        handle, written = tempfile.mkstemp(dir=self._directory)
        try:
            with open(handle, "wb") as entry:
                self._write_content(entry, timeout, value)  # type: ignore[attr-defined]
            for _ in range(2):
                try:
                    os.link(written, name)
                except FileExistsError:
                    if self.has_key(key, version):
                        return False
                else:
                    self._cull()
                    return True
            return False
        finally:
            os.remove(written)

    def _cull(self) -> None:
        if next(self._writes) % self._cull_every:
            return
        names = self._list_cache_files()  # type: ignore[attr-defined]
        if len(names) < self._max_entries:
            return
        for name in names:
            with suppress(OSError), open(name, "rb") as entry:
                self._is_expired(entry)  # type: ignore[attr-defined]  # deletes it if expired
