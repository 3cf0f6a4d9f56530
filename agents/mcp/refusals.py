"""MCP's refusals of what never reaches the SDK (agents/admission.py): a body that is not JSON
(JSON-RPC's parse error, with the status the MCP SDK answers its own), and any method but POST.

The transport is stateless: nothing is pushed to a client on a stream of its own, and there is
no session to end, so `GET /mcp` (a stream of server messages) and `DELETE /mcp` (the end of a
session) are 405 with `Allow: POST`, as the streamable HTTP transport lets a server answer
them. The SDK's stateless transport would open the stream and hold it, never writing to it.
"""

from mcp_types import INVALID_REQUEST, PARSE_ERROR
from starlette.responses import JSONResponse


def not_json(message: str) -> JSONResponse:
    payload = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": PARSE_ERROR, "message": f"Parse error: {message}"},
    }
    return JSONResponse(payload, status_code=400)


def method_not_allowed() -> JSONResponse:
    payload = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": INVALID_REQUEST,
            "message": "Method Not Allowed: this MCP server is stateless and answers POST "
            "alone; it pushes nothing on a stream of its own and keeps no session to end.",
        },
    }
    return JSONResponse(payload, status_code=405, headers={"Allow": "POST"})
