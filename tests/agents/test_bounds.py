"""What agents cannot grow or break: the A2A task store stays within its bound under a flood of
large failed requests, leaving other callers' tasks and throttle counters as they were; every
A2A and MCP request is throttled per client; JSON too deep for a parser is each protocol's
parse error. Against the web role on loopback, with the official clients, on whichever cache
the run configures (files on the embedded default, Redis with REDIS_URL)."""

import asyncio
import os
import pickle
import time
from pathlib import Path
from typing import Any

import httpx
import httpx2
import orjson
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError
from a2a.helpers.proto_helpers import get_data_parts, get_text_parts, new_data_part, new_text_part
from a2a.server.context import ServerCallContext
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)
from django.conf import settings
from django.core.cache import caches
from django_redis import get_redis_connection
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agents.a2a.tasks import ALIAS, NOT_KEPT, CacheTaskStore, without_credentials
from agents.admission import THROTTLED_CODE
from tests.agents.conftest import INTENT, serve
from tests.agents.test_a2a import interfaces

pytestmark = pytest.mark.django_db(transaction=True)

ALLOWANCE = 30  # a2a requests a client may make a minute, in this module's server
OTHERS = [f"203.0.113.{n}" for n in range(1, 21)]
FLOODER = "198.51.100.66"
FLOOD = 1_000
PADDING = "x" * 200_000  # the text each flooding message carries beside its operation
# What one failed task of the flood may keep: the operation, its arguments, the error.
FAILED_TASK_BYTES = 2_048


@pytest.fixture(scope="module")
def bounded(tmp_path_factory, scripted_engine, django_db_setup):
    """The web role trusting one proxy (each caller names its address), with a2a and mcp
    rates low enough that a flood is mostly refused."""
    with serve(
        tmp_path_factory,
        scripted_engine,
        TRUSTED_PROXY_COUNT="1",
        THROTTLE_RATES=f"a2a={ALLOWANCE}/min,mcp=5/min",
    ) as server:
        yield server


def client_for(card: AgentCard, http: httpx.AsyncClient) -> Any:
    binding = card.supported_interfaces[0].protocol_binding
    config = ClientConfig(streaming=False, httpx_client=http, supported_protocol_bindings=[binding])
    return ClientFactory(config).create(card)


async def send(client: Any, n: int, *parts: Any) -> Task:
    message = Message(role=Role.ROLE_USER, message_id=f"msg-{n}", parts=list(parts))
    (event,) = [event async for event in client.send_message(SendMessageRequest(message=message))]
    return event.task


def as_caller(address: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(timeout=30, headers={"X-Forwarded-For": address})


def stored(task_id: str) -> tuple[int, float]:
    """The bytes the tasks store holds for `task_id`, and the seconds it has left there."""
    store = caches[ALIAS]
    key = CacheTaskStore()._key(task_id, ServerCallContext())
    if not settings.REDIS_URL:
        path = store._key_to_file(key)  # type: ignore[attr-defined]
        with open(path, "rb") as entry:
            expiry = pickle.load(entry)  # noqa: S301 - the store this test process shares
        return os.path.getsize(path), expiry - time.time()
    redis = get_redis_connection(ALIAS)
    full = store.make_and_validate_key(key)
    return redis.strlen(full), redis.ttl(full)


def store_usage() -> tuple[int, int]:
    """How many entries the tasks store holds, and their bytes."""
    if not settings.REDIS_URL:
        files = list(Path(settings.CACHES[ALIAS]["LOCATION"]).glob("*.djcache"))
        return len(files), sum(path.stat().st_size for path in files)
    redis = get_redis_connection(ALIAS)
    keys = list(redis.scan_iter(match=f"{settings.CACHES[ALIAS]['KEY_PREFIX']}:*"))
    return len(keys), sum(redis.strlen(key) for key in keys)


def throttle_history(address: str) -> list[float]:
    """The requests the `a2a` throttle counts for `address` (DRF's key in the shared store)."""
    return caches["default"].get(f"throttle_a2a_{address}") or []


def test_a_flood_of_large_failed_requests_leaves_the_store_bounded_and_others_intact(
    bounded, scripted, shelf
):
    _, card = next(interfaces(bounded))

    async def others_ask() -> dict[str, Task]:
        tasks = {}
        for n, address in enumerate(OTHERS):
            async with as_caller(address) as http:
                tasks[address] = await send(client_for(card, http), n, new_text_part(INTENT))
        return tasks

    async def flood() -> tuple[list[Task], list[str]]:
        failed, refused = [], []
        async with as_caller(FLOODER) as http:
            client = client_for(card, http)
            ask = {"operation": "get_intent", "arguments": {"intent_id": "int_missing"}}
            for n in range(FLOOD):
                try:
                    failed.append(await send(client, n, new_data_part(ask), new_text_part(PADDING)))
                except A2AClientError as exc:
                    refused.append(str(exc))
        return failed, refused

    async def read(address: str, task_id: str) -> Task:
        async with as_caller(address) as http:
            return await client_for(card, http).get_task(GetTaskRequest(id=task_id))

    theirs = asyncio.run(others_ask())
    counted = {address: throttle_history(address) for address in OTHERS}
    failed, refused = asyncio.run(flood())
    entries, size = store_usage()

    # The flooder got its allowance of failed tasks; the rest was refused before any work.
    assert len(failed) == ALLOWANCE
    assert len(refused) == FLOOD - ALLOWANCE
    assert all(error.startswith("HTTP Error 429") for error in refused)
    assert {task.status.state for task in failed} == {TaskState.TASK_STATE_FAILED}
    # What its tasks keep: the operation asked and the error, never its 200 KB of text.
    for task in failed:
        (kept,) = task.history
        assert get_data_parts(list(kept.parts)) == [
            {"operation": "get_intent", "arguments": {"intent_id": "int_missing"}}
        ]
        assert get_text_parts(list(kept.parts)) == []
        task_bytes, seconds_left = stored(task.id)
        assert task_bytes <= FAILED_TASK_BYTES
        assert seconds_left <= settings.A2A_FAILED_TASK_TTL_S
    # The store's bound: the others' tasks and the flooder's allowance, each within its size.
    assert entries <= len(OTHERS) + ALLOWANCE
    assert size <= len(OTHERS) * settings.A2A_TASK_MAX_BYTES + ALLOWANCE * FAILED_TASK_BYTES
    # The others' throttle counters are as they were, and their tasks are read back whole.
    assert {address: throttle_history(address) for address in OTHERS} == counted
    assert all(len(history) == 1 for history in counted.values())
    for address, task in theirs.items():
        again = asyncio.run(read(address, task.id))
        assert again.status.state == TaskState.TASK_STATE_COMPLETED
        # Whole but for the demand credential, which message/send answered once.
        assert list(again.artifacts) == list(without_credentials(task).artifacts)
        assert stored(task.id)[1] > settings.A2A_FAILED_TASK_TTL_S
    # Reads count too: the flooder cannot even read its own tasks this minute.
    with pytest.raises(A2AClientError, match="HTTP Error 429"):
        asyncio.run(read(FLOODER, failed[0].id))


@pytest.mark.processes  # a web role of its own, with its own cap
def test_a_task_past_its_size_cap_answers_whole_once_then_keeps_its_state(
    tmp_path_factory, scripted_engine, scripted, shelf
):
    with serve(tmp_path_factory, scripted_engine, A2A_TASK_MAX_BYTES="4096") as server:
        _, card = next(interfaces(server))

        async def exchange() -> tuple[Task, Task]:
            async with httpx.AsyncClient(timeout=30) as http:
                client = client_for(card, http)
                task = await send(client, 1, new_data_part({"intent": INTENT, "limit": 10}))
                return task, await client.get_task(GetTaskRequest(id=task.id))

        answered, read = asyncio.run(exchange())

    assert answered.status.state == TaskState.TASK_STATE_COMPLETED
    assert len(answered.artifacts[0].parts) > 2  # the guide, the cards, their metadata
    assert len(answered.SerializeToString()) > 4096
    assert read.status.state == TaskState.TASK_STATE_COMPLETED
    assert list(read.artifacts) == []
    assert list(read.history) == []
    assert "A2A_TASK_MAX_BYTES" in read.metadata[NOT_KEPT]
    assert stored(read.id)[0] <= 4096


def test_every_mcp_request_is_throttled_per_client(bounded):
    async def calls(address: str) -> list[Any]:
        outcomes: list[Any] = []
        async with (
            httpx2.AsyncClient(headers={"X-Forwarded-For": address}) as http,
            streamable_http_client(f"{bounded.url}/mcp", http_client=http) as (read, write, *_),
            ClientSession(read, write) as client,
        ):
            await client.initialize()  # two requests: initialize, notifications/initialized
            for _ in range(4):
                try:
                    outcomes.append(await client.list_tools())
                except MCPError as exc:
                    outcomes.append(exc.error)
        return outcomes

    first = asyncio.run(calls("192.0.2.10"))
    other = asyncio.run(calls("192.0.2.11"))

    assert [type(outcome).__name__ for outcome in first] == [
        "ListToolsResult",
        "ListToolsResult",
        "ListToolsResult",
        "ErrorData",
    ]
    refused = first[-1]
    assert refused.code == THROTTLED_CODE
    assert refused.message.startswith("throttled: ")
    assert refused.data["error"] == "throttled"
    assert refused.data["retry_after_s"] >= 1
    # Another client has its own allowance.
    assert type(other[0]).__name__ == "ListToolsResult"


def test_a2a_answers_json_rpc_with_its_throttle_error_and_retry_after(bounded):
    address = {"X-Forwarded-For": "192.0.2.20", "Content-Type": "application/json"}
    request = {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "nope"}}

    answers = [
        bounded.request("POST", "/a2a/jsonrpc", orjson.dumps(request), address)
        for _ in range(ALLOWANCE + 1)
    ]

    assert {answer.status for answer in answers[:ALLOWANCE]} == {200}
    refused = answers[-1]
    assert refused.status == 429
    assert int(refused.headers["retry-after"]) >= 1
    error = refused.json()["error"]
    assert error["code"] == THROTTLED_CODE
    assert error["data"]["error"] == "throttled"


def test_a2a_callers_of_one_ipv6_64_share_one_allowance(bounded):
    request = {"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "nope"}}

    def ask(address: str) -> int:
        headers = {"X-Forwarded-For": address, "Content-Type": "application/json"}
        return bounded.request("POST", "/a2a/jsonrpc", orjson.dumps(request), headers).status

    one_host = [ask(f"2001:db8:a2a:1::{n + 1:x}") for n in range(ALLOWANCE + 1)]
    neighbour = ask("2001:db8:a2a:2::1")

    assert one_host == [200] * ALLOWANCE + [429]  # a new address of the /64 is no new caller
    assert neighbour == 200


def test_a2a_answers_http_json_with_its_binding_error_when_throttled(bounded):
    address = {"X-Forwarded-For": "192.0.2.21"}

    answers = [
        bounded.request("GET", "/a2a/rest/tasks/nope", None, address) for _ in range(ALLOWANCE + 1)
    ]

    assert 429 not in {answer.status for answer in answers[:ALLOWANCE]}
    refused = answers[-1]
    assert refused.status == 429
    assert int(refused.headers["retry-after"]) >= 1
    error = refused.json()["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert error["message"].startswith("throttled: ")
    assert error["details"][0]["reason"] == "THROTTLED"


NESTED = b"[" * 100_000 + b"]" * 100_000


def test_json_nested_past_the_limit_is_each_protocols_parse_error(web):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    forty: Any = []
    for _ in range(40):
        forty = [forty]
    deep_params = orjson.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"x": forty}}
    )

    a2a = web.request("POST", "/a2a/jsonrpc", NESTED, headers)
    a2a_params = web.request("POST", "/a2a/jsonrpc", deep_params, headers)
    mcp = web.request("POST", "/mcp", NESTED, headers)
    rest_binding = web.request("POST", "/a2a/rest/message:send", NESTED, headers)

    for answer in (a2a, a2a_params):
        assert answer.status == 200  # the SDK's status for every JSON-RPC error
        assert answer.json()["id"] is None
        assert answer.json()["error"]["code"] == -32700
        assert answer.json()["error"]["message"] == "JSON must not nest deeper than 32 levels."
    assert mcp.status == 400
    assert mcp.json()["error"] == {
        "code": -32700,
        "message": "Parse error: JSON must not nest deeper than 32 levels.",
    }
    assert rest_binding.status == 400
    assert rest_binding.json()["error"]["status"] == "INVALID_ARGUMENT"
    for answer in (a2a, a2a_params, mcp, rest_binding):
        text = answer.body.decode()
        assert "ecursion" not in text
        assert "Traceback" not in text
        assert "Error(" not in text
