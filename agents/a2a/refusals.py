"""A2A's refusals of a request the gateway stops before the SDK reads it (agents/admission.py):
in the HTTP+JSON binding's error shape, or as the SDK answers JSON-RPC errors."""

from typing import Any
from urllib.parse import urlsplit

from a2a.server.jsonrpc_models import JSONParseError
from a2a.server.request_handlers.response_helpers import build_error_response
from a2a.utils.constants import PROTOCOL_VERSION_0_3, VERSION_HEADER
from a2a.utils.error_handlers import ERROR_INFO_TYPE, build_rest_error_payload
from a2a.utils.errors import VersionNotSupportedError
from django.conf import settings
from google.protobuf.json_format import ParseError  # type: ignore[import-untyped]
from starlette.responses import JSONResponse
from starlette.types import Scope

# How much of a caller's version header an answer quotes.
VERSION_QUOTED = 16
# The JSON-RPC error code of a request whose credential is refused (HTTP 401). Neither A2A nor
# JSON-RPC names one; it is in JSON-RPC's range for implementation-defined server errors, as
# the throttled request's code is (agents/admission.py).
UNAUTHENTICATED_CODE = -32041
# The challenge a refused credential is answered with (RFC 6750 section 3).
CHALLENGE = 'Bearer realm="a2a", error="invalid_token"'


def rest_throttled(sentence: str, wait: int) -> dict[str, Any]:
    """The HTTP+JSON binding's error object of a throttled request (`RESOURCE_EXHAUSTED`)."""
    detail = {
        "@type": ERROR_INFO_TYPE,
        "reason": "THROTTLED",
        "domain": urlsplit(settings.PUBLIC_BASE_URL).hostname or "gateway",
        "metadata": {"retry_after_s": str(wait)},
    }
    return {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "message": sentence,
            "details": [detail],
        }
    }


def rest_unauthenticated(sentence: str) -> JSONResponse:
    """The HTTP+JSON binding's error of a refused credential (`UNAUTHENTICATED`), with its
    challenge."""
    detail = {
        "@type": ERROR_INFO_TYPE,
        "reason": "INVALID_CALLER_KEY",
        "domain": urlsplit(settings.PUBLIC_BASE_URL).hostname or "gateway",
    }
    body = {
        "error": {
            "code": 401,
            "status": "UNAUTHENTICATED",
            "message": sentence,
            "details": [detail],
        }
    }
    return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": CHALLENGE})


def jsonrpc_unauthenticated(sentence: str) -> JSONResponse:
    """A JSON-RPC error of a refused credential (UNAUTHENTICATED_CODE), with its challenge."""
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": UNAUTHENTICATED_CODE, "message": sentence},
    }
    return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": CHALLENGE})


def rest_not_json(message: str) -> JSONResponse:
    return JSONResponse(build_rest_error_payload(ParseError(message)), status_code=400)


def jsonrpc_not_json(message: str) -> JSONResponse:
    # The SDK answers every JSON-RPC error with 200.
    return JSONResponse(build_error_response(None, JSONParseError(message=message)))


def version_refused(scope: Scope, message: Any) -> JSONResponse | None:
    """VersionNotSupported for a v0.3 method (its name has a slash) asked under an
    `A2A-Version` of another major version; v1.0's methods are the SDK's to check."""
    if not isinstance(message, dict) or "/" not in str(message.get("method", "")):
        return None
    header = VERSION_HEADER.lower().encode("ascii")
    named = next((value for name, value in scope["headers"] if name == header), b"")
    asked = named.decode("latin-1").strip()
    if not asked or asked.partition(".")[0] == PROTOCOL_VERSION_0_3.partition(".")[0]:
        return None  # no header is v0.3, and so is any 0.x, as the SDK reads them
    error = VersionNotSupportedError(
        message=f"A2A version {asked[:VERSION_QUOTED]!r} is not supported by the method "
        f"{str(message['method'])[:64]!r}, a v{PROTOCOL_VERSION_0_3} method."
    )
    request_id = message.get("id")
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    return JSONResponse(build_error_response(request_id, error))
