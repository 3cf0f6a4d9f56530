"""The demand credential through MCP, with the official SDK's client: the tools that create an
intent answer it, and `accept` takes it as an argument (MCP carries no headers)."""

from typing import Any

import pytest
from mcp import ClientSession

from tests.agents.conftest import INTENT
from tests.agents.test_mcp import session

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_mcp_demand_agent_confirms_as_the_demand_side_with_its_credential(web, scripted, shelf):
    async def work(client: ClientSession) -> list[Any]:
        recommended = await client.call_tool("recommend", {"intent": INTENT})
        answer = recommended.structured_content
        session_id, demand_token = answer["match_session_id"], answer["demand_token"]
        proposals = [proposal["proposal_id"] for proposal in answer["proposals"]]
        arguments = {"match_session_id": session_id}
        minted = await client.call_tool("accept", {**arguments, "proposal_id": proposals[0]})
        token_id = minted.structured_content["match_token"]["match_token_id"]
        wrong = await client.call_tool(
            "accept",
            {**arguments, "match_token_id": token_id, "demand_token": demand_token + "x"},
        )
        confirmed = await client.call_tool(
            "accept", {**arguments, "match_token_id": token_id, "demand_token": demand_token}
        )
        created = await client.call_tool("create_intent", {"raw_query": INTENT})
        return [wrong, confirmed, created]

    wrong, confirmed, created = session(web, work)

    assert wrong.is_error
    assert wrong.content[0].text.startswith("invalid_demand_token: ")
    assert not confirmed.is_error
    token = confirmed.structured_content["match_token"]
    assert (token["acceptance_state"], token["confirmed_by"]) == ("accepted", "demand")
    assert created.structured_content["demand_token"].startswith("dmt_")
