"""Verifying intent mandates: every change, forgery or expiry is refused with its reason, for
ES256 and RS256 keys alike, and no algorithm is ever used with a key that is not its own."""

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from django.utils import timezone

from kernel.signing import P256_ORDER
from tests.matching.mandate_calls import (
    JWKS,
    VERIFY,
    b64url_decode,
    public_key_from_jwks,
    signed,
    verify,
)
from tests.protocol import post

pytestmark = pytest.mark.django_db

OTHER = {"ES256": "RS256", "RS256": "ES256"}


def signing_public_pem(private_pem: str) -> str:
    private = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return (
        private.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@pytest.fixture(params=["ES256", "RS256"])
def signing_key(request, settings, rsa_pems, ec_pems) -> str:
    """Every check of this module runs with an EC P-256 key and with an RSA key."""
    pem = ec_pems[0] if request.param == "ES256" else rsa_pems[0]
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = pem, ""
    return pem


def test_an_untouched_mandate_is_valid(client, signing_key, product):
    body = signed(client)

    assert body["algorithm"] in {"ES256", "RS256"}
    assert verify(client, body) == {"valid": True, "reason": None}
    assert verify(client, body, key_id=...) == {"valid": True, "reason": None}
    assert verify(client, body, algorithm=body["algorithm"]) == {"valid": True, "reason": None}
    assert verify(client, body, key_id=..., algorithm=body["algorithm"])["valid"]


def _changed(value):
    if isinstance(value, str):
        return value[:-1] + ("0" if value[-1] != "0" else "1")
    return value + 1


def test_changing_any_single_field_breaks_the_signature(client, signing_key, product):
    body = signed(client)

    for field, value in body["mandate"].items():
        tampered = {**body["mandate"], field: _changed(value)}
        result = verify(client, body, mandate=tampered)
        assert result == {"valid": False, "reason": "bad_signature"}, field


def test_adding_or_removing_a_field_breaks_the_signature(client, signing_key, product):
    body = signed(client)
    mandate = body["mandate"]
    smaller = {key: value for key, value in mandate.items() if key != "nonce"}

    assert verify(client, body, mandate={**mandate, "note": "x"})["reason"] == "bad_signature"
    assert verify(client, body, mandate=smaller)["reason"] == "bad_signature"


def test_a_flipped_signature_byte_fails(client, signing_key, product):
    body = signed(client)
    raw = bytearray(b64url_decode(body["signature"]))
    raw[len(raw) // 2] ^= 0x01
    flipped = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()

    assert verify(client, body, signature=flipped) == {"valid": False, "reason": "bad_signature"}


def test_a_signature_of_another_mandate_fails(client, signing_key, product):
    first, second = signed(client), signed(client)

    result = verify(client, first, signature=second["signature"])

    assert result == {"valid": False, "reason": "bad_signature"}


def test_an_es256_signatures_high_s_twin_is_refused(client, settings, ec_pems, product):
    """ECDSA's (r, s) and (r, n - s) both verify mathematically: only the low-S form counts,
    so a signature has one spelling. The mandates the gateway signs are all low-S."""
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = ec_pems[0], ""
    for _ in range(8):  # about half of raw ECDSA signatures are high-S: every one is mended
        body = signed(client)
        raw = b64url_decode(body["signature"])
        r, s = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        assert s <= P256_ORDER // 2
        twin = r.to_bytes(32, "big") + (P256_ORDER - s).to_bytes(32, "big")
        forged = base64.urlsafe_b64encode(twin).rstrip(b"=").decode()

        assert verify(client, body) == {"valid": True, "reason": None}
        assert verify(client, body, signature=forged) == {"valid": False, "reason": "bad_signature"}


@pytest.mark.parametrize("signature", ["not base64!", "AAAA=", "A", "a.b.c"])
def test_a_signature_that_is_not_base64url_is_malformed(client, signing_key, product, signature):
    body = signed(client)

    assert verify(client, body, signature=signature) == {"valid": False, "reason": "malformed"}


def test_a_mandate_that_cannot_be_canonicalized_is_malformed(client, signing_key, product):
    body = signed(client)
    mandate = {**body["mandate"], "amount_limit": 2**60}

    assert verify(client, body, mandate=mandate) == {"valid": False, "reason": "malformed"}


def test_an_expired_mandate_is_refused(client, signing_key, product, settings, monkeypatch):
    settings.MANDATE_LIFETIME_S = 60
    body = signed(client)
    expires_at = datetime.fromisoformat(body["mandate"]["expires_at"])

    monkeypatch.setattr(timezone, "now", lambda: expires_at - timedelta(seconds=1))
    still_valid = verify(client, body)
    monkeypatch.setattr(timezone, "now", lambda: expires_at)
    at_expiry = verify(client, body)
    monkeypatch.setattr(timezone, "now", lambda: datetime.now(UTC) + timedelta(days=1))
    later = verify(client, body)

    assert still_valid == {"valid": True, "reason": None}
    assert at_expiry == {"valid": False, "reason": "expired"}
    assert later == {"valid": False, "reason": "expired"}


def test_a_tampered_expiry_is_a_bad_signature_not_a_longer_mandate(
    client, signing_key, product, monkeypatch
):
    body = signed(client)
    later = {**body["mandate"], "expires_at": "2999-01-01T00:00:00Z"}

    assert verify(client, body, mandate=later) == {"valid": False, "reason": "bad_signature"}


def test_an_unknown_key_id_is_refused(client, signing_key, product):
    body = signed(client)

    result = verify(client, body, key_id="NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")

    assert result == {"valid": False, "reason": "unknown_key"}


def test_verifying_without_any_published_key_is_unknown_key(client, signing_key, product, settings):
    body = signed(client)
    settings.MANDATE_SIGNING_KEY = ""

    assert verify(client, body) == {"valid": False, "reason": "unknown_key"}
    assert verify(client, body, key_id=...) == {"valid": False, "reason": "unknown_key"}


@pytest.mark.parametrize(
    "algorithm",
    ["none", "None", "HS256", "RS512", "PS256", "ES384", "ES256K", "EdDSA", "es256", ""],
)
def test_a_forged_algorithm_is_refused(client, signing_key, product, algorithm):
    body = signed(client)

    result = verify(client, body, algorithm=algorithm)

    assert result == {"valid": False, "reason": "unsupported_algorithm"}


def test_the_other_supported_algorithm_is_refused_for_the_key(client, signing_key, product):
    """An ES256 key never verifies as RS256 nor an RS256 key as ES256, with or without key_id."""
    body = signed(client)
    other = OTHER[body["algorithm"]]

    assert verify(client, body, algorithm=other) == {
        "valid": False,
        "reason": "unsupported_algorithm",
    }
    assert verify(client, body, key_id=..., algorithm=other)["reason"] == "unsupported_algorithm"


def _hmac(secret: bytes, payload: str) -> str:
    import hashlib
    import hmac

    digest = hmac.new(secret, payload.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def test_a_mandate_signed_with_the_key_as_an_hmac_secret_is_refused(client, signing_key, product):
    """The classic RS256/HS256 confusion (and its ES256 twin): an HMAC keyed with the public key,
    in any of the forms a confused verifier could take it, must never pass."""
    body = signed(client)
    jwk = client.get(JWKS).json()["keys"][0]
    secrets = [jwk.get("n", jwk.get("x", "")), json.dumps(jwk), signing_public_pem(signing_key)]

    for secret in secrets:
        signature = _hmac(secret.encode(), body["canonical_payload"])
        assert verify(client, body, signature=signature)["reason"] == "bad_signature"
        assert verify(client, body, signature=signature, algorithm=body["algorithm"])["reason"] == (
            "bad_signature"
        )
        assert verify(client, body, signature=signature, algorithm="HS256")["reason"] == (
            "unsupported_algorithm"
        )


def test_in_a_rotation_a_signature_never_crosses_to_the_key_of_the_other_kind(
    client, settings, rsa_pems, ec_pems, product
):
    """RS256 old and ES256 new published together: each mandate verifies with its own key and
    algorithm only."""
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = rsa_pems[0], ""
    old = signed(client)
    settings.MANDATE_SIGNING_KEY = ec_pems[0] + rsa_pems[0]
    new = signed(client)
    rsa_kid, ec_kid = old["key_id"], new["key_id"]

    for body in (old, new):
        assert verify(client, body) == {"valid": True, "reason": None}
        assert verify(client, body, key_id=...) == {"valid": True, "reason": None}
        assert verify(client, body, algorithm=body["algorithm"])["valid"]
    # The RS256 mandate under the EC key: as ES256 a bad signature, as RS256 the wrong algorithm.
    assert verify(client, old, key_id=ec_kid)["reason"] == "bad_signature"
    assert verify(client, old, key_id=ec_kid, algorithm="ES256")["reason"] == "bad_signature"
    assert verify(client, old, key_id=ec_kid, algorithm="RS256")["reason"] == (
        "unsupported_algorithm"
    )
    assert verify(client, old, key_id=..., algorithm="ES256")["reason"] == "bad_signature"
    # And the ES256 mandate under the RSA key.
    assert verify(client, new, key_id=rsa_kid)["reason"] == "bad_signature"
    assert verify(client, new, key_id=rsa_kid, algorithm="ES256")["reason"] == (
        "unsupported_algorithm"
    )
    assert verify(client, new, key_id=..., algorithm="RS256")["reason"] == "bad_signature"


def test_a_mandate_signed_under_another_base_url_is_refused(client, signing_key, product, settings):
    body = signed(client)
    settings.PUBLIC_BASE_URL = "https://gateway.example"

    assert verify(client, body) == {"valid": False, "reason": "wrong_issuer"}


@pytest.mark.parametrize(
    "payload",
    [
        {"signature": "AA"},
        {"mandate": {}},
        {"mandate": "{}", "signature": "AA"},
        {"mandate": [], "signature": "AA"},
        {"mandate": {}, "signature": 12},
        {"mandate": {}, "signature": "AA", "key_id": 7},
        {"mandate": {}, "signature": "AA", "algorithm": None},
    ],
)
def test_a_verify_body_of_the_wrong_shape_is_invalid_body(client, signing_key, payload):
    response = post(client, VERIFY, payload)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_body"


def test_after_a_rotation_the_new_key_signs_and_old_mandates_still_verify(
    client, settings, rsa_pems, product
):
    old_pem, new_pem = rsa_pems[0], rsa_pems[1]
    settings.MANDATE_SIGNING_KEY_FILE = ""
    settings.MANDATE_SIGNING_KEY = old_pem
    before = signed(client)

    settings.MANDATE_SIGNING_KEY = new_pem + "\n" + old_pem
    after = signed(client)
    kids = [key["kid"] for key in client.get(JWKS).json()["keys"]]

    assert after["key_id"] != before["key_id"]
    assert kids == [after["key_id"], before["key_id"]]
    assert verify(client, before) == {"valid": True, "reason": None}
    assert verify(client, before, key_id=...) == {"valid": True, "reason": None}
    assert verify(client, after) == {"valid": True, "reason": None}
    # A mandate checked against the other key's kid is not valid.
    assert verify(client, before, key_id=after["key_id"])["reason"] == "bad_signature"
    old_key = public_key_from_jwks(client, before["key_id"])
    old_key.verify(
        b64url_decode(before["signature"]),
        before["canonical_payload"].encode(),
        padding.PKCS1v15(),
        hashes.SHA256(),
    )


def test_rotation_with_several_key_files(client, settings, tmp_path, rsa_pems, product):
    (tmp_path / "old.pem").write_text(rsa_pems[0])
    (tmp_path / "new.pem").write_text(rsa_pems[1])
    settings.MANDATE_SIGNING_KEY = ""
    settings.MANDATE_SIGNING_KEY_FILE = str(tmp_path / "old.pem")
    before = signed(client)

    settings.MANDATE_SIGNING_KEY_FILE = f"{tmp_path / 'new.pem'}, {tmp_path / 'old.pem'}"
    after = signed(client)

    assert [key["kid"] for key in client.get(JWKS).json()["keys"]] == [
        after["key_id"],
        before["key_id"],
    ]
    assert verify(client, before) == {"valid": True, "reason": None}


def test_once_the_old_key_is_retired_its_mandates_no_longer_verify(
    client, settings, rsa_pems, product
):
    settings.MANDATE_SIGNING_KEY_FILE = ""
    settings.MANDATE_SIGNING_KEY = rsa_pems[0]
    before = signed(client)

    settings.MANDATE_SIGNING_KEY = rsa_pems[1]

    assert verify(client, before) == {"valid": False, "reason": "unknown_key"}
    assert verify(client, before, key_id=...) == {"valid": False, "reason": "bad_signature"}
