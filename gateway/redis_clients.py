"""One Redis client per server and process for django-redis's caches.

Django makes a cache object per thread and per async context, so each coroutine request gets
cache objects of its own. django-redis shares its connection pools between them (per server
and process), but each new cache object still builds a client over its pool on first use:
parsing the URL and constructing a `redis.Redis`, paid again by every request for every store
it reads. This connection factory, django-redis's documented extension point
(the `CONNECTION_FACTORY` option), keeps the client it built for a server and hands it to every
later cache object: `redis.Redis` is safe to share between threads (each command takes a
connection from the pool), and its pool starts over in a forked process by itself.
"""

import threading
from typing import Any, ClassVar

from django_redis.pool import ConnectionFactory


class SharedClients(ConnectionFactory):
    """django-redis's connection factory, with one client per server URL and process, as
    django-redis keeps one connection pool per URL and process."""

    _clients: ClassVar[dict[str, Any]] = {}
    _lock = threading.Lock()

    def connect(self, url: str) -> Any:
        client = self._clients.get(url)
        if client is None:
            with self._lock:
                client = self._clients.get(url)
                if client is None:
                    client = self._clients[url] = super().connect(url)
        return client
