"""Secrets at rest: the keys that encrypt what the gateway must keep but never show (merchants'
webhook signing secrets, kernel.fields.EncryptedTextField).

Each passphrase of SECRETS_ENCRYPTION_KEYS (by default the one SECRET_KEY) gives a Fernet key
through HKDF-SHA256; the first encrypts, every one decrypts. Rotation (docs/operations.md): put
the new passphrase first and keep the old one after it, run `manage.py reencrypt_secrets`, then
drop the old one.
"""

import base64
import functools

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

INFO = b"product-recommendation-gateway secrets at rest v1"


def _fernet(passphrase: str) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(
        passphrase.encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


@functools.cache
def _keys(passphrases: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([_fernet(passphrase) for passphrase in passphrases])


def keys() -> MultiFernet:
    return _keys(tuple(settings.SECRETS_ENCRYPTION_KEYS))


def encrypt(plaintext: str) -> str:
    return keys().encrypt(plaintext.encode()).decode()


def decrypt(ciphertext: str) -> str:
    """The plaintext. Raises ImproperlyConfigured when no configured key opens it: a deploy
    that dropped the key still in use, which must stop loudly rather than sign with garbage."""
    try:
        return keys().decrypt(ciphertext.encode()).decode()
    except InvalidToken:
        raise ImproperlyConfigured(
            "A secret at rest opens with none of SECRETS_ENCRYPTION_KEYS: a key still in use "
            "was removed (docs/operations.md, rotation)."
        ) from None


def reencrypt(ciphertext: str) -> str:
    """The same secret under the first key."""
    return keys().rotate(ciphertext.encode()).decode()
