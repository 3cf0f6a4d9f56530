"""Documents the gateway serves as they are written in `docs/`: the intent-matching protocol."""

import functools

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

PROTOCOL_DOCUMENT = "INTENT_MATCHING_PROTOCOL.md"


@functools.cache
def _document(name: str) -> bytes:
    return (settings.BASE_DIR / "docs" / name).read_bytes()


class ProtocolDocumentView(APIView):
    @extend_schema(
        operation_id="protocol_document",
        summary="The intent-matching protocol v0.2, for merchant and demand-agent developers",
        tags=["discovery"],
        responses={(200, "text/markdown"): OpenApiTypes.STR},
    )
    def get(self, request: Request) -> HttpResponse:
        return HttpResponse(
            _document(PROTOCOL_DOCUMENT),
            content_type="text/markdown; charset=utf-8",
            headers={"Cache-Control": "public, max-age=300"},
        )
