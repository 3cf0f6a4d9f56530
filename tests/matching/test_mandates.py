"""Signed intent mandates: signing, the published keys, verification, rotation, bad input."""

import base64
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers
from django.utils import timezone

from matching.models import IntentMandate
from tests.factories import ProductFactory
from tests.protocol import post

pytestmark = pytest.mark.django_db

SIGN = "/v1/intent-mandates/sign"
VERIFY = "/v1/intent-mandates/verify"
JWKS = "/.well-known/jwks.json"


@pytest.fixture
def product(db):
    return ProductFactory(id=1001, title="TrailFox GTX Trail Running Shoe")


def sign(client, **body):
    return post(client, SIGN, {"product_id": "1001", "amount_limit": 150, **body})


def signed(client, **body) -> dict:
    response = sign(client, **body)
    assert response.status_code == 201, response.content
    return response.json()


def verify(client, signed_body: dict, **overrides) -> dict:
    body = {
        "mandate": signed_body["mandate"],
        "signature": signed_body["signature"],
        "key_id": signed_body["key_id"],
        **overrides,
    }
    response = post(client, VERIFY, {key: value for key, value in body.items() if value is not ...})
    assert response.status_code == 200, response.content
    return response.json()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url_int(text: str) -> int:
    return int.from_bytes(b64url_decode(text), "big")


def public_key_from_jwks(client, kid: str):
    """The key published under `kid`, rebuilt from its JWK members alone."""
    jwk = next(key for key in client.get(JWKS).json()["keys"] if key["kid"] == kid)
    return RSAPublicNumbers(e=b64url_int(jwk["e"]), n=b64url_int(jwk["n"])).public_key()


# --- Signing -----------------------------------------------------------------------------------


def test_a_signed_mandate_verifies_independently_with_the_published_key(
    client, signing_key, product, settings
):
    settings.PUBLIC_BASE_URL = "https://gateway.test"

    body = signed(client)

    key = public_key_from_jwks(client, body["key_id"])
    payload = body["canonical_payload"].encode()
    key.verify(b64url_decode(body["signature"]), payload, padding.PKCS1v15(), hashes.SHA256())
    assert payload == rfc8785.dumps(body["mandate"])
    assert body["algorithm"] == "RS256"
    assert body["jwks_url"] == "https://gateway.test/.well-known/jwks.json"
    assert "=" not in body["signature"]
    with pytest.raises(InvalidSignature):
        key.verify(
            b64url_decode(body["signature"]),
            payload.replace(b'"amount_limit":150', b'"amount_limit":151'),
            padding.PKCS1v15(),
            hashes.SHA256(),
        )


def test_the_mandate_carries_every_field_with_a_short_lifetime(
    client, signing_key, product, settings
):
    settings.MANDATE_LIFETIME_S = 600
    settings.PUBLIC_BASE_URL = "https://gateway.test"
    before = timezone.now().replace(microsecond=0)

    body = signed(client, amount_limit=89.99, currency="eur")

    mandate = body["mandate"]
    assert set(mandate) == {
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
    assert mandate["mandate_id"].startswith("mdt_")
    assert len(mandate["mandate_id"]) == 28
    assert mandate["type"] == "intent_mandate"
    assert mandate["issuer"] == "https://gateway.test"
    assert mandate["product_id"] == "1001"
    assert mandate["amount_limit"] == 89.99
    assert mandate["currency"] == "EUR"
    issued_at = datetime.fromisoformat(mandate["issued_at"])
    expires_at = datetime.fromisoformat(mandate["expires_at"])
    assert mandate["issued_at"].endswith("Z")
    assert before <= issued_at <= timezone.now()
    assert expires_at - issued_at == timedelta(seconds=600)
    assert len(mandate["nonce"]) >= 22


def test_currency_defaults_to_usd_and_whole_amounts_are_integers(client, signing_key, product):
    body = signed(client, amount_limit=150.0)

    assert body["mandate"]["currency"] == "USD"
    assert body["mandate"]["amount_limit"] == 150
    assert '"amount_limit":150,' in body["canonical_payload"]


def test_every_mandate_is_unique(client, signing_key, product):
    first, second = signed(client), signed(client)

    assert first["mandate"]["mandate_id"] != second["mandate"]["mandate_id"]
    assert first["mandate"]["nonce"] != second["mandate"]["nonce"]
    assert first["signature"] != second["signature"]


def test_signing_records_the_mandate(client, signing_key, product):
    body = signed(client, amount_limit=12.5)

    row = IntentMandate.objects.get()
    assert row.mandate_id == body["mandate"]["mandate_id"]
    assert row.product_id == 1001
    assert row.amount_limit == Decimal("12.5")
    assert row.currency == "USD"
    assert row.key_id == body["key_id"]
    assert row.canonical_payload == body["canonical_payload"]
    assert row.signature == body["signature"]
    assert row.issued_at == datetime.fromisoformat(body["mandate"]["issued_at"])
    assert row.expires_at == datetime.fromisoformat(body["mandate"]["expires_at"])


def test_without_a_key_signing_answers_503_and_records_nothing(client, no_signing_key, product):
    response = sign(client)

    assert response.status_code == 503
    assert response.json() == {
        "error": "signing_key_unavailable",
        "message": "Intent mandates cannot be signed: no signing key is configured on this "
        "gateway.",
    }
    assert b"/" not in response.content
    assert not IntentMandate.objects.exists()


def test_without_a_key_a_bad_body_is_still_a_400(client, no_signing_key, product):
    unknown = sign(client, product_id="999999")
    no_amount = post(client, SIGN, {"product_id": "1001"})

    assert (unknown.status_code, unknown.json()["error"]) == (400, "invalid_body")
    assert (no_amount.status_code, no_amount.json()["error"]) == (400, "invalid_body")


def test_a_key_file_that_is_configured_signs(client, settings, tmp_path, rsa_pems, product):
    (tmp_path / "key.pem").write_text(rsa_pems[1])
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = "", str(tmp_path / "key.pem")

    body = signed(client)

    assert verify(client, body) == {"valid": True, "reason": None}
    assert client.get(JWKS).json()["keys"][0]["kid"] == body["key_id"]


def test_signing_is_throttled_per_client(client, signing_key, product, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "mandates": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    statuses = [sign(client).status_code for _ in range(3)]
    throttled = sign(client)

    assert statuses == [201, 201, 429]
    assert throttled.json()["error"] == "throttled"
    assert int(throttled.headers["Retry-After"]) >= 1
    assert IntentMandate.objects.count() == 2
    assert post(client, VERIFY, {"mandate": {}, "signature": "AA"}).status_code == 200


# --- Bad input ---------------------------------------------------------------------------------


BAD_AMOUNTS: list[object] = [
    True,
    False,
    "150",
    "NaN",
    "Infinity",
    "-Infinity",
    None,
    [150],
    {"value": 150},
]
# Not above 0, above the default maximum of 100000, or finer than 4 decimal places.
BAD_AMOUNTS += [-1, -0.01, 0, 0.0, 100000.01, 1e30, 10**30, 0.00001, 0.1 + 0.2]


@pytest.mark.parametrize("amount", BAD_AMOUNTS)
def test_bad_amounts_are_invalid_body_naming_the_field(client, signing_key, product, amount):
    response = sign(client, amount_limit=amount)

    assert response.status_code == 400, amount
    body = response.json()
    assert body["error"] == "invalid_body"
    assert list(body["fields"]) == ["amount_limit"]
    assert not IntentMandate.objects.exists()


def test_the_largest_allowed_amount_and_four_decimals_are_accepted(client, signing_key, product):
    assert sign(client, amount_limit=100000).status_code == 201
    assert sign(client, amount_limit=0.0001).status_code == 201
    assert signed(client, amount_limit=19.9999)["mandate"]["amount_limit"] == 19.9999


def test_the_maximum_amount_follows_the_setting(client, signing_key, product, settings):
    settings.MANDATE_MAX_AMOUNT = 500.0

    response = sign(client, amount_limit=500.01)

    assert response.status_code == 400
    assert response.json()["fields"] == {"amount_limit": ["Must be at most 500."]}


@pytest.mark.parametrize("literal", [b"NaN", b"Infinity", b"-Infinity", b"1e400"])
def test_non_finite_json_numbers_are_invalid_body(client, signing_key, product, literal):
    raw = b'{"product_id": "1001", "amount_limit": ' + literal + b"}"

    response = client.post(SIGN, data=raw, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_body"
    assert not IntentMandate.objects.exists()


BAD_PRODUCT_IDS: list[object] = ["abc", "", "12a", "-1", "1.5", "1e3", "\uff11\uff10\uff10\uff11"]
# Past the catalog's 63-bit ids, unknown, or not a JSON string.
BAD_PRODUCT_IDS += ["9223372036854775808", "99999999999999999999", "999", 1001, True, None, []]


@pytest.mark.parametrize("product_id", BAD_PRODUCT_IDS)
def test_bad_or_unknown_products_are_invalid_body_naming_the_field(
    client, signing_key, product, product_id
):
    response = sign(client, product_id=product_id)

    assert response.status_code == 400, product_id
    body = response.json()
    assert body["error"] == "invalid_body"
    assert list(body["fields"]) == ["product_id"]
    assert not IntentMandate.objects.exists()


@pytest.mark.parametrize("currency", ["US", "USDX", "U$D", 840, None, ""])
def test_bad_currencies_are_invalid_body(client, signing_key, product, currency):
    response = sign(client, currency=currency)

    assert response.status_code == 400
    assert response.json()["fields"].keys() == {"currency"}


def test_missing_fields_are_invalid_body_too(client, signing_key, product):
    response = post(client, SIGN, {})

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_body"
    assert set(body["fields"]) == {"product_id", "amount_limit"}


def test_bad_input_is_refused_even_without_a_key(client, no_signing_key, product):
    assert sign(client, amount_limit=-5).status_code == 400
    assert sign(client).status_code == 503


# --- The published keys ------------------------------------------------------------------------


def test_jwks_publishes_public_members_only_with_a_cache_lifetime(client, signing_key, product):
    response = client.get(JWKS)

    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=300"
    (jwk,) = response.json()["keys"]
    assert set(jwk) == {"kty", "n", "e", "kid", "alg", "use"}
    assert (jwk["kty"], jwk["e"], jwk["alg"], jwk["use"]) == ("RSA", "AQAB", "RS256", "sig")
    assert b64url_int(jwk["n"]).bit_length() == 2048
    assert jwk["kid"] == signed(client)["key_id"]


def test_jwks_is_empty_without_keys(client, no_signing_key):
    response = client.get(JWKS)

    assert response.status_code == 200
    assert response.json() == {"keys": []}


# --- Verification ------------------------------------------------------------------------------


def test_an_untouched_mandate_is_valid(client, signing_key, product):
    body = signed(client)

    assert verify(client, body) == {"valid": True, "reason": None}
    assert verify(client, body, key_id=...) == {"valid": True, "reason": None}
    assert verify(client, body, algorithm="RS256") == {"valid": True, "reason": None}


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


@pytest.mark.parametrize("algorithm", ["none", "None", "HS256", "RS512", "PS256", "ES256", ""])
def test_a_forged_algorithm_is_refused(client, signing_key, product, algorithm):
    body = signed(client)

    result = verify(client, body, algorithm=algorithm)

    assert result == {"valid": False, "reason": "unsupported_algorithm"}


def test_a_mandate_signed_with_the_key_as_an_hmac_secret_is_refused(client, signing_key, product):
    """The classic RS256/HS256 confusion: an HMAC keyed with the public key must never pass."""
    import hashlib
    import hmac

    body = signed(client)
    jwk = client.get(JWKS).json()["keys"][0]
    forged = hmac.new(jwk["n"].encode(), body["canonical_payload"].encode(), hashlib.sha256)
    signature = base64.urlsafe_b64encode(forged.digest()).rstrip(b"=").decode()

    assert verify(client, body, signature=signature)["reason"] == "bad_signature"
    assert verify(client, body, signature=signature, algorithm="HS256")["reason"] == (
        "unsupported_algorithm"
    )


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


# --- Rotation ----------------------------------------------------------------------------------


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
