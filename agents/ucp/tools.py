"""UCP's catalog over MCP (UCP's MCP binding): the tools `search_catalog`, `lookup_catalog` and
`get_product` of the gateway's MCP server.

A tool's arguments are UCP's: `meta` (the platform's `ucp-agent` profile, optional here) and
`catalog`, the request of the REST binding, whose schema is the contract's (the same serializers
validate it). The profile, when given, says which UCP release the platform speaks
(agents/ucp/platforms.py); without it the answer is in profile.UNDECLARED, as over REST. A call
runs through the REST binding in process (agents/dispatch.py), its answer stated in the
platform's release (the releases' answers differ only in the versions their envelope states):
UCP's answer is the tool's structured content, a business outcome included (a product not found
is a result with ucp.status `error`). What stops a request from being processed is a JSON-RPC
error, as UCP maps it: the code, and UCP's error response with `retry_after` as its data; a
profile that cannot be used (malformed, unreachable, of a release the gateway does not speak) is
-32001, with the error response in the current release.
"""

import functools
from typing import Any

import mcp_types as types
import orjson
from mcp.shared.exceptions import MCPError

from agents.dispatch import Dispatcher, Reply
from agents.operations import build
from agents.ucp import platforms
from agents.ucp import profile as ucp
from agents.ucp.errors import UCP_BAD_PROFILE
from kernel.errors import ApiError
from kernel.schema import english_schema

# Tool -> (the REST binding's operationId, its path under ucp.REST_PATH, what it is for).
TOOLS: dict[str, tuple[str, str, str]] = {
    "search_catalog": (
        "searchCatalog",
        "/catalog/search",
        "UCP catalog search (dev.ucp.shopping.catalog.search): products for a shopper's words, "
        "with filters (categories, price in cents), context (country, intent) and cursor "
        "pagination.",
    ),
    "lookup_catalog": (
        "lookupCatalog",
        "/catalog/lookup",
        "UCP catalog lookup (dev.ucp.shopping.catalog.lookup): products by product or variant id.",
    ),
    "get_product": (
        "getCatalogProduct",
        "/catalog/product",
        "UCP product detail (dev.ucp.shopping.catalog.lookup): one product by id.",
    ),
}
BUY_LINK = (
    " Every product's url is its buy link: hand it to the user verbatim (it carries the rec_id "
    "that attributes the sale)."
)
META = {
    "type": "object",
    "description": "UCP request metadata: the platform's profile.",
    "properties": {
        "ucp-agent": {
            "type": "object",
            "properties": {"profile": {"type": "string", "format": "uri"}},
            "required": ["profile"],
        }
    },
}
# UCP's JSON-RPC codes for what stops a request (UCP overview, "Error Codes").
INVALID_PARAMS, SERVER_ERROR, INTERNAL_ERROR, PROFILE_ERROR = -32602, -32000, -32603, -32001


@functools.cache
def tools() -> list[types.Tool]:
    contract = english_schema()
    listed = []
    for name, (operation_id, _path, description) in TOOLS.items():
        catalog = build(name, operation_id, "", contract).input_schema
        listed.append(
            types.Tool(
                name=name,
                description=description + BUY_LINK,
                input_schema={
                    "type": "object",
                    "properties": {"meta": META, "catalog": catalog},
                    "required": ["catalog"],
                },
                annotations=types.ToolAnnotations(
                    read_only_hint=False,  # each answer records the cards it issued
                    open_world_hint=name == "search_catalog",
                ),
            )
        )
    return listed


def _refused(error: ApiError) -> MCPError:
    body = ucp.error_response(ucp.SEARCH, error.status_code, error.code, error.message, ucp.CURRENT)
    return MCPError(PROFILE_ERROR, error.message, body)


async def _release(arguments: dict[str, Any]) -> str:
    """The release the platform of `meta` speaks. Raises MCPError."""
    meta = arguments.get("meta")
    if meta is None:
        return ucp.UNDECLARED
    agent = meta.get("ucp-agent") if isinstance(meta, dict) else None
    profile = agent.get("profile") if isinstance(agent, dict) else None
    if not platforms.well_formed(profile):
        raise _refused(UCP_BAD_PROFILE())
    try:
        return await platforms.declared_release(profile)
    except ApiError as error:
        raise _refused(error) from None


def _code(status: int) -> int:
    if status < 500:
        return INVALID_PARAMS if status in (400, 413) else SERVER_ERROR
    return SERVER_ERROR if status == 503 else INTERNAL_ERROR


async def call(dispatcher: Dispatcher, name: str, arguments: dict[str, Any]) -> Reply:
    """Run the UCP tool `name` through the REST binding, its answer in the platform's release.
    Raises MCPError for a `meta` it cannot run."""
    release = await _release(arguments)
    catalog = arguments.get("catalog", {})
    path = ucp.REST_PATH + TOOLS[name][1]
    reply = await dispatcher.call("POST", path, body=catalog)
    if not isinstance(reply.body, dict):
        return reply
    return Reply(reply.status, ucp.restated(reply.body, release), reply.headers)


def result(reply: Reply) -> types.CallToolResult:
    """The tool's result for the REST binding's reply, or the JSON-RPC error (MCPError) for a
    request that was not processed."""
    body = reply.body if isinstance(reply.body, dict) else {}
    if reply.ok:
        text = orjson.dumps(body).decode()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=body
        )
    messages = body.get("messages") or [{}]
    message = str(messages[0].get("content") or f"HTTP {reply.status}")
    data: dict[str, Any] = {**body, "status": reply.status}
    if "retry-after" in reply.headers:
        data["retry_after"] = int(reply.headers["retry-after"])
    raise MCPError(_code(reply.status), message, data)
