"""Documents published under /.well-known/: the JWK Set of the mandate signing keys."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from gateway.signing import signing_keys

# Verifiers may keep the key set this long; a new key is published a while before it signs
# (README, key rotation), so no verifier ever meets a kid it cannot find.
JWKS_MAX_AGE_S = 300


class JwkSerializer(serializers.Serializer):
    kty = serializers.CharField(help_text="Always RSA.")
    n = serializers.CharField(help_text="Modulus, base64url.")
    e = serializers.CharField(help_text="Public exponent, base64url.")
    kid = serializers.CharField(help_text="RFC 7638 SHA-256 thumbprint of the key, base64url.")
    alg = serializers.CharField(help_text="Always RS256.")
    use = serializers.CharField(help_text="Always sig.")


class JwkSetSerializer(serializers.Serializer):
    keys = JwkSerializer(many=True)


class JwksView(APIView):
    @extend_schema(
        operation_id="getJwks",
        summary="The public keys that verify intent mandates (JWK Set)",
        description="Every configured key, the signing one first; a mandate's key_id is the kid "
        "of the key that signed it. Public members only. Empty when signing is not configured.",
        tags=["discovery"],
        responses={200: JwkSetSerializer},
    )
    def get(self, request: Request) -> Response:
        keys = [key.public_jwk() for key in signing_keys()]
        return Response(
            {"keys": keys}, headers={"Cache-Control": f"public, max-age={JWKS_MAX_AGE_S}"}
        )
