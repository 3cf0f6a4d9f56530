"""The MCP revisions the gateway serves, with the official SDK's client only (`mcp`), against the
web role: `initialize` negotiates the handshake revisions, 2025-11-25 the latest; 2026-07-28 has
no handshake (each request carries its revision in `_meta`, and `server/discover` names it), so
an `initialize` asking for it is a 2025-11-25 session. And a tool the gateway has not is MCP's
protocol error at both: JSON-RPC's invalid params, naming every tool."""

import asyncio
from typing import Any

import mcp_types as types
import pytest
from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.agents.conftest import INTENT
from tests.agents.test_mcp import TOOLS, text_of
from tests.agents.test_metrics import scrape
from tests.support.metrics import value

pytestmark = pytest.mark.django_db(transaction=True)

HANDSHAKE = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"
MODES = {LATEST_HANDSHAKE: "legacy", MODERN: MODERN}  # the client's way to each revision


def initialize(web, version: str) -> types.InitializeResult:
    """The server's answer to an `initialize` offering `version` (the SDK's session offers its
    latest handshake revision; here the request is the SDK's, its version the test's)."""

    async def run() -> types.InitializeResult:
        async with (
            streamable_http_client(f"{web.url}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            offer = types.InitializeRequestParams(
                protocol_version=version,
                capabilities=types.ClientCapabilities(),
                client_info=types.Implementation(name="tests", version="1"),
            )
            request = types.InitializeRequest(params=offer)
            return await session.send_request(request, types.InitializeResult)

    return asyncio.run(run())


def connected(web, mode: str, work: Any) -> Any:
    """`work(client)` with the SDK's `Client` connected in `mode`: `legacy` (the initialize
    handshake), `auto` (server/discover first) or a modern revision (adopted as it is)."""

    async def run() -> Any:
        async with Client(f"{web.url}/mcp", mode=mode) as client:
            return await work(client)

    return asyncio.run(run())


@pytest.mark.parametrize("version", HANDSHAKE)
def test_initialize_negotiates_the_handshake_revision_the_client_asks_for(web, version):
    result = initialize(web, version)

    assert result.protocol_version == version
    assert result.server_info.name == "product-recommendation-gateway"
    assert result.capabilities.tools is not None


@pytest.mark.parametrize("version", [MODERN, "2099-01-01", "draft"])
def test_initialize_answers_any_other_revision_with_the_latest_handshake_one(web, version):
    # 2026-07-28 removed the handshake: an initialize opens a session of a handshake revision
    # (MCP 2026-07-28, Versioning: a dual-era server), the latest one the server has.
    assert initialize(web, version).protocol_version == LATEST_HANDSHAKE


def test_a_client_that_discovers_first_speaks_2026_07_28(web):
    async def work(client: Client) -> tuple[str, types.DiscoverResult | None]:
        return client.protocol_version, client.session.discover_result

    version, discovered = connected(web, "auto", work)

    assert version == MODERN
    assert discovered is not None
    assert discovered.supported_versions == [MODERN]
    assert discovered.capabilities.tools is not None


@pytest.mark.parametrize("revision", MODES)
def test_a_tool_is_called_at_each_revision(web, scripted, shelf, revision):
    async def work(client: Client) -> tuple[str, types.CallToolResult]:
        called = await client.call_tool("recommend", {"intent": INTENT, "limit": 2})
        return client.protocol_version, called

    version, called = connected(web, MODES[revision], work)

    assert version == revision
    assert not called.is_error
    assert called.structured_content["intent"] == INTENT
    assert 1 <= len(called.structured_content["items"]) <= 2


@pytest.mark.parametrize("revision", MODES)
def test_a_tool_the_gateway_has_not_is_invalid_params_naming_every_tool(web, scripted, revision):
    before = scrape(web)

    async def work(client: Client) -> types.ErrorData:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("drop_tables", {})
        return refused.value.error

    error = connected(web, MODES[revision], work)

    assert error.code == types.INVALID_PARAMS
    assert error.message.startswith("Unknown tool: the tools are ")
    named = error.message.removeprefix("Unknown tool: the tools are ").removesuffix(".")
    assert set(named.split(", ")) == TOOLS
    assert "drop_tables" not in error.message  # a caller's made-up name reaches no span
    assert scripted.calls_count == 0
    # Counted as any call of a name the gateway has not (agents/metrics.py).
    labels = {"protocol": "mcp", "operation": "unknown", "outcome": "invalid"}
    counted = value(scrape(web), "gateway_agent_calls_total", **labels)
    assert counted - value(before, "gateway_agent_calls_total", **labels) == 1


def test_the_2026_07_28_headers_are_read_without_the_whitespace_around_them(web):
    # RFC 9110 section 5.5; the SDK's client never sends such a header, so the request is built
    # here, as the conformance suite builds it (http-header-validation).
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    params = {"name": "get_card", "arguments": {"rec_id": "rec_nothing"}, "_meta": meta}
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": f"{MODERN} ",
        "Mcp-Method": "tools/call\t",
        "Mcp-Name": "  get_card  ",
    }

    answer = web.post_json("/mcp", message, headers)

    assert answer.status == 200, answer.body
    result = types.CallToolResult.model_validate(answer.json()["result"])
    assert result.is_error
    assert text_of(result).startswith("not found: ")
