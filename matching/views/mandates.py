"""Signed intent mandates: POST /v1/intent-mandates and its verification."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from kernel.contract import (
    THROTTLED,
    TOO_LARGE,
    errors,
)
from kernel.errors import (
    INVALID_BODY,
    SIGNING_KEY_UNAVAILABLE,
)
from kernel.idempotency_keys import Idempotent
from kernel.validation import validated
from matching import mandates
from matching.examples import (
    SIGN_REQUEST,
    SIGN_RESPONSE,
    VERIFY_EXPIRED,
    VERIFY_REQUEST,
    VERIFY_VALID,
)
from matching.serializers import (
    IntentMandateSignSerializer,
    IntentMandateVerificationSerializer,
    IntentMandateVerifySerializer,
    SignedIntentMandateSerializer,
)


class IntentMandateViewSet(Idempotent, viewsets.ViewSet):
    def get_throttles(self) -> list[Any]:
        self.throttle_scope = "mandates" if self.action == "sign" else "mandate_verify"
        return super().get_throttles()

    @extend_schema(
        operation_id="signIntentMandate",
        summary="Sign an intent mandate: one product, up to an amount, for a short time",
        description="The mandate is signed over the RFC 8785 canonical JSON of `mandate`, "
        "returned as canonical_payload, by the first configured key with its algorithm "
        "(`algorithm`): ES256 (ECDSA P-256 with SHA-256, signature r || s) for an EC key, the "
        "default of new deployments, or RS256 (RSASSA-PKCS1-v1_5 with SHA-256) for an RSA key. "
        "The public keys are published at jwks_url under their kid (RFC 7638 thumbprint), each "
        "with its alg. 400 `invalid_body` "
        "for an unknown product or an amount that is not a number above 0 within the maximum; "
        "503 `signing_key_unavailable` when no signing key is configured.",
        tags=["mandates"],
        request=IntentMandateSignSerializer,
        responses={
            201: SignedIntentMandateSerializer,
            **errors(
                {
                    400: INVALID_BODY.doc(
                        "the body is not a JSON object, the product is unknown, or amount_limit "
                        "is not a number above 0 within the maximum."
                    ),
                    413: TOO_LARGE,
                    429: THROTTLED,
                    503: SIGNING_KEY_UNAVAILABLE.doc(),
                }
            ),
        },
        examples=[SIGN_REQUEST, SIGN_RESPONSE],
    )
    @action(detail=False, methods=["post"])
    def sign(self, request: Request) -> Response:
        body = validated(
            IntentMandateSignSerializer, request.data, source="body", missing_fields=False
        )
        signed = mandates.mandate_sign(
            product_id=body["product_id"],
            amount_limit=body["amount_limit"],
            currency=body["currency"],
        )
        return Response(
            {
                "mandate": signed.mandate,
                "canonical_payload": signed.canonical_payload,
                "signature": signed.signature,
                "algorithm": signed.algorithm,
                "key_id": signed.key_id,
                "jwks_url": mandates.jwks_url(),
            },
            status=201,
        )

    @extend_schema(
        operation_id="verifyIntentMandate",
        summary="Verify an intent mandate against the published keys",
        description="The canonical bytes are recomputed from `mandate`, so any changed field "
        "fails. ES256 and RS256 mandates are both accepted, each checked with the algorithm of "
        "its key only. reason: `malformed`, `unsupported_algorithm` (an algorithm other than "
        "ES256 and RS256, or not the algorithm of the key), `unknown_key` (key_id names no "
        "published key), `bad_signature`, `wrong_issuer`, `expired`; null when valid.",
        tags=["mandates"],
        request=IntentMandateVerifySerializer,
        responses={
            200: IntentMandateVerificationSerializer,
            **errors(
                {
                    400: INVALID_BODY.doc(
                        "the body is not a JSON object, or mandate or signature is absent or of "
                        "the wrong type."
                    ),
                    413: TOO_LARGE,
                    429: THROTTLED,
                }
            ),
        },
        examples=[VERIFY_REQUEST, VERIFY_VALID, VERIFY_EXPIRED],
    )
    @action(detail=False, methods=["post"])
    def verify(self, request: Request) -> Response:
        body = validated(
            IntentMandateVerifySerializer, request.data, source="body", missing_fields=False
        )
        reason = mandates.mandate_verify(
            mandate=body["mandate"],
            signature=body["signature"],
            key_id=body.get("key_id"),
            algorithm=body.get("algorithm"),
        )
        return Response({"valid": reason is None, "reason": reason})
