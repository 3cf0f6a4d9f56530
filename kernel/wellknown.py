"""Documents published under /.well-known/ that are no protocol's own: the JWK Set of the mandate
signing keys (which also verify the A2A agent card's signature, agents/a2a/card.py), and the
versions of the contract and of the intent-matching protocol that every door announces."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.signing import ALGORITHM_CHOICES, signing_keys

JWKS_PATH = "/.well-known/jwks.json"
CONTRACT_VERSION = "0.1.0"  # the REST API's contract (/openapi.json)
PROTOCOL_VERSION = "0.2"  # the intent-matching protocol (docs/INTENT_MATCHING_PROTOCOL.md)
# Verifiers may keep the key set this long; a new key is listed (published) for longer than
# this before it is moved first to sign (README, key rotation), so no verifier meets a kid it
# cannot find.
JWKS_MAX_AGE_S = 300


class JwkSerializer(serializers.Serializer):
    kty = serializers.ChoiceField(
        choices=[("EC", "an elliptic-curve key (P-256)"), ("RSA", "an RSA key")],
        help_text="EC for an ES256 key, RSA for an RS256 key.",
    )
    crv = serializers.CharField(required=False, help_text="EC only: always P-256.")
    x = serializers.CharField(required=False, help_text="EC only: x coordinate, base64url.")
    y = serializers.CharField(required=False, help_text="EC only: y coordinate, base64url.")
    n = serializers.CharField(required=False, help_text="RSA only: modulus, base64url.")
    e = serializers.CharField(required=False, help_text="RSA only: public exponent, base64url.")
    kid = serializers.CharField(help_text="RFC 7638 SHA-256 thumbprint of the key, base64url.")
    alg = serializers.ChoiceField(
        choices=ALGORITHM_CHOICES,
        help_text="ES256 for an EC P-256 key, RS256 for an RSA key: the only algorithm the key "
        "verifies.",
    )
    use = serializers.CharField(help_text="Always sig.")


class JwkSetSerializer(serializers.Serializer):
    keys = JwkSerializer(many=True)


class JwksView(APIView):
    @extend_schema(
        operation_id="getJwks",
        summary="The public keys that verify intent mandates (JWK Set)",
        description="Every configured key, the signing one first; a mandate's key_id, and the "
        "kid of the agent card's signature, is the kid of the key that signed it. EC P-256 keys "
        "(ES256) and RSA keys (RS256) side by side during a rotation. Public members only. "
        "Empty when signing is not configured.",
        tags=["discovery"],
        responses={200: JwkSetSerializer},
    )
    def get(self, request: Request) -> Response:
        keys = [key.public_jwk() for key in signing_keys()]
        return Response(
            {"keys": keys}, headers={"Cache-Control": f"public, max-age={JWKS_MAX_AGE_S}"}
        )
