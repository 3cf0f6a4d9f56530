"""A demand agent's calls of the mandate endpoints, and reading the published keys."""

import base64

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

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
    return RSAPublicNumbers(e=b64url_int(jwk["e"]), n=b64url_int(jwk["n"])).public_key()
