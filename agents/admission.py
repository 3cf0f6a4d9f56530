"""What every A2A and MCP request passes before a protocol's server reads it: the client's rate
limit, and the JSON check every entry point of the gateway makes.

- **Throttle.** Every request counts, reads included (`tasks/get`, `tools/list`, notifications):
  scope `a2a` or `mcp` (THROTTLE_RATES), per client address as the REST API counts it
  (kernel/throttles.py, TRUSTED_PROXY_COUNT), in the same store. The operations a request runs
  then meet the REST API's own throttles too (agents/dispatch.py).
- **JSON.** A body is read by gateway/jsonio.loads: malformed or nested deeper than
  MAX_JSON_DEPTH, it never reaches the SDKs' parsers, which recurse.

A refusal is answered in the protocol's own terms. Neither protocol names a rate-limit error,
so a throttled request gets HTTP 429 with `Retry-After`, and a JSON-RPC error of code
THROTTLED_CODE (in JSON-RPC's range for implementation-defined server errors, used by neither
A2A nor MCP) whose data is the gateway's `throttled` error; on A2A's HTTP+JSON binding, the
binding's error object (`RESOURCE_EXHAUSTED`). A body that is not JSON gets each protocol's
parse error: JSON-RPC -32700, or the HTTP+JSON binding's 400 `INVALID_ARGUMENT`.

- **Version.** A JSON-RPC request whose `A2A-Version` header names a version its method's dialect
  is not (v0.3's `message/send` under `A2A-Version: 2.0`) gets v1.0's VersionNotSupported
  (-32009). The SDK checks v1.0's methods itself, but answers v0.3's as an internal error
  (-32603), since v0.3 has no such code; a client naming another version is no v0.3 client.
"""

import math
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from a2a.server.jsonrpc_models import JSONParseError
from a2a.server.request_handlers.response_helpers import build_error_response
from a2a.utils.constants import PROTOCOL_VERSION_0_3, VERSION_HEADER
from a2a.utils.error_handlers import ERROR_INFO_TYPE, build_rest_error_payload
from a2a.utils.errors import VersionNotSupportedError
from asgiref.sync import sync_to_async
from django.conf import settings
from django.http.request import HttpHeaders
from google.protobuf.json_format import ParseError  # type: ignore[import-untyped]
from mcp_types import PARSE_ERROR
from starlette.responses import JSONResponse
from starlette.types import Scope

from kernel.errors import THROTTLED
from kernel.handlers import error_body
from kernel.jsonio import NotJson, loads
from kernel.throttles import ScopeThrottle
from kernel.wellknown import A2A_JSONRPC_PATH, MCP_PATH

THROTTLED_CODE = -32029
# How much of a caller's version header an answer quotes.
VERSION_QUOTED = 16


def _protocol(path: str) -> str:
    """`jsonrpc` (A2A's JSON-RPC), `rest` (A2A's HTTP+JSON) or `mcp`."""
    if path == MCP_PATH:
        return "mcp"
    return "jsonrpc" if path == A2A_JSONRPC_PATH else "rest"


def _wait(scope: Scope, throttle_scope: str) -> int | None:
    """Seconds the client of `scope` must wait before its next request, or None when it may go
    on. Counted as DRF's scoped throttle counts a REST request from the same client."""
    headers = dict(scope["headers"])
    meta = {"REMOTE_ADDR": (scope.get("client") or ("", 0))[0]}
    if b"x-forwarded-for" in headers:
        meta["HTTP_X_FORWARDED_FOR"] = headers[b"x-forwarded-for"].decode("latin-1")
    request = SimpleNamespace(META=meta, headers=HttpHeaders(meta), user=None)
    throttle = ScopeThrottle()
    if throttle.allow_request(request, SimpleNamespace(throttle_scope=throttle_scope)):
        return None
    return max(1, math.ceil(throttle.wait() or 1))


def _throttled(protocol: str, wait: int) -> JSONResponse:
    error = THROTTLED()
    body = {**error_body(error.code, error.message), "retry_after_s": wait}
    sentence = f"{error.code}: {error.message} (retry after {wait} s)"
    headers = {"Retry-After": str(wait)}
    if protocol == "rest":
        detail = {
            "@type": ERROR_INFO_TYPE,
            "reason": "THROTTLED",
            "domain": urlsplit(settings.PUBLIC_BASE_URL).hostname or "gateway",
            "metadata": {"retry_after_s": str(wait)},
        }
        payload: dict[str, Any] = {
            "error": {
                "code": 429,
                "status": "RESOURCE_EXHAUSTED",
                "message": sentence,
                "details": [detail],
            }
        }
    else:
        payload = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": THROTTLED_CODE, "message": sentence, "data": body},
        }
    return JSONResponse(payload, status_code=429, headers=headers)


def _not_json(protocol: str, message: str) -> JSONResponse:
    if protocol == "rest":
        return JSONResponse(build_rest_error_payload(ParseError(message)), status_code=400)
    if protocol == "jsonrpc":  # the SDK answers every JSON-RPC error with 200
        return JSONResponse(build_error_response(None, JSONParseError(message=message)))
    payload = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": PARSE_ERROR, "message": f"Parse error: {message}"},
    }
    return JSONResponse(payload, status_code=400)  # as the MCP SDK answers its parse errors


def _version_refused(scope: Scope, message: Any) -> JSONResponse | None:
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


async def refusal(scope: Scope, body: bytes) -> JSONResponse | None:
    """The answer refusing the agent request of `scope` with `body`, or None to serve it."""
    protocol = _protocol(scope["path"])
    throttle_scope = "mcp" if protocol == "mcp" else "a2a"
    if settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"].get(throttle_scope) is not None:
        wait = await sync_to_async(_wait, thread_sensitive=False)(scope, throttle_scope)
        if wait is not None:
            return _throttled(protocol, wait)
    if scope["method"] == "POST" and (body or protocol != "rest"):
        try:
            message = loads(body)
        except NotJson as exc:
            return _not_json(protocol, exc.message)
        if protocol == "jsonrpc":
            return _version_refused(scope, message)
    return None
