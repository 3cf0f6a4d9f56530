"""ListTasks, and whose a task is (agents/a2a/callers.py, agents/a2a/listing.py): the official
SDK's client against the web role, on each v1.0 interface the card lists. A caller that sends
its key (`Authorization: Bearer <key>`) lists its own tasks and no one else's; an anonymous
caller lists none."""

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_data_parts, new_text_part
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import InvalidParamsError, TaskNotFoundError
from django.core.cache import caches

from agents.a2a import listing
from agents.a2a.tasks import ALIAS
from tests.agents.a2a_schemas import errors_in
from tests.agents.conftest import INTENT
from tests.agents.test_a2a import interfaces

pytestmark = pytest.mark.django_db(transaction=True)


def new_key() -> str:
    return secrets.token_urlsafe(32)


def v1_interfaces(web) -> list[tuple[str, AgentCard]]:
    """The card once per v1.0 interface (JSON-RPC, HTTP+JSON): v0.3 has no ListTasks."""
    return [
        (name, card)
        for name, card in interfaces(web)
        if card.supported_interfaces[0].protocol_version == "1.0"
    ]


def as_caller(card: AgentCard, key: str | None, use: Callable[[Client], Awaitable[Any]]) -> Any:
    """`use` run with the SDK's client for `card`, sending `key` (none: anonymous)."""

    async def run() -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx.AsyncClient(timeout=30, headers=headers) as http:
            binding = card.supported_interfaces[0].protocol_binding
            config = ClientConfig(
                streaming=False, httpx_client=http, supported_protocol_bindings=[binding]
            )
            return await use(ClientFactory(config).create(card))

    return asyncio.run(run())


async def sent(client: Client, text: str = INTENT, context_id: str = "") -> Task:
    message = Message(
        role=Role.ROLE_USER,
        message_id=secrets.token_hex(8),
        context_id=context_id,
        parts=[new_text_part(text)],
    )
    (event,) = [event async for event in client.send_message(SendMessageRequest(message=message))]
    return event.task


def listed(card: AgentCard, key: str | None, **asked: Any) -> ListTasksResponse:
    return as_caller(card, key, lambda client: client.list_tasks(ListTasksRequest(**asked)))


def test_a_key_holder_lists_its_own_tasks_newest_first_a_page_at_a_time(web, scripted, shelf):
    for name, card in v1_interfaces(web):
        key = new_key()

        async def three(client: Client) -> list[Task]:
            return [await sent(client, f"{INTENT} {n}") for n in range(3)]

        made = as_caller(card, key, three)
        first = listed(card, key, page_size=2)
        second = listed(card, key, page_size=2, page_token=first.next_page_token)
        whole = listed(card, key, include_artifacts=True)

        newest_first = [task.id for task in reversed(made)]
        assert [task.id for task in first.tasks] == newest_first[:2], name
        assert (first.total_size, first.page_size) == (3, 2), name
        assert first.next_page_token, name
        assert [task.id for task in second.tasks] == newest_first[2:], name
        assert (second.total_size, second.next_page_token) == (3, ""), name
        assert [task.id for task in whole.tasks] == newest_first, name
        assert whole.page_size == 50, name  # A2A's default
        # Artifacts only when asked for, and as the task keeps them: no credential.
        assert not any(task.artifacts for task in [*first.tasks, *second.tasks]), name
        for task in whole.tasks:
            assert task.status.state == TaskState.TASK_STATE_COMPLETED, name
            *_cards, metadata = get_data_parts(list(task.artifacts[0].parts))
            assert "demand_token" not in metadata, name
            assert "intent_id" in metadata, name


def test_no_caller_sees_another_callers_tasks(web, scripted, shelf):
    for name, card in v1_interfaces(web):
        alice, bob = new_key(), new_key()
        hers = as_caller(card, alice, sent)
        anonymous = as_caller(card, None, sent)

        def read(key: str | None, task: Task, card: AgentCard = card) -> Task:
            asked = GetTaskRequest(id=task.id)
            return as_caller(card, key, lambda client: client.get_task(asked))

        assert [task.id for task in listed(card, alice).tasks] == [hers.id], name
        assert listed(card, bob).total_size == 0, name
        assert list(listed(card, None).tasks) == [], name  # not even its own
        assert listed(card, None).next_page_token == "", name
        assert read(alice, hers).id == hers.id, name
        assert read(None, anonymous).id == anonymous.id, name  # by its id alone
        for key, task in ((bob, hers), (None, hers), (alice, anonymous)):
            with pytest.raises(TaskNotFoundError):
                read(key, task)


def test_a_page_token_serves_its_caller_and_its_listing_alone(web, scripted, shelf):
    _name, card = v1_interfaces(web)[0]
    alice, bob = new_key(), new_key()

    async def two(client: Client) -> list[Task]:
        return [await sent(client, context_id="ctx-a"), await sent(client, context_id="ctx-a")]

    as_caller(card, alice, two)
    token = listed(card, alice, page_size=1).next_page_token
    assert [task.context_id for task in listed(card, alice, page_token=token).tasks] == ["ctx-a"]

    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    others: list[tuple[str | None, dict[str, Any]]] = [
        (bob, {}),  # another caller's listing
        (None, {}),
        (alice, {"context_id": "ctx-a"}),  # another listing of the same caller
        (alice, {"status": TaskState.TASK_STATE_FAILED}),
    ]
    for key, asked in others:
        with pytest.raises(InvalidParamsError, match="pageToken"):
            listed(card, key, page_token=token, **asked)
    for bad in (forged, "e30", "garbage"):
        with pytest.raises(InvalidParamsError, match="pageToken"):
            listed(card, alice, page_token=bad)


def test_listings_filter_by_context_status_and_time(web, scripted, shelf):
    _name, card = v1_interfaces(web)[0]
    key = new_key()

    async def made(client: Client) -> list[Task]:
        one = await sent(client, context_id="trip")
        time.sleep(0.01)
        scripted.script("503")
        failed = await sent(client, f"{INTENT} in the rain", context_id="trip")
        other = await sent(client, context_id="home")
        return [one, failed, other]

    one, failed, other = as_caller(card, key, made)

    def ids(**asked: Any) -> list[str]:
        return [task.id for task in listed(card, key, **asked).tasks]

    assert failed.status.state == TaskState.TASK_STATE_FAILED
    assert ids(context_id="trip") == [failed.id, one.id]
    assert ids(context_id="home") == [other.id]
    assert ids(status=TaskState.TASK_STATE_FAILED) == [failed.id]
    assert ids(status=TaskState.TASK_STATE_COMPLETED) == [other.id, one.id]
    after = ListTasksRequest()
    after.status_timestamp_after.CopyFrom(failed.status.timestamp)
    assert ids(status_timestamp_after=after.status_timestamp_after) == [other.id, failed.id]
    assert ids(context_id="nowhere") == []


def test_a_listing_answers_v1s_json_with_its_required_members(web, scripted, shelf):
    """The JSON-RPC answer itself, checked against A2A v1.0's schema: `nextPageToken` is there,
    empty on the last page, and the tasks carry no `artifacts` unless asked."""
    _name, card = v1_interfaces(web)[0]
    key = new_key()
    as_caller(card, key, sent)
    request = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {"pageSize": 10}}
    headers = {
        "Content-Type": "application/json",
        "A2A-Version": "1.0",
        "Authorization": f"Bearer {key}",
    }

    answer = web.request("POST", "/a2a/jsonrpc", orjson.dumps(request), headers).json()

    result = answer["result"]
    assert errors_in("1.0", "List Tasks Response", result) == []
    assert (result["nextPageToken"], result["totalSize"], result["pageSize"]) == ("", 1, 10)
    assert "artifacts" not in result["tasks"][0]


@pytest.mark.parametrize(
    "authorization",
    ["Bearer short", "Basic dXNlcjpwYXNz", "Bearer " + "é" * 40, "Bearer " + "k" * 300],
)
def test_an_authorization_that_is_no_caller_key_is_refused_with_a_challenge(
    web, scripted, authorization
):
    calls = scripted.calls_count
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": INTENT}]}
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
    headers["Authorization"] = authorization.encode("utf-8").decode("latin-1")

    jsonrpc = web.request("POST", "/a2a/jsonrpc", orjson.dumps(rpc), headers)
    rest = web.request(
        "POST", "/a2a/rest/message:send", orjson.dumps({"message": message}), headers
    )

    for answer in (jsonrpc, rest):
        assert answer.status == 401
        assert answer.headers["www-authenticate"].startswith('Bearer realm="a2a"')
    assert jsonrpc.json()["error"]["code"] == -32041
    assert jsonrpc.json()["error"]["message"].startswith("invalid_caller_key: ")
    assert rest.json()["error"]["status"] == "UNAUTHENTICATED"
    assert rest.json()["error"]["details"][0]["reason"] == "INVALID_CALLER_KEY"
    assert scripted.calls_count == calls  # nothing ran


def test_an_index_keeps_its_owners_most_recent_tasks_and_no_expired_one(monkeypatch):
    """The bound of a caller's index (listing.INDEX_ENTRIES), in the tasks store itself."""
    monkeypatch.setattr(listing, "INDEX_ENTRIES", 5)
    store = caches[ALIAS]
    owner = "key-test"
    now = time.time()
    for n in range(8):
        entry = listing.Entry(n * 1_000, f"task-{n}", listing.context_mark("ctx"), 3, now + 60)
        listing.record(store, owner, entry)
    listing.record(
        store, owner, listing.Entry(9_000, "gone", listing.context_mark("ctx"), 3, now - 1)
    )

    kept = [listing.Entry(*entry) for entry in store.get(listing.INDEX_KEY.format(owner=owner))]

    assert [entry.task_id for entry in kept] == [f"task-{n}" for n in (7, 6, 5, 4, 3)]
    assert listing.page(store, owner, ListTasksRequest(), lambda task_id: task_id).total_size == 5
