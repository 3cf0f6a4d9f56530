"""Signed intent mandates: "this product, up to this amount, until then", signed by the gateway.

A mandate is a small JSON object. Its RFC 8785 canonical bytes are signed by the first
configured key with that key's algorithm: ES256 (ECDSA P-256 and SHA-256) for an EC key, RS256
(RSASSA-PKCS1-v1_5 and SHA-256) for an RSA key. The public keys are published as a JWK Set at
/.well-known/jwks.json, so anyone can verify a mandate without asking the gateway. Verifying
recomputes the canonical bytes from the mandate object itself: a changed field breaks the
signature.
"""

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from catalog.models import Product
from kernel.errors import (
    INVALID_BODY,
    PROPOSED_PRODUCT_NOT_FOUND,
    SIGNING_KEY_UNAVAILABLE,
    ApiError,
)
from kernel.ids import MANDATE, new_id
from kernel.signing import ALGORITHMS, b64url_decode, canonical_json, signing_keys
from matching.models import IntentMandate

MANDATE_TYPE = "intent_mandate"
MANDATE_FIELDS = frozenset(
    {
        "mandate_id",
        "type",
        "issuer",
        "product_id",
        "amount_limit",
        "currency",
        "issued_at",
        "expires_at",
        "nonce",
    }
)


class Reason(models.TextChoices):
    """Why a presented mandate is not valid."""

    MALFORMED = "malformed", "not a mandate, or a signature that is not base64url"
    UNSUPPORTED_ALGORITHM = (
        "unsupported_algorithm",
        "an algorithm other than ES256 and RS256, or not the algorithm of the key",
    )
    UNKNOWN_KEY = "unknown_key", "key_id names no published key"
    BAD_SIGNATURE = "bad_signature", "the signature does not cover these exact bytes"
    WRONG_ISSUER = "wrong_issuer", "signed by this gateway under another base URL"
    EXPIRED = "expired", "past expires_at"


@dataclass(frozen=True)
class SignedMandate:
    mandate: dict[str, Any]
    canonical_payload: str
    signature: str
    key_id: str
    algorithm: str


def jwks_url() -> str:
    return f"{settings.PUBLIC_BASE_URL}/.well-known/jwks.json"


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json_number(amount: Decimal) -> int | float:
    # Whole amounts are written as integers; either way the canonical bytes are the same.
    return int(amount) if amount == amount.to_integral_value() else float(amount)


def signing_key_unavailable() -> ApiError:
    return SIGNING_KEY_UNAVAILABLE()


def mandate_sign(*, product_id: int, amount_limit: Decimal, currency: str) -> SignedMandate:
    """Sign a mandate for one catalog product up to `amount_limit`, with the first key, and
    record it. 503 when no key is configured; 400 `invalid_body` for an unknown product."""
    # The body is judged first: the same bad request is a 400 with or without a key.
    product = Product.objects.filter(id=product_id).first()
    if product is None:
        raise INVALID_BODY(
            names="product_id", fields={"product_id": [PROPOSED_PRODUCT_NOT_FOUND.message]}
        )
    keys = signing_keys()
    if not keys:
        raise signing_key_unavailable()
    key = keys[0]
    issued_at = timezone.now().replace(microsecond=0)
    expires_at = issued_at + timedelta(seconds=settings.MANDATE_LIFETIME_S)
    mandate = {
        "mandate_id": new_id(MANDATE),
        "type": MANDATE_TYPE,
        "issuer": settings.PUBLIC_BASE_URL,
        "product_id": str(product.id),
        "amount_limit": _json_number(amount_limit),
        "currency": currency,
        "issued_at": _timestamp(issued_at),
        "expires_at": _timestamp(expires_at),
        "nonce": secrets.token_urlsafe(16),
    }
    payload = canonical_json(mandate)
    signature = key.sign(payload)
    IntentMandate.objects.create(
        mandate_id=mandate["mandate_id"],
        product=product,
        amount_limit=amount_limit,
        currency=currency,
        key_id=key.kid,
        algorithm=key.algorithm,
        canonical_payload=payload.decode("utf-8"),
        signature=signature,
        issued_at=issued_at,
        expires_at=expires_at,
    )
    return SignedMandate(mandate, payload.decode("utf-8"), signature, key.kid, key.algorithm)


def _parse_timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def mandate_verify(
    *, mandate: dict[str, Any], signature: str, key_id: str | None, algorithm: str | None
) -> Reason | None:
    """Why the mandate is not valid, or None when it is.

    The signature is checked before anything the mandate says is believed; only then its
    content (type, issuer, expiry). Without key_id every published key is tried. Each key
    verifies with its own algorithm only: a claimed algorithm that is not the key's (RS256
    for an EC key, ES256 for an RSA key, HS256 for either) is refused, never used.
    """
    if algorithm is not None and algorithm not in ALGORITHMS:
        return Reason.UNSUPPORTED_ALGORITHM
    try:
        payload = canonical_json(mandate)
        raw_signature = b64url_decode(signature)
    except (ValueError, TypeError):
        return Reason.MALFORMED
    keys = signing_keys()
    if key_id is not None:
        keys = tuple(key for key in keys if key.kid == key_id)
    if not keys:
        return Reason.UNKNOWN_KEY
    if algorithm is not None:
        keys = tuple(key for key in keys if key.algorithm == algorithm)
        if not keys:
            return Reason.UNSUPPORTED_ALGORITHM
    if not any(key.verifies(payload, raw_signature) for key in keys):
        return Reason.BAD_SIGNATURE
    expires_at = _parse_timestamp(mandate.get("expires_at"))
    if set(mandate) != MANDATE_FIELDS or mandate["type"] != MANDATE_TYPE or expires_at is None:
        return Reason.MALFORMED
    if mandate["issuer"] != settings.PUBLIC_BASE_URL:
        return Reason.WRONG_ISSUER
    if expires_at <= timezone.now():
        return Reason.EXPIRED
    return None
