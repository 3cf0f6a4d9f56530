"""Merchant secrets: registration tokens (stored hashed) and webhook signing secrets."""

import base64
import hashlib
import secrets

TOKEN_PREFIX = "mrt_"  # noqa: S105 - a prefix, not a secret


def new_registration_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """The SHA-256 hex digest under which a registration token is stored and looked up.

    The token carries 256 random bits, so a fast unsalted hash is enough: there is nothing to
    guess. Lookups go by digest (a unique index), so no stored secret is ever compared in Python.
    """
    return hashlib.sha256(token.encode()).hexdigest()


def new_webhook_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
