"""Signing intent mandates: POST /v1/intent-mandates/sign, the published keys, key rotation."""

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding
from django.utils import timezone
from joserfc.jwk import ECKey
from joserfc.jws import default_registry

from matching.examples import MANDATE, SIGN_RESPONSE, SIGNATURE, SIGNING_JWK
from matching.models import IntentMandate
from tests.matching.mandate_calls import (
    JWKS,
    SIGN,
    VERIFY,
    b64url_decode,
    b64url_int,
    public_key_from_jwks,
    sign,
    signed,
    verified_by_joserfc,
    verify,
)
from tests.protocol import post

pytestmark = pytest.mark.django_db


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


def test_an_es256_mandate_verifies_with_an_independent_library_and_the_jwk_set_alone(
    client, settings, ec_pems, product
):
    """What an AP2 agent does: fetch the JWK Set, find the key by kid, check ES256."""
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = ec_pems[0], ""

    body = signed(client)

    assert body["algorithm"] == "ES256"
    assert len(b64url_decode(body["signature"])) == 64  # r || s, not DER
    assert body["canonical_payload"].encode() == rfc8785.dumps(body["mandate"])
    assert verified_by_joserfc(client, body)
    tampered = {
        **body,
        "canonical_payload": body["canonical_payload"].replace(
            '"amount_limit":150', '"amount_limit":151'
        ),
    }
    assert tampered != body
    assert not verified_by_joserfc(client, tampered)
    assert verify(client, body) == {"valid": True, "reason": None}


def test_an_rs256_mandate_verifies_with_the_independent_library_too(client, signing_key, product):
    body = signed(client)

    assert body["algorithm"] == "RS256"
    assert verified_by_joserfc(client, body)
    assert not verified_by_joserfc(client, {**body, "canonical_payload": "{}"})


def test_after_a_rotation_from_rs256_to_es256_both_kinds_verify_independently(
    client, settings, rsa_pems, ec_pems, product
):
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = rsa_pems[0], ""
    before = signed(client)

    settings.MANDATE_SIGNING_KEY = ec_pems[0] + rsa_pems[0]
    after = signed(client)
    jwks = client.get(JWKS).json()["keys"]

    assert (before["algorithm"], after["algorithm"]) == ("RS256", "ES256")
    assert [(jwk["kid"], jwk["kty"], jwk["alg"]) for jwk in jwks] == [
        (after["key_id"], "EC", "ES256"),
        (before["key_id"], "RSA", "RS256"),
    ]
    assert verified_by_joserfc(client, before)
    assert verified_by_joserfc(client, after)


def test_the_contract_example_is_a_genuine_es256_mandate():
    """The mandate the OpenAPI contract shows verifies with the key it shows."""
    key = ECKey.import_key(dict(SIGNING_JWK))
    payload = rfc8785.dumps(MANDATE)

    assert SIGN_RESPONSE.value["canonical_payload"].encode() == payload
    assert SIGNING_JWK["kid"] == key.thumbprint() == SIGN_RESPONSE.value["key_id"]
    assert default_registry.get_alg("ES256").verify(payload, b64url_decode(SIGNATURE), key)


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
    assert row.algorithm == body["algorithm"] == "RS256"
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


# Padded: the pattern holds for the id as it was sent.
BAD_PRODUCT_IDS += [" 1001", "1001\x1e"]
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


@pytest.mark.parametrize("currency", ["US", "USDX", "U$D", 840, None, "", "USD\x1e"])
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


def test_jwks_publishes_public_members_only_with_a_cache_lifetime(client, signing_key, product):
    response = client.get(JWKS)

    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "public, max-age=300"
    (jwk,) = response.json()["keys"]
    assert set(jwk) == {"kty", "n", "e", "kid", "alg", "use"}
    assert (jwk["kty"], jwk["e"], jwk["alg"], jwk["use"]) == ("RSA", "AQAB", "RS256", "sig")
    assert b64url_int(jwk["n"]).bit_length() == 2048
    assert jwk["kid"] == signed(client)["key_id"]


def test_jwks_publishes_an_ec_key_by_its_public_members_only(client, settings, ec_pems, product):
    settings.MANDATE_SIGNING_KEY, settings.MANDATE_SIGNING_KEY_FILE = ec_pems[0], ""

    (jwk,) = client.get(JWKS).json()["keys"]

    assert set(jwk) == {"kty", "crv", "x", "y", "kid", "alg", "use"}  # no "d"
    assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["use"]) == ("EC", "P-256", "ES256", "sig")
    assert len(b64url_decode(jwk["x"])) == len(b64url_decode(jwk["y"])) == 32
    assert jwk["kid"] == signed(client)["key_id"]


def test_jwks_is_empty_without_keys(client, no_signing_key):
    response = client.get(JWKS)

    assert response.status_code == 200
    assert response.json() == {"keys": []}
