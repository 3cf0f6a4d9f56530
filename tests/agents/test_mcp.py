"""MCP with the official SDK's client only (mcp's ClientSession over streamable HTTP), against
the web role on loopback."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.agents.conftest import INTENT

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {
    "recommend",
    "get_card",
    "product_card",
    "creator_showcase",
    "create_intent",
    "get_intent",
    "list_proposals",
    "create_match",
    "get_match",
    "accept",
    "get_match_token",
    # UCP's catalog (tests/agents/test_ucp_mcp.py)
    "search_catalog",
    "lookup_catalog",
    "get_product",
}

T = TypeVar("T")


def text_of(result: types.CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


def session(web, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    """`work` in one initialized session with the gateway's MCP server."""

    async def run() -> T:
        async with (
            streamable_http_client(f"{web.url}/mcp") as (read, write, *_),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            return await work(client)

    return asyncio.run(run())


def test_the_tools_are_the_public_operations_with_the_contracts_schemas(web):
    listed = session(web, lambda client: client.list_tools())
    tools = {tool.name: tool for tool in listed.tools}
    contract = web.get("/openapi.json").json()

    assert set(tools) == TOOLS
    recommend = tools["recommend"].input_schema
    parameters = {
        parameter["name"]: parameter["schema"]
        for parameter in contract["paths"]["/v1/recommend"]["get"]["parameters"]
    }
    assert recommend["required"] == ["intent"]
    assert {name: recommend["properties"][name] | {} for name in parameters} == {
        name: recommend["properties"][name] for name in parameters
    }
    assert {key: recommend["properties"]["limit"][key] for key in parameters["limit"]} == (
        parameters["limit"]
    )
    create_intent = tools["create_intent"].input_schema
    body = contract["components"]["schemas"]["IntentCreateRequest"]
    assert set(create_intent["properties"]) == set(body["properties"])
    assert create_intent["required"] == body["required"]
    assert tools["get_card"].input_schema["required"] == ["rec_id"]
    for name in ("recommend", "get_card", "product_card", "creator_showcase"):
        assert "verbatim" in (tools[name].description or "")
    hints = {
        name: tool.annotations.read_only_hint for name, tool in tools.items() if tool.annotations
    }
    assert (hints["get_card"], hints["accept"]) == (True, False)


def test_recommend_then_get_card_answer_what_the_rest_api_answers(web, scripted, shelf):
    async def work(client: ClientSession) -> tuple[Any, Any]:
        recommended = await client.call_tool("recommend", {"intent": INTENT, "limit": 2})
        rec_id = recommended.structured_content["items"][0]["rec_id"]
        return recommended, await client.call_tool("get_card", {"rec_id": rec_id})

    recommended, card = session(web, work)

    assert not recommended.is_error
    assert not card.is_error
    items = recommended.structured_content["items"]
    assert 1 <= len(items) <= 2
    assert recommended.structured_content["intent"] == INTENT
    assert card.structured_content == web.get(f"/v1/cards/{items[0]['rec_id']}").json()
    assert card.structured_content["cta"]["primary"]["url"] == items[0]["cta"]["primary"]["url"]


def test_a_demand_agent_creates_an_intent_and_ranks_its_proposals(web, scripted, shelf):
    async def work(client: ClientSession) -> list[Any]:
        created = await client.call_tool("create_intent", {"raw_query": INTENT, "region": "US"})
        intent_id = created.structured_content["intent"]["intent_id"]
        return [
            created,
            await client.call_tool("get_intent", {"intent_id": intent_id}),
            await client.call_tool("list_proposals", {"intent_id": intent_id}),
            await client.call_tool("create_match", {"intent_id": intent_id}),
        ]

    created, fetched, listed, matched = session(web, work)

    intent_id = created.structured_content["intent"]["intent_id"]
    assert fetched.structured_content == web.get(f"/v1/intents/{intent_id}").json()
    assert listed.structured_content == {
        "intent_id": intent_id,
        "count": 0,
        "proposals": [],
        "next_cursor": None,
    }
    assert matched.structured_content["match_session"]["intent_id"] == intent_id


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        ("recommend", {"intent": INTENT, "limit": 500}, "invalid_parameter"),
        ("recommend", {}, "invalid_parameter"),
        ("get_card", {"rec_id": "rec_nothing"}, "not found"),
        ("get_card", {}, "missing_fields"),
        ("get_intent", {"intent_id": 7}, "invalid_arguments"),
        ("create_intent", {"raw_query": ""}, "invalid_body"),
        ("create_match", {"intent_id": "int_x", "colour": "red"}, "invalid_arguments"),
    ],
)
def test_bad_input_is_a_tool_error_with_the_gateways_code(web, scripted, tool, arguments, code):
    result = session(web, lambda client: client.call_tool(tool, arguments))

    assert result.is_error
    assert text_of(result).startswith(f"{code}: ")
    assert scripted.calls_count == 0


def test_an_unavailable_engine_is_a_tool_error_with_the_gateways_message(web, scripted, shelf):
    scripted.script("503")

    result = session(web, lambda client: client.call_tool("recommend", {"intent": "rain boots"}))

    assert result.is_error
    assert text_of(result).startswith("intent_engine_unavailable: ")


def test_a_recommends_session_is_ranked_accepted_and_its_token_read(web, scripted, shelf):
    async def work(client: ClientSession) -> list[Any]:
        recommended = await client.call_tool("recommend", {"intent": INTENT})
        session_id = recommended.structured_content["match_session_id"]
        match = await client.call_tool("get_match", {"match_session_id": session_id})
        best = match.structured_content["match_session"]["best_proposal_id"]
        minted = await client.call_tool(
            "accept", {"match_session_id": session_id, "proposal_id": best}
        )
        token_id = minted.structured_content["match_token"]["match_token_id"]
        confirmed = await client.call_tool(
            "accept", {"match_session_id": session_id, "match_token_id": token_id}
        )
        token = await client.call_tool("get_match_token", {"match_token_id": token_id})
        return [match, minted, confirmed, token]

    match, minted, confirmed, token = session(web, work)

    assert not any(result.is_error for result in (match, minted, confirmed, token))
    token_id = minted.structured_content["match_token"]["match_token_id"]
    assert token.structured_content == web.get(f"/v1/match-tokens/{token_id}").json()
    assert confirmed.structured_content["match_token"]["acceptance_state"] == "accepted"


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_the_stateless_transport_answers_anything_but_post_405(web, method):
    # A GET asks for a stream of server messages: none is ever sent, so none is opened (the
    # SDK's transport would hold it open for as long as the client liked).
    headers = {"Accept": "text/event-stream, application/json"}

    answer = web.request(method, "/mcp", headers=headers, timeout=10)

    assert answer.status == 405
    assert answer.headers["allow"] == "POST"
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["error"]["code"] == types.INVALID_REQUEST
