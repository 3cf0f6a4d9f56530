"""UCP's MCP binding with the official MCP client (mcp's ClientSession over streamable HTTP)
against the web role on loopback: the tools answer what UCP's schemas describe, the same as
the REST binding, and what stops a request is a JSON-RPC error carrying UCP's error response."""

from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from tests.agents import ucp_validation as schemas
from tests.agents.conftest import INTENT
from tests.agents.test_mcp import session

pytestmark = pytest.mark.django_db(transaction=True)

META = {"ucp-agent": {"profile": "https://platform.example/profiles/shopping-agent.json"}}


def valid(ref: str, document: Any) -> Any:
    problems = schemas.errors(ref, document)
    assert not problems, problems
    return document


def test_the_ucp_tools_search_and_look_up_the_catalog(web, scripted, shelf):
    search = {"query": INTENT, "pagination": {"limit": 2}}
    valid(schemas.SEARCH_REQUEST, search)

    async def work(client: ClientSession) -> list[Any]:
        listed = await client.list_tools()
        searched = await client.call_tool("search_catalog", {"meta": META, "catalog": search})
        ids = [product["id"] for product in searched.structured_content["products"]]
        looked_up = await client.call_tool("lookup_catalog", {"catalog": {"ids": [*ids, "0"]}})
        detail = await client.call_tool("get_product", {"meta": META, "catalog": {"id": ids[0]}})
        missing = await client.call_tool("get_product", {"catalog": {"id": "4242"}})
        return [listed, searched, looked_up, detail, missing]

    listed, searched, looked_up, detail, missing = session(web, work)

    tools = {tool.name: tool for tool in listed.tools}
    assert tools["search_catalog"].input_schema["required"] == ["catalog"]
    assert "query" in tools["search_catalog"].input_schema["properties"]["catalog"]["properties"]
    found = valid(schemas.SEARCH_RESPONSE, searched.structured_content)
    assert 1 <= len(found["products"]) <= 2
    for product in found["products"]:
        assert product["url"] == f"{web.url}/r/{product['metadata']['rec_id']}"
    looked = valid(schemas.LOOKUP_RESPONSE, looked_up.structured_content)
    assert [product["id"] for product in looked["products"]] == [
        product["id"] for product in found["products"]
    ]
    assert looked["messages"] == [{"type": "info", "code": "not_found", "content": "0"}]
    assert (
        valid(schemas.PRODUCT_RESPONSE, detail.structured_content)["product"]["id"]
        == (found["products"][0]["id"])
    )
    assert not missing.is_error  # a business outcome, not a transport error
    assert valid(schemas.ERROR_RESPONSE, missing.structured_content)["ucp"]["status"] == "error"


@pytest.mark.parametrize(
    ("arguments", "code", "ucp_code"),
    [
        ({"catalog": {}}, -32602, "invalid_body"),
        ({"catalog": {"query": INTENT, "pagination": {"cursor": "x"}}}, -32602, "invalid_cursor"),
        ({"meta": {"ucp-agent": {}}, "catalog": {"query": INTENT}}, -32001, "invalid_profile_url"),
    ],
)
def test_a_request_that_is_not_processed_is_a_json_rpc_error_with_ucps_error(
    web, scripted, shelf, arguments, code, ucp_code
):
    async def work(client: ClientSession) -> Any:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("search_catalog", arguments)
        return raised.value

    error = session(web, work)

    assert error.code == code
    body = {key: value for key, value in error.data.items() if key not in ("status", "retry_after")}
    assert valid(schemas.ERROR_RESPONSE, body)["messages"][0]["code"] == ucp_code
