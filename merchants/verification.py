"""Endpoint ownership (DESIGN.md section 7): a merchant proves it controls its `agent_endpoint`
before the gateway sends it any Intent.Surge.

On registration, and on every change of the endpoint, the merchant's record gets a new
verification: an `endpoint.verification` event with a random `challenge`, signed like every
webhook (Standard Webhooks headers, the merchant's secret). The merchant proves ownership by
answering 2xx with the JSON body `{"challenge": "<the same value>"}`; `endpoint_verified_at` is
set then. Until it is, the merchant receives no Intent.Surge (its polling feed still works) and
the event is sent again on the delivery schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), then
once a day. Attempts go through the probes' queue and workers, never a delivery lane.

So nobody can point the gateway's webhooks at a URL they do not control: a victim's endpoint
that does not echo the challenge receives one small request per verification attempt, never an
intent.
"""

import logging
import secrets
from datetime import datetime, timedelta

import orjson
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from kombu.exceptions import OperationalError

from gateway.ids import EVENT, new_id
from merchants.client import Answer, post_signed
from merchants.delivery import RETRY_SCHEDULE, event_body
from merchants.delivery.hosts import host_allows
from merchants.endpoints import endpoint_target_within
from merchants.models import MerchantAgent, MerchantStatus

logger = logging.getLogger(__name__)

VERIFICATION = "endpoint.verification"
# After the delivery schedule, an endpoint that never echoed is asked once a day.
DAILY = timedelta(days=1)
# A verification claimed this long ago and still not settled lost its worker.
LEASE = timedelta(minutes=2)
SWEEP_BATCH = 200


def verification_reset(merchant: MerchantAgent, now: datetime) -> list[str]:
    """Start a new verification of the merchant's endpoint (not saved): the fields it set."""
    merchant.endpoint_verified_at = None
    merchant.verification_event_id = new_id(EVENT)
    merchant.verification_challenge = secrets.token_urlsafe(32)
    merchant.verification_attempts = 0
    merchant.next_verification_at = now
    merchant.last_verification_error = ""
    return [
        "endpoint_verified_at",
        "verification_event_id",
        "verification_challenge",
        "verification_attempts",
        "next_verification_at",
        "last_verification_error",
    ]


def verification_send_later(merchant_pk: int) -> None:
    """After the commit that started a verification: its first attempt, as a task."""
    from merchants.tasks import verify_endpoint  # the tasks call this module's use cases

    def send() -> None:
        try:
            verify_endpoint.apply_async((merchant_pk,), retry=False)
        except (OperationalError, OSError) as exc:  # the broker is down: the sweeper sends it
            logger.warning("broker unavailable, the sweeper will verify the endpoint: %s", exc)

    transaction.on_commit(send)


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


def _next_attempt(attempts: int, now: datetime) -> datetime:
    if attempts <= len(RETRY_SCHEDULE):
        return now + RETRY_SCHEDULE[attempts - 1]
    return now + DAILY


def endpoint_verify(*, merchant_pk: int) -> bool | None:
    """One attempt of the merchant's pending verification, if it is due: True when the endpoint
    echoed the challenge, False when not, None when there was nothing to do (verified already,
    not due, deactivated, another worker has it, or its endpoint's host had its fill this
    minute)."""
    now = timezone.now()
    due = MerchantAgent.objects.filter(
        pk=merchant_pk,
        endpoint_verified_at__isnull=True,
        next_verification_at__lte=now,
    ).exclude(status=MerchantStatus.DEACTIVATED)
    merchant = due.first()
    if merchant is None:
        return None
    if not merchant.verification_challenge:  # registered before verification existed
        fields = verification_reset(merchant, now)
        due.update(**{field: getattr(merchant, field) for field in fields})
    target = endpoint_target_within(merchant.agent_endpoint, settings.WEBHOOK_TIMEOUT_S)
    if not host_allows(target):
        due.update(next_verification_at=now + timedelta(seconds=60))
        return None
    # The claim: one worker per attempt; a lost worker's claim lapses after LEASE.
    claimed = due.filter(verification_event_id=merchant.verification_event_id).update(
        next_verification_at=now + LEASE
    )
    if not claimed:
        return None
    data = {
        "challenge": merchant.verification_challenge,
        "merchant_agent_id": merchant.merchant_id,
        "agent_endpoint": merchant.agent_endpoint,
    }
    answer = post_signed(
        url=merchant.agent_endpoint,
        secret=merchant.webhook_secret,
        msg_id=merchant.verification_event_id,
        body=event_body(merchant.verification_event_id, VERIFICATION, data, now),
        timeout=settings.WEBHOOK_TIMEOUT_S,
        target=target,
    )
    verified = _echoed(answer, merchant.verification_challenge)
    attempts = merchant.verification_attempts + 1
    done = timezone.now()
    # Settled only if the endpoint is still the one challenged (no change meanwhile).
    mine = MerchantAgent.objects.filter(
        pk=merchant_pk, verification_event_id=merchant.verification_event_id
    )
    if verified:
        mine.update(
            endpoint_verified_at=done,
            verification_attempts=attempts,
            next_verification_at=None,
            last_verification_error="",
        )
    else:
        mine.update(
            verification_attempts=attempts,
            next_verification_at=_next_attempt(attempts, done),
            last_verification_error=_failure(answer)[:300],
        )
    return verified


def verifications_due(now: datetime | None = None) -> list[int]:
    """Merchants whose verification attempt is due (a lapsed claim included), oldest first."""
    now = now or timezone.now()
    pending = MerchantAgent.objects.filter(
        Q(next_verification_at__lte=now), endpoint_verified_at__isnull=True
    ).exclude(status=MerchantStatus.DEACTIVATED)
    return list(pending.order_by("next_verification_at").values_list("pk", flat=True)[:SWEEP_BATCH])


__all__ = [
    "VERIFICATION",
    "endpoint_verify",
    "verification_reset",
    "verification_send_later",
    "verifications_due",
]
