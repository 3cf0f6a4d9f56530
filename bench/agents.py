"""Benchmark of the agents' protocols (agents/): what an A2A message and an MCP tool call cost
beyond the recommend they carry.

On the 10k-product demo catalog, with the scripted intent engine on loopback, the Procfile's
`web` role (1 worker) answers warm recommends (resolution cached) three ways, in turns, ROUNDS
times each: GET /v1/recommend over HTTP (httpx), an A2A message through the official SDK's
client (v1.0 JSON-RPC, then HTTP+JSON), and an MCP tools/call through the official SDK's
ClientSession over streamable HTTP. The overhead of a protocol is its median round trip less
the REST median: its server (the SDK's request handling, the task kept in the cache, the reply
built) and its client. The references: for the REST recommend, the scripted engine's own round
trip; for each overhead, the bench's reference view asked in the same turns by the same httpx
client (bench/reference.py).

Agents reach the gateway through these protocols rather than REST; what a protocol adds to each
call is the price of speaking it, and these figures keep it visible. They have no budget.

Runs alone (`python bench/agents.py`) or as part of `make bench`; see bench/common.py for the
scratch databases. Prints figures; asserts nothing.
"""

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import common, loopback, reference
from bench.common import against, median, shown
from tests.support.engine import ScriptedEngine

ROUNDS = 100
WARM_UP = 10


async def _measure(base: str, intents: list[str]) -> dict[str, list[float]]:
    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.helpers.proto_helpers import new_text_part
    from a2a.types.a2a_pb2 import AgentCard, Message, Role, SendMessageRequest
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    samples: dict[str, list[float]] = {}
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, base).get_agent_card()

        def a2a_client(binding: str):  # type: ignore[no-untyped-def]
            only = AgentCard()
            only.CopyFrom(card)
            del only.supported_interfaces[:]
            only.supported_interfaces.append(
                next(i for i in card.supported_interfaces if i.protocol_binding == binding)
            )
            config = ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=[binding]
            )
            return ClientFactory(config).create(only)

        jsonrpc, rest = a2a_client("JSONRPC"), a2a_client("HTTP+JSON")

        async def rest_api(intent: str) -> None:
            answer = await http.get(f"{base}/v1/recommend", params={"intent": intent, "limit": 3})
            assert answer.status_code == 200, answer.text

        def a2a(client):  # type: ignore[no-untyped-def]
            async def send(intent: str) -> None:
                message = Message(
                    role=Role.ROLE_USER, message_id=intent, parts=[new_text_part(intent)]
                )
                async for event in client.send_message(SendMessageRequest(message=message)):
                    assert event.task.artifacts, event

            return send

        async with (
            streamable_http_client(f"{base}/mcp") as (read, write, *_),
            ClientSession(read, write) as mcp,
        ):
            await mcp.initialize()

            async def mcp_tool(intent: str) -> None:
                result = await mcp.call_tool("recommend", {"intent": intent, "limit": 3})
                assert not result.is_error, result

            async def reference_view(intent: str) -> None:
                answer = await http.get(f"{base}{reference.PATH}")
                assert answer.status_code == 200, answer.text

            ways: dict[str, Callable[[str], Awaitable[None]]] = {
                "reference": reference_view,
                "REST": rest_api,
                "A2A JSON-RPC": a2a(jsonrpc),
                "A2A HTTP+JSON": a2a(rest),
                "MCP": mcp_tool,
            }
            for n in range(WARM_UP + ROUNDS):
                for name, way in ways.items():
                    started = time.perf_counter()
                    await way(intents[n % len(intents)])
                    if n >= WARM_UP:
                        samples.setdefault(name, []).append((time.perf_counter() - started) * 1000)
    return samples


def run(database_url: str) -> None:
    with ScriptedEngine() as engine_server:
        env = common.engine_env(engine_server.api_base)
        common.django_setup(database_url, **env)
        from django.db import connection

        common.ensure_catalog()
        intents = common.shopper_intents(20)
        for text, resolution in intents.items():
            engine_server.answer(text, **resolution)
        connection.close()
        vendor = common.vendor_of(database_url)
        print(f"\n== agents' protocols on {common.VENDORS[vendor]}, warm recommends, 1 web worker")
        port = loopback.free_port()
        base = f"http://127.0.0.1:{port}"  # the card's interfaces point here
        web_env = common.gateway_env(database_url) | env | {"PUBLIC_BASE_URL": base}
        with loopback.web_server(web_env, workers=1, port=port):
            samples = asyncio.run(_measure(base, list(intents)))
    ruler = reference.engine()
    ruler_view = median(samples.pop("reference"))
    view = "reference view over HTTP (httpx, in the same turns), median"
    rest = median(samples.pop("REST"))
    figures = [
        against(
            shown("recommend over REST (httpx), round trip median", vendor, rest),
            ruler.at("median"),
            f"{ruler.what}, median",
        )
    ]
    for name, measured in samples.items():
        overhead = shown(
            f"{name}: overhead beyond recommend, median", vendor, median(measured) - rest
        )
        figures.append(
            against(
                replace(overhead, note=f"{name} round trip median {median(measured):.2f} ms"),
                ruler_view,
                view,
            )
        )
    common.report(figures)


if __name__ == "__main__":
    common.per_database(run, "bench")
