"""A demand agent's calls of the mandate endpoints, and reading the published keys."""

import base64

from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, EllipticCurvePublicNumbers
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers
from joserfc.jwk import KeySet
from joserfc.jws import default_registry

from tests.protocol import post

SIGN = "/v1/intent-mandates/sign"


VERIFY = "/v1/intent-mandates/verify"


JWKS = "/.well-known/jwks.json"


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
    if jwk["kty"] == "EC":
        assert jwk["crv"] == "P-256"
        point = EllipticCurvePublicNumbers(b64url_int(jwk["x"]), b64url_int(jwk["y"]), SECP256R1())
        return point.public_key()
    return RSAPublicNumbers(e=b64url_int(jwk["e"]), n=b64url_int(jwk["n"])).public_key()


def verified_by_joserfc(client, signed_body: dict) -> bool:
    """Whether joserfc, an independent JOSE library, accepts the mandate's signature, given only
    the JWK Set the gateway serves: the key found by the mandate's key_id, the algorithm the
    key's JWK names (which must be the mandate's), the signature over the canonical payload."""
    key_set = KeySet.import_key_set(client.get(JWKS).json())
    key = key_set.get_by_kid(signed_body["key_id"])
    algorithm = key.get("alg")
    assert isinstance(algorithm, str)
    assert algorithm == signed_body["algorithm"]
    return default_registry.get_alg(algorithm).verify(
        signed_body["canonical_payload"].encode(),
        b64url_decode(signed_body["signature"]),
        key,
    )
