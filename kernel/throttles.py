"""Rate limits by scope (settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'])."""

import logging
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from redis.exceptions import RedisError
from rest_framework.throttling import ScopedRateThrottle

from kernel import metrics
from kernel.clients import client_network, network_address

logger = logging.getLogger(__name__)

THROTTLED = metrics.counter(
    "gateway_throttled_requests",
    "Requests refused 429 by a rate limit, by scope (THROTTLE_RATES), A2A and MCP included.",
    ("scope",),
)

# --- Throttles ---------------------------------------------------------------------------------


def client_address(request: Any) -> str:
    """The client a request counts against, as the throttles identify it: its address
    (X-Forwarded-For only through TRUSTED_PROXY_COUNT proxies), an IPv6 address's /64 as one
    client (kernel/clients.py)."""
    return str(ScopeThrottle().get_ident(request))


def login_address(request: Any) -> str | None:
    """The staff login's client (django-axes' AXES_CLIENT_IP_CALLABLE) as the throttles find it,
    an IPv6 /64 as its first address (axes keeps an IP address); None for a login made in
    process, which names no address (Django's `force_login`)."""
    ident = client_address(request)
    return network_address(ident) if ident else None


class ScopeThrottle(ScopedRateThrottle):
    """A per-client throttle of the view's `throttle_scope` (rates in REST_FRAMEWORK settings).

    Rates are read at request time so that `THROTTLE_RATES` overrides in tests apply.
    """

    def get_ident(self, request: Any) -> str:
        """The client's address as DRF finds it (TRUSTED_PROXY_COUNT), an IPv6 /64 as one."""
        return client_network(super().get_ident(request) or "")

    def get_rate(self) -> str | None:
        rates: Mapping[str, str | None] = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
        return rates.get(self.scope) if self.scope else None

    def allow_request(self, request: Any, view: Any) -> bool:
        # Throttles live in the cache (Redis when configured). A cache outage must not turn
        # every request into a 500: the gateway answers unthrottled until the cache is back.
        try:
            allowed: bool = super().allow_request(request, view)
        except RedisError as exc:
            logger.warning("cache unavailable, %s requests unthrottled: %s", self.scope, exc)
            return True
        if not allowed:
            THROTTLED.labels(self.scope).inc()
        return allowed

    def allow_more(self, request: Any, view: Any, count: int) -> bool:
        """Whether `count` more requests of the view's scope fit this client's allowance, on top
        of the request itself (already counted): a request that stands for several, as a UCP
        lookup stands for a card per id. When they fit they are counted; when they do not, none
        is, and `wait()` says how long until they would."""
        self.scope = getattr(view, self.scope_attr, None)
        self.rate = self.get_rate() if self.scope else None
        if self.rate is None or count <= 0:
            return True
        allowed, duration = self.parse_rate(self.rate)
        if allowed is None or duration is None:  # a rate always parses to both
            return True
        self.num_requests, self.duration = allowed, duration
        try:
            self.key = self.get_cache_key(request, view)
            self.history = self.cache.get(self.key, [])
            self.now = self.timer()
            while self.history and self.history[-1] <= self.now - duration:
                self.history.pop()
            if len(self.history) + count > allowed:
                THROTTLED.labels(self.scope).inc()
                return False
            self.history[:0] = [self.now] * count
            self.cache.set(self.key, self.history, duration)
        except RedisError as exc:
            logger.warning("cache unavailable, %s requests unthrottled: %s", self.scope, exc)
        return True
