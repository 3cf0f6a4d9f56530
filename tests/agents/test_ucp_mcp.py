"""UCP's MCP binding with the official MCP client (mcp's ClientSession over streamable HTTP)
against the web role on loopback: the tools answer what UCP's schemas describe, the same as
the REST binding, in the release the platform's profile declares (served on loopback), and what
stops a request is a JSON-RPC error carrying UCP's error response."""

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from tests.agents import ucp_validation as schemas
from tests.agents.conftest import INTENT
from tests.agents.test_mcp import session
from tests.agents.ucp_validation import AUGUST
from tests.support.ucp_platforms import PlatformProfiles

pytestmark = pytest.mark.django_db(transaction=True)


def meta(url: str) -> dict[str, Any]:
    return {"ucp-agent": {"profile": url}}


@pytest.fixture
def platforms() -> Iterator[PlatformProfiles]:
    """Platforms' profiles on loopback, which the web role may fetch (tests/support/web.py)."""
    with PlatformProfiles() as served:
        yield served


def valid(ref: str, document: Any) -> Any:
    problems = schemas.errors(ref, document)
    assert not problems, problems
    return document


def test_the_ucp_tools_search_and_look_up_the_catalog(web, scripted, shelf, platforms):
    search = {"query": INTENT, "pagination": {"limit": 2}}
    valid(schemas.SEARCH_REQUEST, search)
    platform = meta(platforms.platform("2026-04-08"))

    async def work(client: ClientSession) -> list[Any]:
        listed = await client.list_tools()
        searched = await client.call_tool("search_catalog", {"meta": platform, "catalog": search})
        ids = [product["id"] for product in searched.structured_content["products"]]
        looked_up = await client.call_tool("lookup_catalog", {"catalog": {"ids": [*ids, "0"]}})
        detail = await client.call_tool(
            "get_product", {"meta": platform, "catalog": {"id": ids[0]}}
        )
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


def test_a_platform_of_2026_08_25_gets_the_tools_answers_in_that_release(
    web, scripted, shelf, platforms
):
    platform = meta(platforms.platform("2026-08-25"))

    async def work(client: ClientSession) -> list[Any]:
        search = {"query": INTENT, "pagination": {"limit": 2}}
        searched = await client.call_tool("search_catalog", {"meta": platform, "catalog": search})
        ids = [product["id"] for product in searched.structured_content["products"]]
        lookup = {"meta": platform, "catalog": {"ids": [*ids, "0"]}}
        looked_up = await client.call_tool("lookup_catalog", lookup)
        detail = await client.call_tool(
            "get_product", {"meta": platform, "catalog": {"id": ids[0]}}
        )
        missing = await client.call_tool("get_product", {"meta": platform, "catalog": {"id": "0"}})
        return [searched, looked_up, detail, missing]

    answers = session(web, work)

    refs = [AUGUST.SEARCH_RESPONSE, AUGUST.LOOKUP_RESPONSE, AUGUST.PRODUCT_RESPONSE]
    for ref, answer in zip([*refs, AUGUST.ERROR_RESPONSE], answers, strict=True):
        body = answer.structured_content
        assert not AUGUST.errors(ref, body), AUGUST.errors(ref, body)
        assert body["ucp"]["version"] == "2026-08-25"
        assert all(
            entry["version"] == "2026-08-25"
            for entries in body["ucp"]["capabilities"].values()
            for entry in entries
        )
    assert answers[3].structured_content["messages"][0]["code"] == "not_found"


def test_a_platform_of_a_release_not_spoken_is_refused_with_ucps_error(
    web, scripted, shelf, platforms
):
    platform = meta(platforms.platform("2026-01-23"))

    async def work(client: ClientSession) -> Any:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("lookup_catalog", {"meta": platform, "catalog": {"ids": ["1"]}})
        return raised.value

    error = session(web, work)

    assert error.code == -32001
    assert not AUGUST.errors(AUGUST.ERROR_RESPONSE, error.data)
    assert error.data["messages"][0]["code"] == "version_unsupported"
    assert error.data["ucp"]["version"] == "2026-08-25"
