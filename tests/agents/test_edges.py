"""What both protocols share with the REST API: its throttles, its Host check and its body
limit; and what A2A refuses: reading a task that does not exist; and an anonymous caller lists no
task."""

import asyncio

import httpx
import orjson
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_data_parts, new_text_part
from a2a.types.a2a_pb2 import GetTaskRequest, ListTasksRequest, TaskState
from a2a.utils.errors import TaskNotFoundError
from django.core.cache import caches

from tests.agents.conftest import INTENT, serve
from tests.agents.test_a2a import interfaces, send
from tests.agents.test_mcp import session, text_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def throttled(tmp_path_factory, scripted_engine, django_db_setup):
    caches["default"].clear()  # no bucket left over from an earlier run
    with serve(tmp_path_factory, scripted_engine, THROTTLE_RATES="recommend=1/min") as server:
        yield server
    caches["default"].clear()


def test_throttles_apply_to_agents_as_to_the_rest_api(throttled, scripted, shelf):
    _, card = next(interfaces(throttled))

    first = send(card, new_text_part(INTENT))
    second = send(card, new_text_part(INTENT))
    by_mcp = session(throttled, lambda client: client.call_tool("recommend", {"intent": INTENT}))
    by_rest = throttled.get("/v1/recommend?intent=trail")

    assert first.status.state == TaskState.TASK_STATE_COMPLETED
    assert second.status.state == TaskState.TASK_STATE_FAILED
    (error,) = get_data_parts(list(second.status.message.parts))
    assert error["error"] == "throttled"
    assert error["retry_after_s"] >= 1
    assert by_mcp.is_error
    assert text_of(by_mcp).startswith("throttled: ")
    assert by_rest.status == 429
    assert scripted.calls_count == 1


def test_a_host_the_gateway_does_not_serve_is_refused(web):
    for path in ("/mcp", "/a2a/jsonrpc", "/a2a/rest/message:send"):
        answer = web.request("POST", path, b"{}", {"Host": "attacker.example"})

        assert answer.status == 400, path
        assert answer.json()["error"] == "bad_request"


def test_a_path_or_method_a2a_does_not_serve_answers_the_gateways_error(web):
    unknown = web.request("POST", "/a2a/rest/message:shout", b"{}")
    wrong = web.get("/a2a/jsonrpc")

    assert (unknown.status, unknown.json()["error"]) == (404, "not found")
    # The SDK's per-tenant routes take /a2a/... for a tenant's, so it is not found there either.
    assert (wrong.status, wrong.json()["error"]) == (404, "not found")


def test_a_body_past_the_limit_is_refused_before_the_protocols_read_it(web):
    big = orjson.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": "x" * 3_000_000}
    )

    for path in ("/mcp", "/a2a/jsonrpc"):
        answer = web.request("POST", path, big, {"Content-Type": "application/json"})

        assert answer.status == 413, path
        assert answer.json()["error"] == "payload_too_large"


def test_a2a_reads_no_task_that_does_not_exist_and_lists_none(web):
    for _name, card in interfaces(web):

        async def ask(card=card):
            async with httpx.AsyncClient(timeout=30) as http:
                binding = card.supported_interfaces[0].protocol_binding
                config = ClientConfig(
                    streaming=False, httpx_client=http, supported_protocol_bindings=[binding]
                )
                client = ClientFactory(config).create(card)
                with pytest.raises(TaskNotFoundError):
                    await client.get_task(GetTaskRequest(id="no-such-task"))
                if card.supported_interfaces[0].protocol_version == "1.0":
                    listed = await client.list_tasks(ListTasksRequest())
                    assert (list(listed.tasks), listed.next_page_token) == ([], "")

        asyncio.run(ask())


def _send_message(web, method: str, message: dict, version: str):
    body = orjson.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"message": message}}
    )
    headers = {"Content-Type": "application/json", "A2A-Version": version}
    return web.request("POST", "/a2a/jsonrpc", body, headers)


V03_MESSAGE = {
    "messageId": "m1",
    "role": "user",
    "kind": "message",
    "parts": [{"kind": "text", "text": INTENT}],
}
V10_MESSAGE = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": INTENT}]}


@pytest.mark.parametrize("version", ["9.0", "2", "1.0", "latest"])
def test_an_unsupported_a2a_version_is_version_not_supported_in_both_dialects(
    web, scripted, version
):
    """v1.0's -32009, also for a v0.3 method (whose SDK adapter would answer -32603), before
    anything runs."""
    calls = scripted.calls_count
    answers = [_send_message(web, "message/send", V03_MESSAGE, version)]
    if version != "1.0":
        answers.append(_send_message(web, "SendMessage", V10_MESSAGE, version))

    for answer in answers:
        assert answer.status == 200
        assert answer.json()["id"] == 7
        assert answer.json()["error"]["code"] == -32009, answer.json()
    assert scripted.calls_count == calls


def test_the_versions_each_dialect_speaks_are_served(web, scripted, shelf):
    for method, message, version in [
        ("message/send", V03_MESSAGE, "0.3"),
        ("message/send", V03_MESSAGE, ""),
        ("SendMessage", V10_MESSAGE, "1.0"),
    ]:
        answer = _send_message(web, method, message, version)

        assert "error" not in answer.json(), (method, version, answer.json())


MALFORMED = [
    ("/a2a/jsonrpc", b"{not json"),
    ("/a2a/jsonrpc", b"[]"),
    ("/a2a/jsonrpc", b'{"jsonrpc": "1.0", "id": 1, "method": "SendMessage"}'),
    ("/a2a/jsonrpc", b'{"jsonrpc": "2.0", "id": 1, "method": "DropTables", "params": {}}'),
    ("/a2a/jsonrpc", b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": 7}'),
    ("/a2a/jsonrpc", b'{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"a": 1}}'),
    ("/a2a/jsonrpc", b'{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": 5}}'),
    ("/a2a/rest/message:send", b"{not json"),
    ("/a2a/rest/message:send", b'{"message": {"parts": "x"}}'),
    ("/a2a/rest/message:send", b'{"unknownField": 1}'),
]


def test_malformed_a2a_requests_are_logged_as_warnings_without_tracebacks(web):
    for path, body in MALFORMED:
        answer = web.request("POST", path, body, {"Content-Type": "application/json"})

        assert 400 <= answer.status < 500 or answer.status == 200, (path, body, answer.status)
    web.request("POST", "/a2a/jsonrpc", b"{}", {"Host": "attacker.example"})
    log = web.log()

    assert "WARNING a2a.server.routes.jsonrpc_dispatcher Failed to parse request params" in log
    assert "ERROR" not in log
    assert "Traceback" not in log
