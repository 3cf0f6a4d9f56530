"""Signing keys: canonical JSON, thumbprints, ES256 and RS256 signatures, and keys loaded from
configuration or refused."""

import json

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from django.core.exceptions import ImproperlyConfigured
from joserfc.jwk import ECKey, RSAKey

from kernel.signing import b64url_decode, canonical_json, jwk_thumbprint, load_signing_keys

# RFC 8785 section 3.2.2: the sample input and its canonical form.
RFC8785_INPUT = r"""{
  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}"""
RFC8785_OUTPUT = (
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
    '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}'
)

# RFC 7638 section 3.1: an RSA key and its SHA-256 thumbprint.
RFC7638_N = (
    "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECP"
    "ebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY"
    "368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0f"
    "M4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
)
RFC7638_THUMBPRINT = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"


def _pem(key, password: bytes | None = None) -> str:
    encryption = (
        serialization.BestAvailableEncryption(password)
        if password
        else serialization.NoEncryption()
    )
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    ).decode()


def load(key_text: str = "", key_files: str = "", base_dir=None):
    load_signing_keys.cache_clear()
    return load_signing_keys(key_text=key_text, key_files=key_files, base_dir=base_dir)


def _body_lines(pem: str) -> list[str]:
    return [line for line in pem.splitlines() if line and not line.startswith("-----")]


def test_canonical_json_gives_the_rfc8785_sample_output():
    assert canonical_json(json.loads(RFC8785_INPUT)) == RFC8785_OUTPUT.encode("utf-8")


def test_canonical_json_sorts_members_by_utf16_code_units():
    # RFC 8785 section 3.2.3: keys sort by UTF-16 code units, not by code points.
    value = {"\u20ac": 1, "\U0001f600": 2, "\r": 3, "1": 4, "\u00f6": 5, "\ufb33": 6, "\u0080": 7}

    assert canonical_json(value).decode() == (
        '{"\\r":3,"1":4,"\u0080":7,"\u00f6":5,"\u20ac":1,"\U0001f600":2,"\ufb33":6}'
    )


def test_the_thumbprint_is_the_rfc7638_example():
    jwk = {"kty": "RSA", "n": RFC7638_N, "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"}

    assert jwk_thumbprint(jwk) == RFC7638_THUMBPRINT


def test_a_key_is_named_by_its_thumbprint(rsa_pems):
    (key,) = load(rsa_pems[0])
    jwk = key.public_jwk()

    assert key.kid == jwk_thumbprint(jwk) == RSAKey.import_key(jwk).thumbprint()
    assert key.algorithm == "RS256"
    assert jwk == {
        "kty": "RSA",
        "n": jwk["n"],
        "e": "AQAB",
        "kid": key.kid,
        "alg": "RS256",
        "use": "sig",
    }


def test_an_ec_key_is_an_es256_jwk_named_by_its_thumbprint(ec_pems):
    (key,) = load(ec_pems[0])
    jwk = key.public_jwk()
    numbers = key.private_key.public_key().public_numbers()

    # The thumbprint as another JOSE library computes it (RFC 7638: crv, kty, x, y).
    assert key.kid == jwk_thumbprint(jwk) == ECKey.import_key(jwk).thumbprint()
    assert key.algorithm == "ES256"
    assert jwk == {
        "kty": "EC",
        "crv": "P-256",
        "x": jwk["x"],
        "y": jwk["y"],
        "kid": key.kid,
        "alg": "ES256",
        "use": "sig",
    }
    # Coordinates are 32 bytes each, leading zeros kept (RFC 7518 section 6.2.1.2).
    assert b64url_decode(jwk["x"]) == numbers.x.to_bytes(32, "big")
    assert b64url_decode(jwk["y"]) == numbers.y.to_bytes(32, "big")


def test_an_ec_key_in_sec1_form_loads_too(ec_pems):
    """`openssl ecparam -genkey` writes -----BEGIN EC PRIVATE KEY-----, not PKCS#8."""
    private = serialization.load_pem_private_key(ec_pems[0].encode(), password=None)
    sec1 = private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()

    assert sec1.startswith("-----BEGIN EC PRIVATE KEY-----")
    assert load(sec1)[0].kid == load(ec_pems[0])[0].kid


def test_an_es256_signature_is_r_and_s_of_32_bytes_each_not_der(ec_pems):
    (key,) = load(ec_pems[0])
    payload = b'{"a":1}'

    raw = b64url_decode(key.sign(payload))

    assert len(raw) == 64
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key.private_key.public_key().verify(der, payload, ec.ECDSA(hashes.SHA256()))
    assert key.verifies(payload, raw)
    assert not key.verifies(payload, der)  # DER is not the JWS form
    assert not key.verifies(b'{"a":2}', raw)
    with pytest.raises(InvalidSignature):
        key.private_key.public_key().verify(der, b'{"a":2}', ec.ECDSA(hashes.SHA256()))


def test_es256_signatures_are_deterministic(ec_pems):
    """RFC 6979: the same document signed in two processes is the same bytes (one ETag)."""
    (key,) = load(ec_pems[0])

    assert key.sign(b"card") == key.sign(b"card")
    assert key.sign(b"card") != key.sign(b"card!")


def test_each_key_verifies_with_its_own_algorithm_only(ec_pems, rsa_pems):
    ec_key, rsa_key = load(ec_pems[0] + rsa_pems[0])
    payload = b"mandate"

    assert (ec_key.algorithm, rsa_key.algorithm) == ("ES256", "RS256")
    assert not rsa_key.verifies(payload, b64url_decode(ec_key.sign(payload)))
    assert not ec_key.verifies(payload, b64url_decode(rsa_key.sign(payload)))


def test_nothing_configured_means_no_keys():
    assert load() == ()


def test_a_bundle_keeps_its_order_and_the_first_key_signs(rsa_pems):
    keys = load("\n".join(rsa_pems[:2]))
    separately = [load(pem)[0].kid for pem in rsa_pems[:2]]

    assert [key.kid for key in keys] == separately


def test_escaped_newlines_are_accepted(rsa_pems):
    escaped = rsa_pems[0].replace("\n", "\\n")

    assert load(escaped)[0].kid == load(rsa_pems[0])[0].kid


def test_a_key_listed_twice_is_published_once(rsa_pems):
    keys = load("\n".join([rsa_pems[1], rsa_pems[0], rsa_pems[1]]))

    assert [key.kid for key in keys] == [load(rsa_pems[1])[0].kid, load(rsa_pems[0])[0].kid]


def test_key_files_are_read_in_order_relative_to_the_project(tmp_path, rsa_pems):
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "new.pem").write_text(rsa_pems[1])
    (tmp_path / "old.pem").write_text(rsa_pems[0] + rsa_pems[2])

    keys = load(key_files=f"var/new.pem, {tmp_path / 'old.pem'},", base_dir=tmp_path)

    assert [key.kid for key in keys] == [load(pem)[0].kid for pem in rsa_pems[1:2] + rsa_pems[::2]]


def _refusal(**config) -> str:
    with pytest.raises(ImproperlyConfigured) as refused:
        load(**config)
    return str(refused.value)


def test_a_short_key_is_refused_without_showing_it():
    # The point of the test: a breakable key must stop the start.
    pem = _pem(rsa.generate_private_key(public_exponent=65537, key_size=1024))  # noqa: S505

    message = _refusal(key_text=pem)

    assert message == "MANDATE_SIGNING_KEY is a 1024-bit RSA key; 2048 bits at least"
    assert not any(line in message for line in _body_lines(pem))


@pytest.mark.parametrize("curve", [ec.SECP384R1(), ec.SECP521R1(), ec.SECP256K1()])
def test_an_ec_key_on_another_curve_is_refused_without_showing_it(curve):
    pem = _pem(ec.generate_private_key(curve))

    message = _refusal(key_text=pem)

    assert message == (
        f"MANDATE_SIGNING_KEY is an EC key on {curve.name}; ES256 needs P-256 (secp256r1)"
    )
    assert not any(line in message for line in _body_lines(pem))


def test_a_key_that_is_neither_ec_nor_rsa_is_refused():
    pem = _pem(ed25519.Ed25519PrivateKey.generate())

    assert _refusal(key_text=pem) == (
        "MANDATE_SIGNING_KEY is neither an EC P-256 key (ES256) nor an RSA key (RS256)"
    )


def test_a_second_bad_key_in_a_bundle_is_named_by_position(rsa_pems, ec_pems):
    bundle = rsa_pems[0] + ec_pems[0] + _pem(ec.generate_private_key(ec.SECP384R1()))

    assert _refusal(key_text=bundle).startswith(
        "MANDATE_SIGNING_KEY, PEM block 3 is an EC key on secp384r1"
    )


def test_a_rotation_bundle_holds_both_kinds_in_order(rsa_pems, ec_pems):
    keys = load(ec_pems[0] + rsa_pems[0])

    assert [key.algorithm for key in keys] == ["ES256", "RS256"]
    assert [key.public_jwk()["kty"] for key in keys] == ["EC", "RSA"]


@pytest.mark.parametrize(
    "text",
    [
        "not a key",
        "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZI\n-----END PUBLIC KEY-----\n",
    ],
)
def test_text_that_is_no_private_key_is_refused(text):
    message = _refusal(key_text=text)

    assert message.startswith("MANDATE_SIGNING_KEY ")
    assert "bm90IGEga2V5" not in message
    assert "MFkwEwYHKoZIzj0CAQYIKoZI" not in message


def test_an_encrypted_key_is_refused(rsa_pems):
    key = serialization.load_pem_private_key(rsa_pems[0].encode(), password=None)
    pem = _pem(key, password=b"secret")

    message = _refusal(key_text=pem)

    assert message == "MANDATE_SIGNING_KEY is not an unencrypted PEM private key"


def test_a_missing_key_file_is_refused_naming_the_variable(tmp_path):
    message = _refusal(key_files="var/absent.pem", base_dir=tmp_path)

    assert message == (
        f"MANDATE_SIGNING_KEY_FILE: cannot read {tmp_path / 'var/absent.pem'}: "
        "No such file or directory"
    )


def test_a_bad_key_file_is_named(tmp_path, rsa_pems):
    (tmp_path / "good.pem").write_text(rsa_pems[0])
    (tmp_path / "bad.pem").write_text("hello")

    message = _refusal(key_files="good.pem,bad.pem", base_dir=tmp_path)

    assert (
        message
        == "MANDATE_SIGNING_KEY_FILE bad.pem holds no PEM block (-----BEGIN PRIVATE KEY-----)"
    )


def test_both_variables_at_once_are_refused(tmp_path, rsa_pems):
    (tmp_path / "key.pem").write_text(rsa_pems[0])

    message = _refusal(key_text=rsa_pems[1], key_files="key.pem", base_dir=tmp_path)

    assert message.startswith("Set MANDATE_SIGNING_KEY_FILE or MANDATE_SIGNING_KEY, not both")
