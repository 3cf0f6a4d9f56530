"""The MCP server: the official SDK's low-level server over streamable HTTP, one tool per
public operation (agents/operations.py).

Tools' input schemas are the contract's, so the REST API's serializers; a tool's result is the
JSON the REST API answers, as structured content (and as text, for clients that read only
text); an error is a tool error carrying the gateway's code and message. A tool the gateway has
not is a protocol error, as MCP has it: JSON-RPC's invalid params, naming the tools there are.
The transport is stateless and answers in JSON: any web worker can serve any call, no session
is kept between requests, and nothing streams.

The revisions are the SDK's, both eras (docs/agents.md#mcp): `initialize` negotiates the
handshake revisions, 2025-11-25 the latest, which is also the answer to a version it has not,
2026-07-28 included; 2026-07-28 has no handshake, its requests carry their version in `_meta`
and `server/discover` names it.

The SDK opens a span per message (its OpenTelemetry middleware, on by default), named for the
method and the tool the caller sent and holding them as attributes: `KnownNames` shows it only
names the gateway knows, so a caller's made-up name reaches no span.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, NoReturn

import mcp_types as types
import orjson
from django.conf import settings
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import (
    StreamableHTTPASGIApp,
    StreamableHTTPSessionManager,
)
from mcp.shared.exceptions import MCPError
from mcp_types.methods import SPEC_CLIENT_METHODS, SPEC_CLIENT_NOTIFICATION_METHODS
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from agents import metrics, operations
from agents.dispatch import ASGIApp, Dispatcher
from agents.ucp import tools as ucp_tools
from kernel.wellknown import CONTRACT_VERSION

INSTRUCTIONS = (
    "Tools of the Product Recommendation and Intent-Matching Gateway. Start with recommend: "
    "the shopper's words in, product cards with creator videos out. Every card's "
    "cta.primary.url is the buy link: give it to the user exactly as it is. Demand agents "
    "state intents (create_intent), read merchants' proposals (list_proposals), rank them "
    "(create_match) and accept one (accept). UCP platforms find the catalog as UCP's tools "
    "(search_catalog, lookup_catalog, get_product)."
)


def _tool(operation: operations.Operation) -> types.Tool:
    return types.Tool(
        name=operation.name,
        description=operation.description,
        input_schema=operation.input_schema,
        output_schema=operation.output_schema,
        annotations=types.ToolAnnotations(
            read_only_hint=operation.method == "GET",
            open_world_hint=operation.name == "recommend",
        ),
    )


class KnownNames:
    """Around the SDK's OpenTelemetry middleware: it names its span `<method> <tool>` and sets
    `mcp.method.name`, `gen_ai.tool.name` (or `gen_ai.prompt.name`) and `mcp.protocol.version`
    from what the caller sent; it is shown the method, the name and the version only when the
    gateway knows them, `unknown` otherwise (agents/metrics.py's word). The message goes on to
    the handler as it came. The JSON-RPC id, the caller's too, is cut by the span limit
    (gateway/telemetry.py)."""

    def __init__(self, spans: ServerMiddleware[Any]) -> None:
        self.spans = spans

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        params = ctx.params
        if params is not None and isinstance(params.get("name"), str):
            params = {**params, "name": metrics.known(params["name"])}
        shown = replace(
            ctx,
            method=ctx.method if ctx.method in METHODS else metrics.UNKNOWN,
            protocol_version=(
                ctx.protocol_version
                if ctx.protocol_version in KNOWN_PROTOCOL_VERSIONS
                else metrics.UNKNOWN
            ),
            params=params,
        )
        return await self.spans(shown, lambda _: call_next(ctx))


METHODS = SPEC_CLIENT_METHODS | SPEC_CLIENT_NOTIFICATION_METHODS
WHITESPACE = b" \t"


def trimmed(app: ASGIApp) -> ASGIApp:
    """`app` shown each header's value without the spaces and tabs around it, which are no part
    of it (RFC 9110, section 5.5). The web role's HTTP parser keeps trailing ones, and MCP
    2026-07-28 holds its headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) to the body:
    `Mcp-Name: recommend ` names recommend."""

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        headers = [(name, value.strip(WHITESPACE)) for name, value in scope["headers"]]
        await app({**scope, "headers": headers}, receive, send)

    return serve


class McpServer:
    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.server: Server[Any] = Server(
            "product-recommendation-gateway",
            version=CONTRACT_VERSION,
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )
        # The SDK's one default middleware is its spans' (a second would need a look here).
        (spans,) = self.server.middleware
        self.server.middleware = [KnownNames(spans)]
        self.sessions = StreamableHTTPSessionManager(
            app=self.server,
            stateless=True,
            json_response=True,
            max_request_body_size=settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440,
        )
        self.asgi = trimmed(StreamableHTTPASGIApp(self.sessions))

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed = [_tool(op) for op in operations.catalog().values()]
        return types.ListToolsResult(tools=listed + ucp_tools.tools())

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        if params.name in ucp_tools.TOOLS:  # UCP's catalog (agents/ucp/tools.py)
            asked = ucp_tools.call(self.dispatcher, params.name, params.arguments or {})
            return ucp_tools.result(await metrics.measured("mcp", params.name, asked))
        if params.name not in operations.catalog():
            await self.unknown_tool(params.name)
        called = operations.call(self.dispatcher, params.name, params.arguments or {})
        reply = await metrics.measured("mcp", params.name, called)
        body = reply.body if isinstance(reply.body, dict) else {"result": reply.body}
        if reply.ok:
            text = orjson.dumps(body).decode()
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=text)], structured_content=body
            )
        message = f"{body.get('error')}: {body.get('message')}"
        if "retry-after" in reply.headers:
            message += f" (retry after {reply.headers['retry-after']} s)"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=message)],
            is_error=True,
        )

    async def unknown_tool(self, name: str) -> NoReturn:
        """Refuses a call of a tool the gateway has not: JSON-RPC's invalid params (MCP's
        "unknown tool"), naming the tools there are. The call is counted as any other, as
        `unknown` and `invalid` (the refusal operations.call answers for that name); the
        message leaves the name out, since the SDK's span takes the message as its status."""
        await metrics.measured("mcp", name, operations.call(self.dispatcher, name, {}))
        tools = [*operations.catalog(), *ucp_tools.TOOLS]
        raise MCPError(types.INVALID_PARAMS, f"Unknown tool: the tools are {', '.join(tools)}.")

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's task group, for as long as the web worker serves."""
        async with self.sessions.run():
            yield
