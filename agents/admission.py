"""What every A2A and MCP request passes before a protocol's server reads it: the client's rate
limit, and the JSON check every entry point of the gateway makes.

- **Throttle.** Every request counts, reads included (`tasks/get`, `tools/list`, notifications):
  scope `a2a` or `mcp` (THROTTLE_RATES), per client address as the REST API counts it
  (kernel/throttles.py, TRUSTED_PROXY_COUNT), in the same store. The operations a request runs
  then meet the REST API's own throttles too (agents/dispatch.py).
- **Method.** MCP's transport is stateless: anything but POST is 405 (agents/mcp/refusals.py),
  before the throttle counts it.
- **JSON.** A body is read by kernel/jsonio.loads: malformed or nested deeper than
  MAX_JSON_DEPTH, it never reaches the SDKs' parsers, which recurse.

A refusal is answered in the protocol's own terms (agents/a2a/refusals.py,
agents/mcp/refusals.py). Neither protocol names a rate-limit error,
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

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http.request import HttpHeaders
from starlette.responses import JSONResponse
from starlette.types import Scope

from agents.a2a import A2A_JSONRPC_PATH, refusals
from agents.mcp import MCP_PATH
from agents.mcp import refusals as mcp_refusals
from kernel.errors import THROTTLED
from kernel.handlers import error_body
from kernel.jsonio import NotJson, loads
from kernel.throttles import ScopeThrottle

THROTTLED_CODE = -32029


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
        payload = refusals.rest_throttled(sentence, wait)
    else:
        payload = {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": THROTTLED_CODE, "message": sentence, "data": body},
        }
    return JSONResponse(payload, status_code=429, headers=headers)


def _not_json(protocol: str, message: str) -> JSONResponse:
    if protocol == "rest":
        return refusals.rest_not_json(message)
    if protocol == "jsonrpc":
        return refusals.jsonrpc_not_json(message)
    return mcp_refusals.not_json(message)


async def refusal(scope: Scope, body: bytes) -> JSONResponse | None:
    """The answer refusing the agent request of `scope` with `body`, or None to serve it."""
    protocol = _protocol(scope["path"])
    if protocol == "mcp" and scope["method"] != "POST":
        return mcp_refusals.method_not_allowed()
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
            return refusals.version_refused(scope, message)
    return None
