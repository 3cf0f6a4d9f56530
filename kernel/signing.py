"""The gateway's RSA signing keys: loaded from PEM, published as JWKs, named by thumbprint.

Keys come from MANDATE_SIGNING_KEY_FILE (one or more comma-separated paths) or
MANDATE_SIGNING_KEY (PEM text, `\\n` escapes allowed); a file or the text may hold several PEM
blocks. The first key signs; every key is published, so mandates signed before a rotation still
verify. Settings check the keys at start; `signing_keys()` loads them again lazily, cached per
configured value, so a changed setting (in tests) takes effect at once.
"""

import base64
import functools
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rfc8785
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

ALGORITHM = "RS256"
MIN_KEY_BITS = 2048
# A key file is a few kilobytes; anything far larger is not one.
MAX_KEY_FILE_BYTES = 1024 * 1024

_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----.+?-----END \1-----", re.DOTALL)


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 section 2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """The bytes of unpadded base64url text; ValueError for anything else."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        raise ValueError("not base64url without padding")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _uint(value: int) -> str:
    return b64url(value.to_bytes((value.bit_length() + 7) // 8 or 1, "big"))


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 (JCS) canonical UTF-8 bytes of a JSON value."""
    return rfc8785.dumps(value)


def jwk_thumbprint(*, n: str, e: str) -> str:
    """The RFC 7638 SHA-256 thumbprint of an RSA public key given as JWK members, base64url."""
    members = canonical_json({"e": e, "kty": "RSA", "n": n})
    return b64url(hashlib.sha256(members).digest())


@dataclass(frozen=True)
class SigningKey:
    """One RSA private key and the public JWK it is published as."""

    private_key: rsa.RSAPrivateKey
    kid: str
    n: str
    e: str

    @classmethod
    def of(cls, private_key: rsa.RSAPrivateKey) -> "SigningKey":
        numbers = private_key.public_key().public_numbers()
        n, e = _uint(numbers.n), _uint(numbers.e)
        return cls(private_key=private_key, kid=jwk_thumbprint(n=n, e=e), n=n, e=e)

    def public_jwk(self) -> dict[str, str]:
        """The key as published in the JWK Set: public members only."""
        return {
            "kty": "RSA",
            "n": self.n,
            "e": self.e,
            "kid": self.kid,
            "alg": ALGORITHM,
            "use": "sig",
        }

    def sign(self, payload: bytes) -> str:
        """RSASSA-PKCS1-v1_5 with SHA-256 over `payload`, base64url without padding."""
        return b64url(self.private_key.sign(payload, padding.PKCS1v15(), hashes.SHA256()))

    def verifies(self, payload: bytes, signature: bytes) -> bool:
        try:
            self.private_key.public_key().verify(
                signature, payload, padding.PKCS1v15(), hashes.SHA256()
            )
        except InvalidSignature:
            return False
        return True


def _keys_of(pem: str, *, where: str) -> list[SigningKey]:
    """Every key of a PEM text; `where` names its source in messages, never its content."""
    blocks = [match.group(0) for match in _PEM_BLOCK.finditer(pem)]
    if not blocks:
        raise ImproperlyConfigured(f"{where} holds no PEM block (-----BEGIN PRIVATE KEY-----)")
    keys = []
    for number, block in enumerate(blocks, start=1):
        label = f"{where}, PEM block {number}" if len(blocks) > 1 else where
        try:
            key = serialization.load_pem_private_key(block.encode("ascii"), password=None)
        except (ValueError, TypeError, UnicodeEncodeError, UnsupportedAlgorithm):
            # The library's message is left out: it could quote the key.
            raise ImproperlyConfigured(f"{label} is not an unencrypted PEM private key") from None
        if not isinstance(key, rsa.RSAPrivateKey):
            raise ImproperlyConfigured(f"{label} is not an RSA key (only RS256 is supported)")
        if key.key_size < MIN_KEY_BITS:
            raise ImproperlyConfigured(
                f"{label} is a {key.key_size}-bit RSA key; {MIN_KEY_BITS} bits at least"
            )
        keys.append(SigningKey.of(key))
    return keys


def _read(path_text: str, base_dir: Path) -> str:
    path = Path(path_text).expanduser()
    path = path if path.is_absolute() else base_dir / path
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"MANDATE_SIGNING_KEY_FILE: cannot read {path}: {exc.strerror or type(exc).__name__}"
        ) from None
    if len(raw) > MAX_KEY_FILE_BYTES:
        raise ImproperlyConfigured(f"MANDATE_SIGNING_KEY_FILE: {path} is too large for a key file")
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        raise ImproperlyConfigured(
            f"MANDATE_SIGNING_KEY_FILE: {path} is not a PEM text file"
        ) from None


@functools.lru_cache(maxsize=8)
def load_signing_keys(*, key_text: str, key_files: str, base_dir: Path) -> tuple[SigningKey, ...]:
    """The configured keys, the signing one first; empty when neither variable is set.

    Raises ImproperlyConfigured naming the variable for anything that is not an RSA private
    key of at least 2048 bits. Relative paths resolve against `base_dir` (the project).
    """
    key_text, key_files = key_text.strip(), key_files.strip()
    if key_text and key_files:
        raise ImproperlyConfigured(
            "Set MANDATE_SIGNING_KEY_FILE or MANDATE_SIGNING_KEY, not both: list several keys "
            "in one of them"
        )
    keys: list[SigningKey] = []
    if key_text:
        keys = _keys_of(key_text.replace("\\n", "\n"), where="MANDATE_SIGNING_KEY")
    for path_text in filter(None, (part.strip() for part in key_files.split(","))):
        keys += _keys_of(_read(path_text, base_dir), where=f"MANDATE_SIGNING_KEY_FILE {path_text}")
    # The same key listed twice is published once, where it first appears.
    unique: dict[str, SigningKey] = {}
    for key in keys:
        unique.setdefault(key.kid, key)
    return tuple(unique.values())


def signing_keys() -> tuple[SigningKey, ...]:
    """The keys of the current settings, the signing one first (empty: signing not configured)."""
    return load_signing_keys(
        key_text=settings.MANDATE_SIGNING_KEY,
        key_files=settings.MANDATE_SIGNING_KEY_FILE,
        base_dir=settings.BASE_DIR,
    )
