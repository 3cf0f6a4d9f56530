"""Merchant health: a signed `ping` to the agent, recorded, and the merchant's status follows it.

A 2xx answer is healthy; anything else, or no answer, is not. An active merchant that fails a
probe becomes `unhealthy` (and receives no new Intent.Surge until it passes one); an unhealthy
merchant that passes becomes `active` again. Deactivated merchants are never probed. Callers see
the gateway's own account of the probe, never the merchant's body or headers.
"""

import logging
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from redis.exceptions import RedisError

from gateway.api import EVENT, new_id
from merchants.client import post_signed
from merchants.delivery import event_body
from merchants.models import HealthProbe, MerchantAgent, MerchantStatus, ProbeTrigger
from merchants.services import merchant_get

logger = logging.getLogger(__name__)

PING = "ping"
PROBE_TIMEOUT_S = 5.0


def _cache_key(merchant: MerchantAgent) -> str:
    return f"merchant-health:{merchant.pk}"


def health_body(merchant: MerchantAgent, probe: HealthProbe | None) -> dict[str, Any]:
    """`{merchant_id, healthy, status_code, latency_ms, checked_at, error, message}`."""
    if probe is None:  # deactivated: there is nothing to probe
        return {
            "merchant_id": merchant.merchant_id,
            "healthy": False,
            "status_code": None,
            "latency_ms": None,
            "checked_at": timezone.now().isoformat().replace("+00:00", "Z"),
            "error": "merchant_unhealthy",
            "message": "The merchant agent is deactivated; it is not probed.",
        }
    return {
        "merchant_id": merchant.merchant_id,
        "healthy": probe.healthy,
        "status_code": probe.status_code,
        "latency_ms": probe.latency_ms,
        "checked_at": probe.checked_at.isoformat().replace("+00:00", "Z"),
        "error": None if probe.healthy else "merchant_unhealthy",
        "message": None if probe.healthy else probe.error,
    }


def merchant_probe(*, merchant: MerchantAgent, trigger: ProbeTrigger) -> HealthProbe:
    """Ping the merchant agent, record the probe, and move it between active and unhealthy."""
    now = timezone.now()
    event_id = new_id(EVENT)
    answer = post_signed(
        url=merchant.agent_endpoint,
        secret=merchant.webhook_secret,
        msg_id=event_id,
        body=event_body(event_id, PING, {"merchant_id": merchant.merchant_id}, now),
        timeout=min(PROBE_TIMEOUT_S, settings.WEBHOOK_TIMEOUT_S),
    )
    merchants = MerchantAgent.objects.filter(pk=merchant.pk)
    with transaction.atomic():
        probe = HealthProbe.objects.create(
            merchant=merchant,
            checked_at=now,
            healthy=answer.ok,
            status_code=answer.status_code,
            latency_ms=answer.latency_ms,
            error=answer.error[:300],
            trigger=trigger,
        )
        before, after = (
            (MerchantStatus.UNHEALTHY, MerchantStatus.ACTIVE)
            if answer.ok
            else (MerchantStatus.ACTIVE, MerchantStatus.UNHEALTHY)
        )
        if merchants.filter(status=before).update(status=after, updated_at=now):
            merchant.status = after
    try:
        cache.set(
            _cache_key(merchant), health_body(merchant, probe), settings.MERCHANT_HEALTH_CACHE_S
        )
    except RedisError as exc:
        logger.warning("cache unavailable, health of %s not cached: %s", merchant, exc)
    return probe


def merchant_health(*, merchant_id: str) -> dict[str, Any]:
    """The merchant's health: a fresh probe, or one made in the last 30 seconds."""
    merchant = merchant_get(merchant_id=merchant_id)
    if merchant.is_deactivated:
        return health_body(merchant, None)
    try:
        cached: dict[str, Any] | None = cache.get(_cache_key(merchant))
    except RedisError as exc:
        logger.warning("cache unavailable, probing %s afresh: %s", merchant, exc)
        cached = None
    if cached is not None:
        return cached
    return health_body(merchant, merchant_probe(merchant=merchant, trigger=ProbeTrigger.API))


def probes_due() -> list[int]:
    """The merchants the schedule probes: every one not deactivated."""
    return list(
        MerchantAgent.objects.exclude(status=MerchantStatus.DEACTIVATED)
        .order_by("id")
        .values_list("pk", flat=True)
    )
