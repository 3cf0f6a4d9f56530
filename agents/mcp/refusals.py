"""MCP's refusal of a body that is not JSON, stopped before the SDK reads it
(agents/admission.py): JSON-RPC's parse error, with the status the MCP SDK answers its own."""

from mcp_types import PARSE_ERROR
from starlette.responses import JSONResponse


def not_json(message: str) -> JSONResponse:
    payload = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": PARSE_ERROR, "message": f"Parse error: {message}"},
    }
    return JSONResponse(payload, status_code=400)
