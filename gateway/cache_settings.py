"""The gateway's caches (Django's CACHES setting): which store lives where, and its bounds.
gateway/cache.py says what each store holds and why they are apart."""

from pathlib import Path
from typing import Any


def cache_settings(
    *,
    redis_url: str,
    tasks_redis_url: str,
    var_dir: Path,
    engine_entries: int,
    task_entries: int,
    catalog_entries: int,
    catalog_s: int,
) -> dict[str, dict[str, Any]]:
    """CACHES: Redis when `redis_url` is set, else files under `var_dir`, plus the catalog's
    memory of each process."""
    caches: dict[str, dict[str, Any]]
    if redis_url:
        redis = {
            "BACKEND": "gateway.cache.RedisCache",
            "LOCATION": redis_url,
            "KEY_PREFIX": "gw",
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
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
                "BACKEND": "gateway.cache.SharedStateCache",
                "LOCATION": str(var_dir / "cache"),
                "KEY_PREFIX": "gw",
                "OPTIONS": {"MAX_ENTRIES": 10_000},
            },
            "engine": {
                "BACKEND": "gateway.cache.FileCache",
                "LOCATION": str(var_dir / "cache" / "engine"),
                "KEY_PREFIX": "gw",
                "OPTIONS": {"MAX_ENTRIES": engine_entries},
            },
            "tasks": {
                "BACKEND": "gateway.cache.FileCache",
                "LOCATION": str(var_dir / "cache" / "a2a-tasks"),
                "KEY_PREFIX": "gw",
                "OPTIONS": {"MAX_ENTRIES": task_entries},
            },
        }
    caches["local"] = {
        "BACKEND": "gateway.cache.LocalCache",
        "LOCATION": "gateway-catalog",
        "TIMEOUT": catalog_s,
        "OPTIONS": {"MAX_ENTRIES": catalog_entries},
    }
    return caches
