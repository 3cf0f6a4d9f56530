"""Operations called through A2A and MCP are counted by protocol, operation and outcome, as the
web role's own `GET /metrics` shows them; calls made with the official clients."""

import pytest
from a2a.helpers.proto_helpers import new_text_part
from a2a.types.a2a_pb2 import TaskState
from django.conf import settings
from mcp import ClientSession
from mcp.shared.exceptions import MCPError

from tests.agents.conftest import INTENT
from tests.agents.test_a2a import interfaces, send
from tests.agents.test_mcp import session
from tests.support.metrics import value

pytestmark = pytest.mark.django_db(transaction=True)


def scrape(web) -> str:
    answer = web.request(
        "GET", "/metrics", headers={"Authorization": f"Bearer {settings.METRICS_TOKEN}"}
    )
    assert answer.status == 200, answer.body
    return answer.body.decode()


def calls(text: str, protocol: str, operation: str, outcome: str) -> float:
    labels = {"protocol": protocol, "operation": operation, "outcome": outcome}
    return value(text, "gateway_agent_calls_total", **labels)


def test_mcp_tool_calls_are_counted_by_operation_and_outcome(web, scripted, shelf):
    before = scrape(web)

    async def work(client: ClientSession) -> None:
        assert not (await client.call_tool("recommend", {"intent": INTENT})).is_error
        assert (await client.call_tool("get_card", {"rec_id": "rec_nope"})).is_error
        with pytest.raises(MCPError):  # a protocol error: invalid params (unknown tool)
            await client.call_tool("no_such_tool", {})

    session(web, work)

    after = scrape(web)
    for operation, outcome in (
        ("recommend", "ok"),
        ("get_card", "not_found"),
        ("unknown", "invalid"),
    ):
        moved = calls(after, "mcp", operation, outcome) - calls(before, "mcp", operation, outcome)
        assert moved == 1, (operation, outcome)
    assert "no_such_tool" not in after
    assert INTENT not in after


def test_a2a_messages_are_counted_by_operation_and_outcome(web, scripted, shelf):
    _, card = next(interfaces(web))
    before = scrape(web)

    task = send(card, new_text_part(INTENT))

    assert task.status.state == TaskState.TASK_STATE_COMPLETED
    after = scrape(web)
    assert calls(after, "a2a", "recommend", "ok") - calls(before, "a2a", "recommend", "ok") == 1
    duration = "gateway_agent_call_duration_seconds_count"
    assert value(after, duration, protocol="a2a") - value(before, duration, protocol="a2a") == 1
