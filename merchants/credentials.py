"""Merchant secrets: registration tokens (stored hashed: kernel/digests.py) and webhook signing
secrets."""

import base64
import secrets

TOKEN_PREFIX = "mrt_"  # noqa: S105 - a prefix, not a secret


def new_registration_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_webhook_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 24 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
