"""A2A v1.0's errors for a message the gateway cannot take, through the official SDK's client on
every interface the card lists (the v0.3 one through the SDK's compatibility client), and as
each binding spells them on the wire: a task the caller does not have (TaskNotFound), a task
that takes no more messages (UnsupportedOperation), a media type the card does not accept
(ContentTypeNotSupported), a context id past its bound (invalid params). Nothing runs for any
of them. And the JSON-RPC URL answers with a trailing slash as without."""

import secrets
from collections.abc import Awaitable, Callable

import orjson
import pytest
from a2a.client import Client
from a2a.helpers.proto_helpers import new_data_part, new_text_part
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotFoundError,
    UnsupportedOperationError,
)

from tests.agents.conftest import INTENT
from tests.agents.test_a2a import interfaces, send
from tests.agents.test_a2a_tasks import as_caller, new_key, sent

pytestmark = pytest.mark.django_db(transaction=True)

UNACCEPTED = "application/x-unsupported-type"


def message_to(task_id: str, *parts: Part) -> Message:
    return Message(
        role=Role.ROLE_USER,
        message_id=secrets.token_hex(8),
        task_id=task_id,
        parts=list(parts) or [new_text_part(INTENT)],
    )


def send_as(card: AgentCard, key: str | None, message: Message) -> None:
    async def use(client: Client) -> None:
        async for _event in client.send_message(SendMessageRequest(message=message)):
            pass

    as_caller(card, key, use)


def reader(task_id: str) -> Callable[[Client], Awaitable[Task]]:
    return lambda client: client.get_task(GetTaskRequest(id=task_id))


def test_a_message_naming_a_task_the_caller_does_not_have_is_task_not_found(web, scripted, shelf):
    for name, card in interfaces(web):
        alice, bob = new_key(), new_key()
        hers = as_caller(card, alice, sent)
        calls = scripted.calls_count

        for key, task_id in [(alice, "no-such-task"), (bob, hers.id), (None, hers.id)]:
            with pytest.raises(TaskNotFoundError):
                send_as(card, key, message_to(task_id))
        assert scripted.calls_count == calls, name


def test_a_message_to_a_finished_task_is_unsupported_operation(web, scripted, shelf):
    for name, card in interfaces(web):
        key = new_key()
        task = as_caller(card, key, sent)
        anonymous = send(card, new_text_part(INTENT))
        calls = scripted.calls_count

        assert task.status.state == TaskState.TASK_STATE_COMPLETED, name
        for holder, finished in ((key, task), (None, anonymous)):
            with pytest.raises(UnsupportedOperationError, match="TASK_STATE_COMPLETED"):
                send_as(card, holder, message_to(finished.id))
        assert scripted.calls_count == calls, name
        read = as_caller(card, key, reader(task.id))
        assert list(read.history) == list(task.history), name  # the task is as it was


def test_a_part_of_a_media_type_the_card_does_not_accept_is_content_type_not_supported(
    web, scripted, shelf
):
    files = [
        Part(raw=b"tck", media_type=UNACCEPTED),
        Part(url="https://example.com/a.png", media_type="image/png"),
    ]
    for name, card in interfaces(web):
        calls = scripted.calls_count
        # v0.3's text parts name no media type: the SDK's v0.3 client sends none.
        v1 = card.supported_interfaces[0].protocol_version == "1.0"
        for part in files + [new_text_part(INTENT, media_type="text/html")] * v1:
            with pytest.raises(ContentTypeNotSupportedError):
                send(card, new_text_part(INTENT), part)
        assert scripted.calls_count == calls, name

        # The card's own modes, however spelled, are taken.
        task = send(
            card,
            new_text_part(INTENT, media_type="text/plain; charset=utf-8"),
            new_data_part({"intent": INTENT, "limit": 1}, media_type="Application/JSON"),
        )
        assert task.status.state == TaskState.TASK_STATE_COMPLETED, name


def _jsonrpc(web, path: str, method: str, params: dict, version: str = "1.0"):
    body = orjson.dumps({"jsonrpc": "2.0", "id": 3, "method": method, "params": params})
    headers = {"Content-Type": "application/json", "A2A-Version": version}
    return web.request("POST", path, body, headers)


def test_each_binding_spells_the_errors_as_a2a_v1_says(web, scripted, shelf):
    unknown = {"messageId": "m1", "role": "ROLE_USER", "taskId": "nope", "parts": [{"text": "x"}]}
    unaccepted = {
        "messageId": "m2",
        "role": "ROLE_USER",
        "parts": [{"raw": "dGNr", "mediaType": UNACCEPTED}],
    }
    v0_3_unaccepted = {
        "messageId": "m3",
        "role": "user",
        "kind": "message",
        "parts": [{"kind": "file", "file": {"bytes": "dGNr", "mimeType": UNACCEPTED}}],
    }

    jsonrpc = {
        -32001: _jsonrpc(web, "/a2a/jsonrpc", "SendMessage", {"message": unknown}),
        -32005: _jsonrpc(web, "/a2a/jsonrpc", "SendMessage", {"message": unaccepted}),
    }
    v0_3 = _jsonrpc(web, "/a2a/jsonrpc", "message/send", {"message": v0_3_unaccepted}, "")
    rest = {
        (404, "NOT_FOUND", "TASK_NOT_FOUND"): {"message": unknown},
        (400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"): {"message": unaccepted},
    }

    for code, answer in jsonrpc.items():
        assert (answer.status, answer.json()["error"]["code"]) == (200, code), answer.json()
    assert v0_3.json()["error"]["code"] == -32005
    for (status, grpc_status, reason), body in rest.items():
        headers = {"Content-Type": "application/json", "A2A-Version": "1.0"}
        answer = web.request("POST", "/a2a/rest/message:send", orjson.dumps(body), headers)
        error = answer.json()["error"]
        assert (answer.status, error["status"]) == (status, grpc_status), error
        assert error["details"][0]["reason"] == reason
    assert scripted.calls_count == 0


def test_the_jsonrpc_url_answers_with_a_trailing_slash(web, scripted, shelf):
    """Clients that join a path to the card's URL post to `{url}/` (A2A's conformance kit
    does): the same server answers, whatever it is asked."""
    _name, card = next(interfaces(web))
    interface = card.supported_interfaces[0]
    assert (interface.protocol_binding, interface.protocol_version) == ("JSONRPC", "1.0")
    interface.url += "/"

    task = send(card, new_text_part(INTENT))
    missing = _jsonrpc(web, "/a2a/jsonrpc/", "GetTask", {"id": "nope"})
    v0_3 = _jsonrpc(web, "/a2a/jsonrpc/", "tasks/get", {"id": task.id}, "")

    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    assert missing.json()["error"]["code"] == -32001
    assert v0_3.json()["result"]["id"] == task.id
    for path in ("/a2a/jsonrpc", "/a2a/jsonrpc/"):
        assert web.get(path).status == 404  # a GET is served by neither


def test_a_context_id_past_its_bound_is_invalid_params(web, scripted, shelf):
    """Every task of a context keeps its id: one of more than 256 characters is refused."""
    for name, card in interfaces(web):
        calls = scripted.calls_count
        message = message_to("")
        message.context_id = "c" * 257

        with pytest.raises(InvalidParamsError, match="contextId"):
            send_as(card, new_key(), message)
        assert scripted.calls_count == calls, name
        key = new_key()
        task = as_caller(card, key, lambda client: sent(client, context_id="c" * 256))
        assert task.status.state == TaskState.TASK_STATE_COMPLETED, name
