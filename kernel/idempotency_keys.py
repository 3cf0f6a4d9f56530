"""The Idempotency-Key of kernel/idempotency.py over the IdempotencyKey table (kernel/models.py),
and the view mixin that opts a ViewSet in: `class MyViewSet(Idempotent, viewsets.ViewSet)`.

A key is claimed by inserting its row: the unique key_hash makes one of two concurrent claims win
on SQLite and PostgreSQL alike (the other's insert fails, and it reads the winner's row). Every
later change is a conditional UPDATE or DELETE on the row as it was read, healthchecks' claim: a
retry takes over a run whose lock lapsed, or renews a key that expired, only if no other did
first; a run keeps its answer, or releases the key, only while the key is still its own.

A client's live keys are counted (the `owner` column, indexed with the expiry) before a new one
is inserted: two requests at once may each see the last free place, so a client may hold a key
or two past IDEMPOTENCY_KEYS_PER_CLIENT, never more than the requests it had in flight.
"""

import math
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework.request import Request

from kernel.errors import (
    IDEMPOTENCY_KEY_IN_FLIGHT,
    IDEMPOTENCY_KEY_LIMIT,
    IDEMPOTENCY_KEY_REUSED,
    ApiError,
)
from kernel.idempotency import Claim, IdempotentPosts, Keyed
from kernel.idempotent_answers import Answer, Digest, unsealed
from kernel.models import IdempotencyKey
from kernel.pruning import delete_in_batches

PATH_MAX = IdempotencyKey._meta.get_field("path").max_length or 300
# Tries of a claim whose key changes under it (expired and renewed, released, pruned).
CLAIM_TRIES = 3


def _lease(now: datetime) -> dict[str, object]:
    return {"locked_until": now + timedelta(seconds=settings.IDEMPOTENCY_LOCK_S)}


def _fresh(keyed: Keyed, now: datetime) -> dict[str, object]:
    """The columns of a key's first run."""
    return {
        "request_hash": keyed.request_hash,
        "caller": keyed.caller,
        "owner": keyed.owner,
        "method": keyed.method,
        "path": keyed.path[:PATH_MAX],
        "created_at": now,
        "expires_at": now + timedelta(seconds=settings.IDEMPOTENCY_KEY_TTL_S),
        "status_code": None,
        "stored_answer": None,
        **_lease(now),
    }


class KeyTable:
    """The keys, one row each (kernel.idempotency.Store)."""

    def claim(self, keyed: Keyed) -> Claim | Answer | Digest | ApiError:
        for _ in range(CLAIM_TRIES):
            now = timezone.now()
            found = IdempotencyKey.objects.filter(key_hash=keyed.key_hash).first()
            if found is None or found.expires_at <= now:  # a new key, or an expired one
                full = self._full(keyed.owner, now)
                if full is not None:
                    return full
            if found is None:
                try:
                    with transaction.atomic():
                        row = IdempotencyKey.objects.create(
                            key_hash=keyed.key_hash, **_fresh(keyed, now)
                        )
                    return Claim(row.pk, row.run)
                except IntegrityError:
                    continue  # taken meanwhile: see by whom
            held = IdempotencyKey.objects.filter(pk=found.pk, run=found.run)
            if found.expires_at <= now:  # an expired key is a new one
                if held.filter(expires_at__lte=now).update(run=found.run + 1, **_fresh(keyed, now)):
                    return Claim(found.pk, found.run + 1)
                continue
            if found.request_hash != keyed.request_hash:
                return IDEMPOTENCY_KEY_REUSED()
            if found.status_code is not None and found.stored_answer is not None:
                return unsealed(found.status_code, found.stored_answer)
            if found.locked_until is not None and found.locked_until > now:
                return IDEMPOTENCY_KEY_IN_FLIGHT()
            # The run that held it died: this retry runs instead, unless another took it first.
            taken = held.filter(status_code__isnull=True).update(run=found.run + 1, **_lease(now))
            return Claim(found.pk, found.run + 1) if taken else IDEMPOTENCY_KEY_IN_FLIGHT()
        return IDEMPOTENCY_KEY_IN_FLIGHT()

    def _full(self, owner: str, now: datetime) -> ApiError | None:
        """Why the client may take no new key (it holds as many live keys as it may), if so."""
        limit: int = settings.IDEMPOTENCY_KEYS_PER_CLIENT
        live = IdempotencyKey.objects.filter(owner=owner, expires_at__gt=now)
        if live.count() < limit:
            return None
        oldest = live.order_by("expires_at").values_list("expires_at", flat=True).first()
        wait = math.ceil((oldest - now).total_seconds()) if oldest is not None else 1
        return IDEMPOTENCY_KEY_LIMIT(limit=limit, headers={"Retry-After": str(max(wait, 1))})

    def keep(self, claim: Claim, answer: Answer | Digest) -> None:
        IdempotencyKey.objects.filter(pk=claim.row, run=claim.run, status_code__isnull=True).update(
            status_code=answer.status, stored_answer=answer.sealed, locked_until=None
        )

    def release(self, claim: Claim) -> None:
        IdempotencyKey.objects.filter(
            pk=claim.row, run=claim.run, status_code__isnull=True
        ).delete()


# The credentials, by header, that name a principal without the view authenticating by them,
# each with what finds its principal (None: no one). An app registers its own when it is ready
# (merchants/apps.py: X-Merchant-Token, a merchant by any of its tokens).
_recognised: dict[str, Callable[[str], Any]] = {}


def recognise(header: str, principal_of: Callable[[str], Any]) -> None:
    """Let a credential presented in `header` name its principal: the keys of any of a
    merchant's tokens are the merchant's."""
    _recognised[header] = principal_of


# Every POST action of a ViewSet that takes this first among its bases takes an Idempotency-Key
# (kernel/idempotency.py). No docstring: it would describe the view's operations in the contract.
class Idempotent(IdempotentPosts):
    idempotency_store = KeyTable()

    def idempotency_principal(self, request: Request) -> Any:
        """The principal the view authenticated, else the one a recognised credential presented
        names (registration, acceptance: by whichever of its tokens)."""
        user = getattr(request, "user", None)
        if getattr(user, "_meta", None) is not None:  # a row: a merchant the view authenticated
            return user
        for header, principal_of in _recognised.items():
            presented = request.headers.get(header)
            if presented:
                return principal_of(presented)
        return None


def idempotency_keys_prune(*, now: datetime) -> int:
    """Delete the keys expired by `now` (an expired key already acts as new); how many went."""
    return delete_in_batches(IdempotencyKey.objects.filter(expires_at__lte=now))
