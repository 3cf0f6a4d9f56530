"""The A2A agent: runs what a message asks (agents/a2a/messages.py) through the gateway's
operations, and reports it as a task.

The request handler (agents/a2a/server.py) runs the operation before the task exists, so that a
message the REST API would refuse (400) is answered with the protocol's invalid-params error and
leaves no task behind. The executor then publishes the outcome: a completed task whose artifact
holds the answer, or a failed task carrying the gateway's error code and message (the intent
engine is unavailable, a card is not found, the caller is throttled). The task's history holds
what was asked (the operation and its arguments), not the caller's message.
"""

import uuid

from a2a.helpers.proto_helpers import new_data_part, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import Artifact, Message, Part, Role, Task, TaskState, TaskStatus
from a2a.utils.errors import TaskNotCancelableError

from agents.a2a.messages import Ask, answer_parts
from agents.dispatch import Reply

# Where the request handler leaves the outcome for the executor (ServerCallContext.state).
OUTCOME = "gateway.outcome"


class GatewayAgentExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        """The finished task in one event: one save of it, however it ended."""
        ask, reply = context.call_context.state[OUTCOME]
        assert context.task_id is not None
        assert context.context_id is not None
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        status = TaskStatus(
            state=TaskState.TASK_STATE_COMPLETED if reply.ok else TaskState.TASK_STATE_FAILED
        )
        status.timestamp.GetCurrentTime()
        task = Task(
            id=context.task_id,
            context_id=context.context_id,
            status=status,
            history=[asked(context, ask)],
        )
        if reply.ok:
            task.artifacts.append(
                Artifact(
                    artifact_id=str(uuid.uuid4()),
                    name=ask.operation,
                    parts=answer_parts(ask, reply.body),
                )
            )
        else:
            task.status.message.CopyFrom(updater.new_agent_message(failure_parts(reply)))
        await event_queue.enqueue_event(task)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise TaskNotCancelableError("The gateway's tasks finish as they start.")


def asked(context: RequestContext, ask: Ask) -> Message:
    """The caller's message as the task keeps it: the operation and its arguments, in one data
    part. The caller's own parts (text the operation never read, a shopper's words beyond the
    intent) are neither kept nor echoed."""
    assert context.task_id is not None
    return Message(
        role=Role.ROLE_USER,
        message_id=context.message.message_id if context.message else str(uuid.uuid4()),
        task_id=context.task_id,
        context_id=context.context_id or "",
        parts=[new_data_part({"operation": ask.operation, "arguments": ask.arguments})],
    )


def failure_parts(reply: Reply) -> list[Part]:
    """The gateway's error, as a sentence and as its JSON (with Retry-After when throttled)."""
    body = dict(reply.body or {"error": "unavailable", "message": "The gateway failed."})
    if "retry-after" in reply.headers:
        body["retry_after_s"] = int(reply.headers["retry-after"])
    return [
        new_text_part(f"{body['error']}: {body['message']}", media_type="text/plain"),
        new_data_part(body, media_type="application/json"),
    ]


__all__ = ["OUTCOME", "Ask", "GatewayAgentExecutor"]
