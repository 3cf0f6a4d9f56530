"""The gateway's caches: what lives where, the backends' storage details, and the one helper
that reads a cached value or computes it.

Four stores (settings.CACHES, gateway/cache_settings.py), so that no kind of entry evicts
another:

- `default`: shared state every process must agree on (throttle counters, per-host counters,
  locks, versions): small entries only, in Redis or, on the embedded default, in files under
  var/cache/ that a cull never takes while they live (SharedStateCache);
- `engine`: the intent engine's resolutions (each one a paid call), its breaker and its memory
  of bad inputs, in the same Redis or in their own files, sized by INTENT_ENGINE_CACHE_ENTRIES;
- `tasks`: A2A tasks (agents/a2a_tasks.py), each at most A2A_TASK_MAX_BYTES, under their own
  Redis prefix (or server, A2A_TASKS_REDIS_URL) or in their own files, at most
  A2A_TASK_STORE_ENTRIES of them;
- `local`: each process's memory of the catalog (products, search hits, trending, categories),
  reused for CATALOG_CACHE_S and bounded by CATALOG_CACHE_ENTRIES; never shared, so the
  catalog's churn never pushes a resolution out.
"""

import contextlib
import itertools
import logging
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.filebased import FileBasedCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

T = TypeVar("T")


def cached(key: str, timeout: float, compute: Callable[[], T], *, alias: str = "default") -> T:
    """The value cached under `key`, or `compute()`'s, then cached for `timeout` seconds.

    A cache that is down (Redis unreachable) costs the computation, never the request.
    """
    cache = caches[alias]
    try:
        value = cache.get(key)
    except RedisError:
        return compute()
    if value is None:
        value = compute()
        try:
            cache.set(key, value, timeout=timeout)
        except RedisError as exc:
            logger.debug("cache unavailable, %s not kept: %s", key, exc)
    return value


# Each process's Redis connection pools and their clients, by server and options.
_pools: dict[str, tuple[Any, Any]] = {}
_pools_lock = threading.Lock()


class _SharedClient(RedisCacheClient):
    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        server = self._servers[index]  # type: ignore[attr-defined]
        options = self._pool_options  # type: ignore[attr-defined]
        name = f"{server} {sorted(options.items(), key=lambda item: item[0])!r}"
        shared = _pools.get(name)
        if shared is None:
            with _pools_lock:
                shared = _pools.get(name)
                if shared is None:
                    pool = self._pool_class.from_url(server, **options)  # type: ignore[attr-defined]
                    shared = _pools[name] = (pool, self._client(connection_pool=pool))  # type: ignore[attr-defined]
        return shared[1]


class RedisCache(DjangoRedisCache):
    """Django's Redis cache with one connection pool, and one client over it, per process.

    Django keeps a cache object per thread and per async context, each with its own pool, so
    every request served by a coroutine view (whose steps run in the request's own context)
    opened new connections to Redis: two a recommend, each a TCP handshake and a greeting, a
    fifth of a web worker's CPU under load. And Django's backend builds a new `redis.Redis` for
    every cache operation, which costs about 0.25 ms (it assembles its table of response
    callbacks each time). A pool and its client are safe to share between threads (and
    redis-py opens new connections in a forked child), so the process keeps one of each per
    server and options. Everything else is Django's.
    """

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _SharedClient


# Each process's count of writes to each file cache directory (see FileCache).
_file_writes: dict[str, "itertools.count[int]"] = {}


class FileCache(FileBasedCache):
    """Django's file cache, checking its size on one write in a hundred.

    Django's backend lists its whole directory on every write to see whether to cull: 0.4 ms at
    a hundred entries, 19 ms at ten thousand. Checked on one write in MAX_ENTRIES / 100 of the
    process's writes to the directory, the store may outgrow MAX_ENTRIES by about that many
    entries before a cull trims it. The count is the process's, not the cache object's: Django
    makes a cache object per thread and per async context, so a coroutine view's steps get a
    new one for each request, whose own count would cull on its first write: every cold
    recommend listed the resolutions' directory, 44 ms of its 79 ms of CPU with 6,800 stored
    (make bench's burst on the embedded default, which this halved). And the directory is made
    again only when it is gone, not tried on every write.
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


class LocalCache(LocMemCache):
    """Django's local-memory cache without its pickling: values are kept as they are.

    This store holds what a process reads from the catalog (products with their videos, search
    hits); unpickling a product with its videos on every read cost a tenth of a recommend. The
    values are shared between the process's threads, so they are read, never changed.
    """

    @property
    def _store(self) -> Any:
        """LocMemCache's own state (its dict, expiries and lock), undeclared by django-stubs."""
        return self

    def add(
        self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        key, store = self.make_and_validate_key(key, version=version), self._store
        with store._lock:
            if store._has_expired(key):
                store._set(key, value, timeout)
                return True
            return False

    def get(self, key: str, default: Any = None, version: Any = None) -> Any:
        key, store = self.make_and_validate_key(key, version=version), self._store
        with store._lock:
            if store._has_expired(key):
                store._delete(key)
                return default
            store._cache.move_to_end(key, last=False)
            return store._cache[key]

    def set(
        self, key: str, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        key, store = self.make_and_validate_key(key, version=version), self._store
        with store._lock:
            store._set(key, value, timeout)

    def incr(self, key: str, delta: int = 1, version: Any = None) -> int:
        key, store = self.make_and_validate_key(key, version=version), self._store
        with store._lock:
            if store._has_expired(key):
                store._delete(key)
                raise ValueError(f"Key '{key}' not found")
            value: int = store._cache[key] + delta
            store._cache[key] = value
            store._cache.move_to_end(key, last=False)
        return value


class SharedStateCache(FileCache):
    """The file store of shared state (throttle counters, per-host counters, locks): past
    MAX_ENTRIES a cull deletes expired entries only, never a live one.

    Django's cull deletes a random third of the entries, live or not: a flood of other entries
    could erase a client's throttle counter and so lift its limit, or a lock. What this store
    holds is small and expires within its window (a throttle's period, a lock's lease), so it
    stays as large as the clients active within a window; MAX_ENTRIES only says when to look
    for the expired ones.
    """

    def _cull(self) -> None:
        if next(self._writes) % self._cull_every:
            return
        names = self._list_cache_files()  # type: ignore[attr-defined]
        if len(names) < self._max_entries:
            return
        for name in names:
            with contextlib.suppress(OSError), open(name, "rb") as entry:
                self._is_expired(entry)  # type: ignore[attr-defined]  # deletes it if expired
