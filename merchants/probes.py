"""Merchant health: a signed `ping` to the agent, recorded, and the merchant's status follows it.

A 2xx answer is healthy; anything else, or no answer, is not. An active merchant that fails a
probe becomes `unhealthy` (and receives no new Intent.Surge until it passes one); an unhealthy
merchant that passes becomes `active` again. Deactivated merchants are never probed. Callers see
the gateway's own account of the probe, never the merchant's body or headers.

What a probe costs is bounded (GET /v1/merchant/{id}/health is public): the latest probe,
scheduled or asked for, is reused for MERCHANT_HEALTH_CACHE_S; a new one is made on a pool of
MERCHANT_PROBE_CONCURRENCY threads per web process, never on the threads that serve requests,
and the caller awaits it holding none; callers asking about the same merchant meanwhile share
its answer (in another web process, they wait for its record). A caller gets an answer within
the probe timeout, and the latest probe, or a 503 saying why, when none came in time.
"""

import asyncio
import contextlib
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from redis.exceptions import RedisError

from kernel.ids import EVENT, new_id
from kernel.pruning import delete_in_batches
from merchants import metrics
from merchants.client import Answer, post_signed
from merchants.delivery import event_body, merchant_answered
from merchants.models import HealthProbe, MerchantAgent, MerchantStatus, ProbeTrigger
from merchants.services import merchant_get

logger = logging.getLogger(__name__)

PING = "ping"
PROBE_TIMEOUT_S = 5.0
UNDER_WAY = "A probe of this merchant is under way; ask again shortly."
UNVERIFIED = (
    "The endpoint has not proven its ownership yet (endpoint.verification); it is not probed."
)
BUSY = (
    "No probe could be made in time: the gateway is probing many merchants at once; "
    "ask again shortly."
)


def probe_timeout() -> float:
    return min(PROBE_TIMEOUT_S, settings.WEBHOOK_TIMEOUT_S)


def _body(
    merchant_id: str,
    *,
    healthy: bool,
    status_code: int | None,
    latency_ms: int | None,
    checked_at: datetime,
    error: str,
) -> dict[str, Any]:
    """`{merchant_id, healthy, status_code, latency_ms, checked_at, error, message}`."""
    return {
        "merchant_id": merchant_id,
        "healthy": healthy,
        "status_code": status_code,
        "latency_ms": latency_ms,
        "checked_at": checked_at,
        "error": None if healthy else "merchant_unhealthy",
        "message": None if healthy else error,
    }


def _unprobed(merchant: MerchantAgent, message: str) -> dict[str, Any]:
    return _body(
        merchant.merchant_id,
        healthy=False,
        status_code=None,
        latency_ms=None,
        checked_at=timezone.now(),
        error=message,
    )


def health_body(merchant: MerchantAgent, probe: HealthProbe) -> dict[str, Any]:
    return _body(
        merchant.merchant_id,
        healthy=probe.healthy,
        status_code=probe.status_code,
        latency_ms=probe.latency_ms,
        checked_at=probe.checked_at,
        error=probe.error,
    )


def ping(merchant: MerchantAgent) -> Answer:
    """Send the merchant agent a signed `ping` event; its answer, within the probe timeout."""
    event_id = new_id(EVENT)
    body = event_body(event_id, PING, {"merchant_id": merchant.merchant_id}, timezone.now())
    return post_signed(
        url=merchant.agent_endpoint,
        secret=merchant.webhook_secret,
        msg_id=event_id,
        body=body,
        timeout=probe_timeout(),
    )


def probe_record(
    *, merchant: MerchantAgent, answer: Answer, trigger: ProbeTrigger, checked_at: datetime
) -> HealthProbe:
    """Record a probe and move the merchant between active and unhealthy."""
    metrics.probed(trigger, answer)
    merchants = MerchantAgent.objects.filter(pk=merchant.pk)
    with transaction.atomic():
        probe = HealthProbe.objects.create(
            merchant=merchant,
            checked_at=checked_at,
            healthy=answer.ok,
            status_code=answer.status_code,
            latency_ms=answer.latency_ms,
            error=answer.error[:300],
            trigger=trigger,
        )
        merchant_answered(merchant.pk, answer, checked_at)
        before, after = (
            (MerchantStatus.UNHEALTHY, MerchantStatus.ACTIVE)
            if answer.ok
            else (MerchantStatus.ACTIVE, MerchantStatus.UNHEALTHY)
        )
        if merchants.filter(status=before).update(status=after, updated_at=checked_at):
            merchant.status = after
    return probe


def merchant_probe(*, merchant: MerchantAgent, trigger: ProbeTrigger) -> HealthProbe:
    """Ping the merchant agent here and now (beat's probes, staff's "probe now")."""
    checked_at = timezone.now()
    return probe_record(
        merchant=merchant, answer=ping(merchant), trigger=trigger, checked_at=checked_at
    )


# --- Probes asked for through the API ----------------------------------------------------------

_pool: ThreadPoolExecutor | None = None
_flights: dict[int, "Future[Answer]"] = {}  # the ping under way for a merchant, in this process
_flights_lock = threading.Lock()


def _probe_pool() -> ThreadPoolExecutor:
    global _pool
    with _flights_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                settings.MERCHANT_PROBE_CONCURRENCY, thread_name_prefix="merchant-probe"
            )
        return _pool


def _ping_in_flight(merchant: MerchantAgent) -> tuple["Future[Answer]", bool]:
    """The ping of this merchant under way in this process, or a new one on the probe pool;
    and whether it is new (its caller records it)."""
    pool = _probe_pool()
    with _flights_lock:
        flight = _flights.get(merchant.pk)
        if flight is not None:
            return flight, False
        flight = pool.submit(ping, merchant)
        _flights[merchant.pk] = flight

    def landed(_: "Future[Answer]") -> None:
        with _flights_lock:
            _flights.pop(merchant.pk, None)

    flight.add_done_callback(landed)
    return flight, True


def _latest(merchant_id: str) -> tuple[MerchantAgent, HealthProbe | None]:
    merchant = merchant_get(merchant_id=merchant_id)
    return merchant, merchant.probes.first()


def _claim(merchant: MerchantAgent) -> bool | None:
    """The right to probe this merchant among the web processes; None with the cache down."""
    try:
        return bool(cache.add(f"merchant-probe-running:{merchant.pk}", 1, probe_timeout() + 5))
    except RedisError as exc:
        logger.warning("cache unavailable, probing %s without a lock: %s", merchant, exc)
        return None


def _unclaim(merchant: MerchantAgent) -> None:
    with contextlib.suppress(RedisError):
        cache.delete(f"merchant-probe-running:{merchant.pk}")


def _newer(merchant: MerchantAgent, latest: HealthProbe | None) -> HealthProbe | None:
    """A probe recorded after `latest` (any, when there was none)."""
    probes = merchant.probes.all()
    if latest is not None:
        probes = probes.filter(checked_at__gt=latest.checked_at)
    return probes.first()


async def merchant_health(*, merchant_id: str) -> dict[str, Any]:
    """The merchant's health: the latest probe while it is fresh, else a new one (module
    docstring). Raises the 404 of an unknown merchant."""
    merchant, latest = await sync_to_async(_latest)(merchant_id)
    if merchant.is_deactivated:
        return _unprobed(merchant, "The merchant agent is deactivated; it is not probed.")
    if merchant.endpoint_verified_at is None:
        return _unprobed(merchant, UNVERIFIED)
    now = timezone.now()
    if latest is not None and latest.checked_at >= now - timedelta(
        seconds=settings.MERCHANT_HEALTH_CACHE_S
    ):
        return health_body(merchant, latest)
    deadline = asyncio.get_running_loop().time() + probe_timeout() + 1
    claimed = await sync_to_async(_claim)(merchant)
    if claimed is False:  # another web process probes it: wait for its record
        while asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.2)
            probe = await sync_to_async(_newer)(merchant, latest)
            if probe is not None:
                return health_body(merchant, probe)
        return health_body(merchant, latest) if latest else _unprobed(merchant, UNDER_WAY)
    try:
        flight, mine = _ping_in_flight(merchant)
        try:
            answer = await asyncio.wait_for(
                asyncio.shield(asyncio.wrap_future(flight)),
                timeout=deadline - asyncio.get_running_loop().time(),
            )
        except TimeoutError:  # the probe pool is busy with other merchants
            return health_body(merchant, latest) if latest else _unprobed(merchant, BUSY)
        if mine:
            await sync_to_async(probe_record)(
                merchant=merchant, answer=answer, trigger=ProbeTrigger.API, checked_at=now
            )
        return _body(
            merchant.merchant_id,
            healthy=answer.ok,
            status_code=answer.status_code,
            latency_ms=answer.latency_ms,
            checked_at=now,
            error=answer.error,
        )
    finally:
        if claimed:
            await sync_to_async(_unclaim)(merchant)


def probes_due() -> list[int]:
    """The merchants the schedule probes: every one not deactivated whose endpoint proved its
    ownership (the others are sent their verification instead)."""
    return list(
        MerchantAgent.objects.exclude(status=MerchantStatus.DEACTIVATED)
        .filter(endpoint_verified_at__isnull=False)
        .order_by("id")
        .values_list("pk", flat=True)
    )


def probes_prune(*, checked_before: datetime) -> int:
    """Delete health probes made before the given time; returns how many."""
    return delete_in_batches(HealthProbe.objects.filter(checked_at__lt=checked_before))
