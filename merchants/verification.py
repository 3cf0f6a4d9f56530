"""Endpoint ownership (DESIGN.md section 7): a merchant proves it controls its `agent_endpoint`
before the gateway sends it any Intent.Surge.

On registration, and on every change of the endpoint, the merchant's record gets a new
verification: an `endpoint.verification` event with a random `challenge`, signed like every
webhook (Standard Webhooks headers, the merchant's secret). The merchant proves ownership by
answering 2xx with the JSON body `{"challenge": "<the same value>"}`; `endpoint_verified_at` is
set then. Until it is, the merchant receives no Intent.Surge (its polling feed still works) and
the event is sent again on the delivery schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h).
An endpoint that never echoed through the whole schedule is parked: asked no more until the
merchant asks for a verification (POST /v1/merchant/{id}/verify) or changes its endpoint. The
merchant record says why (`verification_state`, `verification_error`). Attempts go through the
probes' queue and workers, never a delivery lane.

One verification per URL, however many merchants name it: the merchants waiting for a proof of
one URL are asked together, in one event signed with each one's secret (one signature each in
`webhook-signature`, as Standard Webhooks allows; the endpoint's library accepts the event when
the signature of the secret it holds verifies), and the echo proves the URL for all of them. One
verification of a URL is under way at a time, and a first attempt (a new endpoint, a re-arm)
waits URL_GAP after the URL was last asked, so merchants naming it meanwhile join the next
attempt; its destination counts toward WEBHOOK_HOST_PER_MINUTE like a delivery.

So nobody can point the gateway's webhooks at a URL they do not control: a victim's endpoint
that does not echo the challenge receives one small request per attempt of the schedule, never
an intent, and then nothing more.
"""

import hashlib
import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

import orjson
from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from redis.exceptions import RedisError

from kernel.dispatch import dispatch_after_commit
from kernel.ids import EVENT, new_id
from kernel.scheduling import RetrySchedule, Scheduled
from merchants import metrics
from merchants.client import MOST_SIGNATURES, Answer, post_signed
from merchants.delivery import RETRY_SCHEDULE, event_body
from merchants.delivery.hosts import host_allows
from merchants.endpoints import Target, endpoint_target_within
from merchants.models import (
    VERIFICATION_FIELDS,
    MerchantAgent,
    MerchantStatus,
    VerificationAttempt,
)

logger = logging.getLogger(__name__)

VERIFICATION = "endpoint.verification"
# The task that makes a verification's attempt (merchants/tasks.py), sent by name: the tasks
# call this module's use cases, not the other way round.
VERIFY_ENDPOINT = "merchants.tasks.verify_endpoint"
# A URL is sent one verification at most this often, whoever's merchants name it.
URL_GAP = timedelta(seconds=60)
# A verification claimed this long ago and still not settled lost its worker.
LEASE = timedelta(minutes=2)
# A verification's attempts, on the deliveries' schedule; a claim holds for LEASE, after which
# the verification is due again (kernel/scheduling.py).
VERIFYING = Scheduled(
    due="next_verification_at",
    attempts="verification_attempts",
    schedule=RetrySchedule(RETRY_SCHEDULE),
    lease=lambda: LEASE,
)
# The attempts of the schedule: the first, then one after each wait of the retry schedule.
ATTEMPTS = VERIFYING.schedule.attempts
SWEEP_BATCH = 200
PARKED_REASON = "Asked {attempts} times without the challenge echoed; parked."


def verification_reset(merchant: MerchantAgent, now: datetime) -> list[str]:
    """Start a new verification of the merchant's endpoint (not saved): the fields it set."""
    merchant.endpoint_verified_at = None
    merchant.verification_event_id = new_id(EVENT)
    merchant.verification_challenge = secrets.token_urlsafe(32)
    merchant.verification_attempts = 0
    merchant.next_verification_at = now
    merchant.last_verification_error = ""
    merchant.verification_parked_at = None
    return list(VERIFICATION_FIELDS)


def verification_send_later(merchant_pk: int) -> None:
    """After the commit that started a verification: its first attempt, as a task (with the
    broker down, the sweeper sends it: the verification is due)."""
    dispatch_after_commit(VERIFY_ENDPOINT, merchant_pk)


def _echoed(answer: Answer, challenge: str) -> bool:
    if not answer.ok:
        return False
    try:
        body = orjson.loads(answer.excerpt)
    except orjson.JSONDecodeError:
        return False
    return isinstance(body, dict) and secrets.compare_digest(
        str(body.get("challenge", "")), challenge
    )


def _failure(answer: Answer) -> str:
    if not answer.ok:
        return answer.error
    return 'The endpoint answered 2xx without {"challenge": "<the challenge sent>"}.'


def _after_failure(attempts: int, error: str, now: datetime) -> dict[str, Any]:
    """A verification's state after failed attempt number `attempts`: the next attempt on the
    schedule, or parked after the last one."""
    changes = VERIFYING.after_failure(attempts, now)
    if VERIFYING.given_up(changes):
        parked = f"{error} {PARKED_REASON.format(attempts=attempts)}"
        return {**changes, "verification_parked_at": now, "last_verification_error": parked[:300]}
    return {**changes, "last_verification_error": error[:300]}


def _url_keys(url: str) -> tuple[str, str]:
    digest = hashlib.sha256(url.encode()).hexdigest()
    return f"verification-url-busy:{digest}", f"verification-url-asked:{digest}"


# What _url_wait says when the URL's turn is taken by the same verification (the same event):
# another task for it is under way or has just asked; this one leaves the row as it is.
TAKEN = timedelta(0)


def _url_wait(url: str, event_id: str, *, first: bool) -> timedelta | None:
    """Take the URL's turn, or say how long to wait for it: while a verification of the URL is
    under way, and for a first attempt (a new endpoint, a re-arm) URL_GAP after the URL was last
    asked, so merchants naming it meanwhile join the next attempt instead of causing one each.
    Attempts on the schedule are spaced by the schedule itself. TAKEN when the turn is the same
    event's: a repeated task (a merchant that changed its endpoint several times has a task for
    each change) must not postpone the attempt another worker is about to claim."""
    busy, asked = _url_keys(url)
    try:
        asked_for = cache.get(asked) if first else None
        if asked_for is not None:
            return TAKEN if asked_for == event_id else URL_GAP
        if not cache.add(busy, event_id, timeout=int(LEASE.total_seconds())):
            return TAKEN if cache.get(busy) == event_id else RETRY_SCHEDULE[0]
        cache.set(asked, event_id, timeout=int(URL_GAP.total_seconds()))
    except (RedisError, OSError) as exc:
        logger.warning("cache unavailable, verifications not spaced per URL: %s", exc)
    return None


def _url_done(url: str) -> None:
    try:
        cache.delete(_url_keys(url)[0])
    except (RedisError, OSError) as exc:
        logger.warning("cache unavailable, the URL's turn lapses on its own: %s", exc)


def _waiting_with(merchant: MerchantAgent) -> list[MerchantAgent]:
    """The merchants waiting for a proof of the same URL, this one first (MOST_SIGNATURES)."""
    others = (
        MerchantAgent.objects.filter(
            agent_endpoint=merchant.agent_endpoint,
            endpoint_verified_at__isnull=True,
            verification_parked_at__isnull=True,
        )
        .exclude(status=MerchantStatus.DEACTIVATED)
        .exclude(verification_challenge="")
        .exclude(pk=merchant.pk)
        .order_by("pk")
    )
    return [merchant, *others[: MOST_SIGNATURES - 1]]


def endpoint_verify(*, merchant_pk: int) -> bool | None:
    """One attempt of the merchant's pending verification, if it is due, for every merchant
    waiting for a proof of the same URL: True when the endpoint echoed the challenge, False
    when not, None when there was nothing to do (verified already, not due, parked,
    deactivated, another worker has it, or the URL or its destination had its fill)."""
    now = timezone.now()
    pending = MerchantAgent.objects.filter(
        pk=merchant_pk, endpoint_verified_at__isnull=True, verification_parked_at__isnull=True
    ).exclude(status=MerchantStatus.DEACTIVATED)
    due = VERIFYING.due_in(pending, now)
    merchant = due.first()
    if merchant is None:
        return None
    if not merchant.verification_challenge:  # registered before verification existed
        fields = verification_reset(merchant, now)
        due.update(**{field: getattr(merchant, field) for field in fields})
    target = endpoint_target_within(merchant.agent_endpoint, settings.WEBHOOK_TIMEOUT_S)
    first = merchant.verification_attempts == 0
    wait = _url_wait(merchant.agent_endpoint, merchant.verification_event_id, first=first)
    if wait is TAKEN:
        return None
    if wait is not None:
        VERIFYING.postpone(due, now + wait)
        return None
    try:
        return _attempt(merchant, due, target, now)
    finally:
        _url_done(merchant.agent_endpoint)


def _attempt(
    merchant: MerchantAgent, due: "QuerySet[MerchantAgent]", target: Target, now: datetime
) -> bool | None:
    """The attempt, the URL's turn taken: the destination's bound, the claim, the request, and
    what it settles for every merchant asked."""
    if not host_allows(target):
        VERIFYING.postpone(due, now + timedelta(seconds=60))
        return None
    # The claim: one worker per attempt; a lost worker's claim lapses after LEASE.
    if not VERIFYING.claim(due.filter(verification_event_id=merchant.verification_event_id), now):
        return None
    group = _waiting_with(merchant)
    # The others asked with it are held as long: none of them is asked on its own meanwhile.
    VERIFYING.claim(MerchantAgent.objects.filter(pk__in=[m.pk for m in group[1:]]), now)
    data = {
        "challenge": merchant.verification_challenge,
        "merchant_agent_id": merchant.merchant_id,
        "merchant_agent_ids": [m.merchant_id for m in group],
        "agent_endpoint": merchant.agent_endpoint,
    }
    answer = post_signed(
        url=merchant.agent_endpoint,
        secret=[m.webhook_secret for m in group],
        msg_id=merchant.verification_event_id,
        body=event_body(merchant.verification_event_id, VERIFICATION, data, now),
        timeout=settings.WEBHOOK_TIMEOUT_S,
        target=target,
    )
    verified = _echoed(answer, merchant.verification_challenge)
    metrics.verification_attempted(answer, verified)
    done = timezone.now()
    for member in group:
        # Settled only if the endpoint is still the one challenged (no change meanwhile).
        mine = MerchantAgent.objects.filter(
            pk=member.pk, verification_event_id=member.verification_event_id
        )
        number = member.verification_attempts + 1
        if verified:
            settled = mine.update(
                endpoint_verified_at=done,
                verification_attempts=number,
                next_verification_at=None,
                last_verification_error="",
            )
        else:
            settled = mine.update(**_after_failure(number, _failure(answer), done))
        if settled:
            _logged(member, number, now, answer, verified)
    return verified


def _logged(
    merchant: MerchantAgent, number: int, started: datetime, answer: Answer, verified: bool
) -> None:
    """The attempt in the merchant's log (its deliveries list); the attempts of its earlier
    verifications go, so the log holds one schedule's worth at most."""
    event_id = merchant.verification_event_id
    VerificationAttempt.objects.filter(merchant_id=merchant.pk).exclude(event_id=event_id).delete()
    attempt = VerificationAttempt(
        merchant_id=merchant.pk,
        event_id=event_id,
        number=number,
        started_at=started,
        verified=verified,
        status_code=answer.status_code,
        latency_ms=answer.latency_ms,
        error="" if verified else _failure(answer)[:300],
    )
    # A worker whose claim lapsed may settle the same attempt late: logged once.
    VerificationAttempt.objects.bulk_create([attempt], ignore_conflicts=True)


def verification_rearm(*, merchant: MerchantAgent) -> MerchantAgent:
    """The merchant asks for its endpoint to be verified (again): a new verification, sent now,
    unless its endpoint is proven already. Re-arms a parked one."""
    if merchant.endpoint_verified_at is None and not merchant.is_deactivated:
        with transaction.atomic():
            fields = verification_reset(merchant, timezone.now())
            merchant.save(update_fields=[*fields, "updated_at"])
            verification_send_later(merchant.pk)
    return merchant


def verifications_due(now: datetime | None = None) -> list[int]:
    """Merchants whose verification attempt is due (a lapsed claim included), oldest first."""
    pending = MerchantAgent.objects.filter(endpoint_verified_at__isnull=True).exclude(
        status=MerchantStatus.DEACTIVATED
    )
    return VERIFYING.sweep(pending, now or timezone.now(), batch=SWEEP_BATCH)


__all__ = [
    "VERIFICATION",
    "VERIFYING",
    "VERIFY_ENDPOINT",
    "endpoint_verify",
    "verification_rearm",
    "verification_reset",
    "verification_send_later",
    "verifications_due",
]
