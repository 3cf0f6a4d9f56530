"""Secrets at rest: the keys that encrypt what the gateway must keep but never show (merchants'
webhook signing secrets, kernel.fields.EncryptedTextField).

Each passphrase of SECRETS_ENCRYPTION_KEYS (by default the one SECRET_KEY) gives a Fernet key
through HKDF-SHA256; the first encrypts, every one decrypts. The same passphrases give, under
another HKDF label, the keys that seal what the gateway hands out and reads back without
showing it (`seal`: UCP's search cursors): neither set of keys opens what the other closed.
Rotation (docs/data.md): put the new passphrase first and keep the old one after it, run
`manage.py reencrypt_secrets`, then drop the old one.
"""

import base64
import functools

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

INFO = b"product-recommendation-gateway secrets at rest v1"
SEALED_INFO = b"product-recommendation-gateway sealed tokens v1"


def _fernet(passphrase: str, info: bytes = INFO) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(
        passphrase.encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


@functools.cache
def _keys(passphrases: tuple[str, ...], info: bytes = INFO) -> MultiFernet:
    return MultiFernet([_fernet(passphrase, info) for passphrase in passphrases])


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
            "was removed (docs/data.md, rotation)."
        ) from None


def reencrypt(ciphertext: str) -> str:
    """The same secret under the first key."""
    return keys().rotate(ciphertext.encode()).decode()


def seal(data: bytes) -> str:
    """`data` encrypted and authenticated, as URL-safe text to hand out: only this gateway (its
    SECRETS_ENCRYPTION_KEYS) reads it back, and nobody can alter it unseen."""
    return _keys(tuple(settings.SECRETS_ENCRYPTION_KEYS), SEALED_INFO).encrypt(data).decode()


def unseal(token: str, *, max_age_s: int) -> bytes | None:
    """What `seal` sealed in `token`; None when the gateway did not seal it, it was altered, or
    it was sealed more than `max_age_s` ago."""
    try:
        sealed = token.encode("ascii")
        keys = _keys(tuple(settings.SECRETS_ENCRYPTION_KEYS), SEALED_INFO)
        return keys.decrypt(sealed, ttl=max_age_s)
    except (InvalidToken, UnicodeEncodeError):
        return None
