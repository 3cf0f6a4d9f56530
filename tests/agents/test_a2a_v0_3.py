"""An A2A v0.3 client, the official a2a-sdk 0.3.26 (run in its sidecar, tests/support/sidecars.py),
against the web role: how it finds the v0.3 card (docs/agents.md#a2a says which clients speak
which dialect), then talks through the interface it chooses, the v0.3 JSON-RPC one."""

import pytest

from tests.agents.conftest import INTENT
from tests.agents.test_a2a_tasks import new_key
from tests.support.sidecars import run_json

pytestmark = pytest.mark.django_db(transaction=True)

# Run by a2a-sdk 0.3.26 with the gateway's URL, its caller key and the shopper's words; prints
# one JSON line of what it saw.
CLIENT = """
import asyncio, json, sys

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientJSONError, A2AClientJSONRPCError
from a2a.types import FilePart, FileWithBytes, Message, Part, Role, TextPart, TaskQueryParams

base, key, words = sys.argv[1:4]


def message(*parts, task_id=None):
    return Message(role=Role.user, message_id="m-" + str(len(parts)), parts=list(parts),
                   task_id=task_id)


async def error_code(client, sent):
    try:
        async for _event in client.send_message(sent):
            return None
    except A2AClientJSONRPCError as exc:
        return exc.error.code


async def main():
    seen = {}
    headers = {"Authorization": "Bearer " + key}
    async with httpx.AsyncClient(timeout=30, headers=headers) as http:
        resolver = A2ACardResolver(http, base)
        try:
            await resolver.get_agent_card()
        except A2AClientJSONError as exc:
            seen["default card"] = "url" in str(exc) and "missing" in str(exc)
        legacy = await A2ACardResolver(
            http, base, agent_card_path="/.well-known/agent.json"
        ).get_agent_card()
        asked = await resolver.get_agent_card(http_kwargs={"headers": {"A2A-Version": "0.3"}})
        seen["same card"] = legacy == asked
        seen["card"] = [legacy.url, legacy.preferred_transport, legacy.protocol_version]

        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(legacy)
        events = [event async for event in client.send_message(
            message(Part(root=TextPart(text=words)))
        )]
        task, _update = events[0]
        seen["task"] = [task.status.state.value, len(task.artifacts or [])]
        again = await client.get_task(TaskQueryParams(id=task.id))
        seen["read back"] = again.id == task.id and again.status.state == task.status.state
        unaccepted = FilePart(file=FileWithBytes(bytes="dGNr", mime_type="application/x-tck"))
        seen["errors"] = [
            await error_code(client, message(Part(root=TextPart(text=words)), task_id="nope")),
            await error_code(client, message(Part(root=TextPart(text=words)), task_id=task.id)),
            await error_code(client, message(Part(root=unaccepted))),
        ]
    print(json.dumps(seen))


asyncio.run(main())
"""


def test_a_v0_3_client_reads_the_v0_3_card_and_talks_v0_3(web, scripted, shelf):
    seen = run_json("a2a-sdk-0.3", CLIENT, web.url, new_key(), INTENT)
    assert isinstance(seen, dict)

    # Its resolver reads /.well-known/agent-card.json as a v0.3 card: the v1.0 card has no `url`.
    assert seen["default card"] is True
    assert seen["same card"] is True  # at agent.json, or asked for with A2A-Version: 0.3
    assert seen["card"] == [f"{web.url}/a2a/jsonrpc", "JSONRPC", "0.3.0"]
    assert seen["task"] == ["completed", 1]
    assert seen["read back"] is True
    # TaskNotFound, UnsupportedOperation (a finished task), ContentTypeNotSupported.
    assert seen["errors"] == [-32001, -32004, -32005]
