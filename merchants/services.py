"""Merchant agent use cases: register, look up, update, heartbeat, rotate the token."""

import hmac
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.db.models.functions import Lower
from django.utils import timezone

from kernel.digests import token_digest
from kernel.errors import BAD_ENDPOINT, MERCHANT_NOT_FOUND
from merchants import subscriptions
from merchants.auth import invalid_token, missing_token
from merchants.credentials import new_registration_token, new_webhook_secret
from merchants.endpoints import registration_problem
from merchants.models import MERCHANT_ID, MerchantAgent, MerchantStatus
from merchants.signals import merchant_deactivated
from merchants.verification import verification_reset, verification_send_later


@dataclass(frozen=True)
class Registration:
    merchant: MerchantAgent
    created: bool
    registration_token: str
    webhook_secret: str | None  # only when created: shown once


def _check_endpoint(url: str) -> None:
    problem = registration_problem(url)
    if problem:
        field = {"agent_endpoint": [f"The endpoint {problem}."]}
        raise BAD_ENDPOINT(problem=problem, fields=field)


def named(merchant_id: str) -> "QuerySet[MerchantAgent]":
    """The merchant called `merchant_id`, whatever the case of its letters."""
    return MerchantAgent.objects.alias(key=Lower("merchant_id")).filter(key=merchant_id.lower())


def merchant_get(*, merchant_id: str) -> MerchantAgent:
    merchant = None
    if MERCHANT_ID.fullmatch(merchant_id):
        merchant = named(merchant_id).first()
    if merchant is None:
        raise MERCHANT_NOT_FOUND()
    return merchant


OnMove = Callable[[MerchantAgent], None]


def merchant_register(
    *,
    merchant_id: str,
    fields: dict[str, Any],
    presented_token: str | None,
    on_move: OnMove | None = None,
) -> Registration:
    """Register a new merchant, or update an existing one that presents its current token.

    Without the right token an existing merchant is never changed: no one can take over another
    merchant's endpoint or token by registering its id. `on_move` is called with a merchant
    whose endpoint is about to change (an error it raises changes nothing).
    """
    _check_endpoint(fields["agent_endpoint"])
    existing = named(merchant_id).first()
    if existing is None:
        token, secret = new_registration_token(), new_webhook_secret()
        try:
            with transaction.atomic():
                subscriptions.changed()
                merchant = MerchantAgent(
                    merchant_id=merchant_id,
                    token_hash=token_digest(token),
                    webhook_secret=secret,
                    last_seen_at=timezone.now(),
                    **fields,
                )
                verification_reset(merchant, timezone.now())
                merchant.save(force_insert=True)
                verification_send_later(merchant.pk)
            return Registration(merchant, True, token, secret)
        except IntegrityError:
            # Another request registered this id a moment ago: it is an existing merchant now.
            existing = named(merchant_id).get()
    if presented_token is None:
        raise missing_token()
    with transaction.atomic():
        subscriptions.changed()
        # Locked and re-read: a rotation committing meanwhile must win, and the token hash is
        # never among the fields written back.
        merchant = MerchantAgent.objects.select_for_update().get(pk=existing.pk)
        if not hmac.compare_digest(token_digest(presented_token), merchant.token_hash):
            raise invalid_token()
        moved = fields.get("agent_endpoint", merchant.agent_endpoint) != merchant.agent_endpoint
        if moved and on_move is not None:
            on_move(merchant)
        for name, value in fields.items():
            setattr(merchant, name, value)
        verifying = verification_reset(merchant, timezone.now()) if moved else []
        if merchant.is_deactivated:
            merchant.status, merchant.deactivated_at = MerchantStatus.ACTIVE, None
        # Registering again is how a merchant whose endpoint answered 410 Gone says it is back.
        merchant.deliveries_disabled_at = None
        merchant.last_seen_at = timezone.now()
        merchant.save(
            update_fields=[
                *fields,
                *verifying,
                "status",
                "deactivated_at",
                "deliveries_disabled_at",
                "last_seen_at",
                "updated_at",
            ]
        )
        if verifying:
            verification_send_later(merchant.pk)
    return Registration(merchant, False, presented_token, None)


def merchant_update(
    *, merchant: MerchantAgent, changes: dict[str, Any], on_move: OnMove | None = None
) -> MerchantAgent:
    """Change the merchant's mutable fields; `on_move` as in merchant_register."""
    fields = [*changes, "updated_at"]
    moved = "agent_endpoint" in changes and changes["agent_endpoint"] != merchant.agent_endpoint
    if "agent_endpoint" in changes:
        _check_endpoint(changes["agent_endpoint"])
    if moved and on_move is not None:
        on_move(merchant)
    if "agent_endpoint" in changes:
        # A new endpoint starts with its deliveries enabled, whatever the old one answered.
        merchant.deliveries_disabled_at = None
        fields.append("deliveries_disabled_at")
    for name, value in changes.items():
        setattr(merchant, name, value)
    with transaction.atomic():
        if moved:  # ownership of the new endpoint is proven anew
            fields += verification_reset(merchant, timezone.now())
            verification_send_later(merchant.pk)
        merchant.save(update_fields=fields)
    subscriptions.changed()
    return merchant


def merchant_heartbeat(*, merchant: MerchantAgent) -> MerchantAgent:
    merchant.last_seen_at = timezone.now()
    merchant.save(update_fields=["last_seen_at", "updated_at"])
    return merchant


def merchant_rotate_token(*, merchant: MerchantAgent) -> str:
    """Issue a new registration token; the old one stops working at once."""
    token = new_registration_token()
    merchant.token_hash = token_digest(token)
    merchant.save(update_fields=["token_hash", "updated_at"])
    return token


def merchant_deactivate(*, merchant_id: str) -> MerchantAgent:
    """Deactivate a merchant: it receives no more events, and the apps that hold its offers
    withdraw them (merchants.signals.merchant_deactivated), all in one transaction."""
    merchant = merchant_get(merchant_id=merchant_id)
    with transaction.atomic():
        if not merchant.is_deactivated:
            merchant.status, merchant.deactivated_at = MerchantStatus.DEACTIVATED, timezone.now()
            merchant.save(update_fields=["status", "deactivated_at", "updated_at"])
            merchant_deactivated.send(sender=MerchantAgent, merchant=merchant)
    return merchant
