"""Merchant health: a signed `ping` to the agent, recorded, and the merchant's status follows it.

A 2xx answer is healthy; anything else, or no answer, is not. An active merchant that fails a
probe becomes `unhealthy` (and receives no new Intent.Surge until it passes one); an unhealthy
merchant that passes becomes `active` again. Deactivated merchants are never probed. Callers see
the gateway's own account of the probe, never the merchant's body or headers. The latest probe
(scheduled or asked for) is reused for 30 seconds.
"""

import contextlib
import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from redis.exceptions import RedisError

from gateway.api import EVENT, new_id
from merchants.client import post_signed
from merchants.delivery import delete_in_batches, event_body
from merchants.models import HealthProbe, MerchantAgent, MerchantStatus, ProbeTrigger
from merchants.services import merchant_get

logger = logging.getLogger(__name__)

PING = "ping"
PROBE_TIMEOUT_S = 5.0


def _unprobed(merchant: MerchantAgent, message: str) -> dict[str, Any]:
    return {
        "merchant_id": merchant.merchant_id,
        "healthy": False,
        "status_code": None,
        "latency_ms": None,
        "checked_at": timezone.now(),
        "error": "merchant_unhealthy",
        "message": message,
    }


def health_body(merchant: MerchantAgent, probe: HealthProbe) -> dict[str, Any]:
    """`{merchant_id, healthy, status_code, latency_ms, checked_at, error, message}`."""
    return {
        "merchant_id": merchant.merchant_id,
        "healthy": probe.healthy,
        "status_code": probe.status_code,
        "latency_ms": probe.latency_ms,
        "checked_at": probe.checked_at,
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
    return probe


def merchant_health(*, merchant_id: str) -> dict[str, Any]:
    """The merchant's health: the latest probe if it is under 30 seconds old, else a new one.

    One probe per merchant at a time: callers arriving while one runs get the latest result (or
    a 503 saying a probe is under way), so the gateway never pings a merchant for each caller.
    """
    merchant = merchant_get(merchant_id=merchant_id)
    if merchant.is_deactivated:
        return _unprobed(merchant, "The merchant agent is deactivated; it is not probed.")
    fresh_since = timezone.now() - timedelta(seconds=settings.MERCHANT_HEALTH_CACHE_S)
    latest = merchant.probes.first()
    if latest is not None and latest.checked_at >= fresh_since:
        return health_body(merchant, latest)
    lock = f"merchant-probe-running:{merchant.pk}"
    try:
        mine: bool | None = cache.add(lock, 1, timeout=PROBE_TIMEOUT_S + 5)
    except RedisError as exc:  # no way to coordinate: probe, as a lone gateway would
        logger.warning("cache unavailable, probing %s without a lock: %s", merchant, exc)
        mine = None
    if mine is False:
        if latest is not None:
            return health_body(merchant, latest)
        return _unprobed(merchant, "A probe of this merchant is under way; ask again shortly.")
    try:
        return health_body(merchant, merchant_probe(merchant=merchant, trigger=ProbeTrigger.API))
    finally:
        if mine:
            with contextlib.suppress(RedisError):
                cache.delete(lock)


def probes_due() -> list[int]:
    """The merchants the schedule probes: every one not deactivated."""
    return list(
        MerchantAgent.objects.exclude(status=MerchantStatus.DEACTIVATED)
        .order_by("id")
        .values_list("pk", flat=True)
    )


def probes_prune(*, checked_before: datetime) -> int:
    """Delete health probes made before the given time; returns how many."""
    return delete_in_batches(HealthProbe.objects.filter(checked_at__lt=checked_before))
