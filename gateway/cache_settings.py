"""The gateway's shared caches (Django's CACHES setting): which store lives where, and its
bounds. kernel/cache.py says what each store holds and why they are apart."""

from pathlib import Path
from typing import Any


def cache_settings(
    *,
    redis_url: str,
    tasks_redis_url: str,
    var_dir: Path,
    engine_entries: int,
    task_entries: int,
) -> dict[str, dict[str, Any]]:
    """CACHES: Redis when `redis_url` is set, else files under `var_dir`."""
    caches: dict[str, dict[str, Any]]
    if redis_url:
        # django-redis keeps one connection pool per server and process, whichever cache
        # object Django makes (one per thread and per async context: a coroutine view's
        # request gets its own), so requests reuse the worker's connections; and
        # gateway/redis_clients.py one client over it, which each cache object reuses.
        redis = {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "gw",
            "OPTIONS": {
                "SOCKET_CONNECT_TIMEOUT": 2,
                "SOCKET_TIMEOUT": 2,
                "CONNECTION_FACTORY": "gateway.redis_clients.SharedClients",
            },
        }
        # A2A tasks under their own prefix, on their own server when one is named, so an
        # operator can give them a store whose eviction can never reach a throttle counter.
        tasks = {**redis, "LOCATION": tasks_redis_url or redis_url, "KEY_PREFIX": "gw-a2a"}
        caches = {"default": redis, "engine": redis, "tasks": tasks}
    else:
        # Files are shared by every web and Celery process on the machine, so throttles and
        # the breaker see one state; local memory would give each process its own.
        caches = {
            "default": {
                "BACKEND": "kernel.cache.SharedStateCache",
                "LOCATION": str(var_dir / "cache"),
                "KEY_PREFIX": "gw",
                "OPTIONS": {"MAX_ENTRIES": 10_000},
            },
            "engine": {
                "BACKEND": "kernel.cache.FileCache",
                "LOCATION": str(var_dir / "cache" / "engine"),
                "KEY_PREFIX": "gw",
                "OPTIONS": {"MAX_ENTRIES": engine_entries},
            },
            "tasks": {
                "BACKEND": "kernel.cache.FileCache",
                "LOCATION": str(var_dir / "cache" / "a2a-tasks"),
                "KEY_PREFIX": "gw",
                "OPTIONS": {"MAX_ENTRIES": task_entries},
            },
        }
    return caches
