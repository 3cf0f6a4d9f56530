"""The gateway's signing keys: loaded from PEM, published as JWKs, named by thumbprint.

Keys come from MANDATE_SIGNING_KEY_FILE (one or more comma-separated paths) or
MANDATE_SIGNING_KEY (PEM text, `\\n` escapes allowed); a file or the text may hold several PEM
blocks. The first key signs; every key is published, so mandates signed before a rotation still
verify. The algorithm follows the key: an EC P-256 key signs ES256 (the default of new
deployments: AP2 asks for ECDSA, and UCP verifiers must accept it), an RSA key of 2048 bits or
more RS256 (what the interface specification names, and deployments made before ES256 keep).
Settings check the keys at start; `signing_keys()` loads them again lazily, cached per
configured value, so a changed setting (in tests) takes effect at once.
"""

import base64
import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rfc8785
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

ES256 = "ES256"
RS256 = "RS256"
# What a signature may claim; anything else (none, HS256, ...) is refused before any key is used.
ALGORITHMS = (ES256, RS256)
ALGORITHM_CHOICES = [
    (ES256, "ECDSA with P-256 and SHA-256"),
    (RS256, "RSASSA-PKCS1-v1_5 with SHA-256"),
]
MIN_KEY_BITS = 2048
# ES256's JWS signature is r || s, each a 32-byte big-endian integer (RFC 7518 section 3.4).
ES256_COORDINATE_BYTES = 32
# The order of P-256's base point. ECDSA's (r, s) and (r, n - s) both verify; only the low one
# (s <= n / 2) is made and accepted, so that a signature has one spelling (no malleability).
P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
# A key file is a few kilobytes; anything far larger is not one.
MAX_KEY_FILE_BYTES = 1024 * 1024
# RFC 7638 section 3.2: the members of each key type that its thumbprint covers.
THUMBPRINT_MEMBERS = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n")}

_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----.+?-----END \1-----", re.DOTALL)


def b64url(data: bytes) -> str:
    """Base64url without padding (RFC 7515 section 2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """The bytes of unpadded base64url text; ValueError for anything else."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        raise ValueError("not base64url without padding")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _uint(value: int, length: int | None = None) -> str:
    """A non-negative integer as base64url: in `length` bytes when given (EC coordinates are
    fixed-size, RFC 7518 section 6.2.1.2), else in as few as it takes (RSA, section 6.3.1)."""
    return b64url(value.to_bytes(length or (value.bit_length() + 7) // 8 or 1, "big"))


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 (JCS) canonical UTF-8 bytes of a JSON value."""
    return rfc8785.dumps(value)


def jwk_thumbprint(jwk: Mapping[str, str]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a public JWK (RSA or EC), base64url: the hash of its
    required members alone, so `kid`, `alg` and `use` do not change it."""
    members = THUMBPRINT_MEMBERS[jwk["kty"]]
    return b64url(hashlib.sha256(canonical_json({name: jwk[name] for name in members})).digest())


PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


@dataclass(frozen=True)
class SigningKey:
    """One private key, the algorithm it signs with, and the public JWK it is published as."""

    private_key: PrivateKey
    algorithm: str
    kid: str
    # The public JWK's key members (kty and n, e for RSA; kty, crv, x, y for EC), in order.
    members: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, private_key: PrivateKey) -> "SigningKey":
        """The key with its algorithm and JWK; an EC key must be P-256 (checked by the loader)."""
        members: dict[str, str]
        if isinstance(private_key, ec.EllipticCurvePrivateKey):
            point = private_key.public_key().public_numbers()
            members = {
                "kty": "EC",
                "crv": "P-256",
                "x": _uint(point.x, ES256_COORDINATE_BYTES),
                "y": _uint(point.y, ES256_COORDINATE_BYTES),
            }
            algorithm = ES256
        else:
            numbers = private_key.public_key().public_numbers()
            members = {"kty": "RSA", "n": _uint(numbers.n), "e": _uint(numbers.e)}
            algorithm = RS256
        return cls(
            private_key=private_key,
            algorithm=algorithm,
            kid=jwk_thumbprint(members),
            members=tuple(members.items()),
        )

    def public_jwk(self) -> dict[str, str]:
        """The key as published in the JWK Set: public members only."""
        return {**dict(self.members), "kid": self.kid, "alg": self.algorithm, "use": "sig"}

    def sign(self, payload: bytes) -> str:
        """The JWS signature of `payload` with the key's algorithm, base64url without padding:
        RSASSA-PKCS1-v1_5 with SHA-256 (RS256), or ECDSA P-256 with SHA-256 as r || s (ES256,
        RFC 7518 section 3.4; not the DER that cryptography returns).

        ECDSA is deterministic (RFC 6979): the same payload gives the same bytes in every
        process, so a signed document served by several workers keeps one ETag. Its `s` is the
        low one of the two that verify (`P256_ORDER`).
        """
        key = self.private_key
        if isinstance(key, ec.EllipticCurvePrivateKey):
            der = key.sign(payload, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
            r, s = decode_dss_signature(der)
            s = min(s, P256_ORDER - s)
            size = ES256_COORDINATE_BYTES
            return b64url(r.to_bytes(size, "big") + s.to_bytes(size, "big"))
        return b64url(key.sign(payload, padding.PKCS1v15(), hashes.SHA256()))

    def verifies(self, payload: bytes, signature: bytes) -> bool:
        """Whether `signature` (raw bytes, decoded from base64url) is this key's signature of
        `payload` under the key's own algorithm, whatever a caller claims. An ES256 signature
        counts only in its low-S form: its twin `(r, n - s)` is refused."""
        key = self.private_key
        try:
            if isinstance(key, ec.EllipticCurvePrivateKey):
                size = ES256_COORDINATE_BYTES
                if len(signature) != 2 * size:
                    return False
                r = int.from_bytes(signature[:size], "big")
                s = int.from_bytes(signature[size:], "big")
                if not 0 < s <= P256_ORDER // 2:
                    return False
                der = encode_dss_signature(r, s)
                key.public_key().verify(der, payload, ec.ECDSA(hashes.SHA256()))
            else:
                key.public_key().verify(signature, payload, padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return False
        return True


def _checked(key: object, *, label: str) -> PrivateKey:
    """The key when it is one the gateway signs with; ImproperlyConfigured naming `label`."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        if not isinstance(key.curve, ec.SECP256R1):
            raise ImproperlyConfigured(
                f"{label} is an EC key on {key.curve.name}; ES256 needs P-256 (secp256r1)"
            )
        return key
    if isinstance(key, rsa.RSAPrivateKey):
        if key.key_size < MIN_KEY_BITS:
            raise ImproperlyConfigured(
                f"{label} is a {key.key_size}-bit RSA key; {MIN_KEY_BITS} bits at least"
            )
        return key
    raise ImproperlyConfigured(f"{label} is neither an EC P-256 key (ES256) nor an RSA key (RS256)")


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
        keys.append(SigningKey.of(_checked(key, label=label)))
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

    Raises ImproperlyConfigured naming the variable for anything that is not an EC P-256
    private key or an RSA private key of at least 2048 bits. Relative paths resolve against
    `base_dir` (the project).
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
