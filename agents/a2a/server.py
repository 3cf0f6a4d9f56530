"""The A2A server: the official SDK's request handler and routes, serving the interfaces the
agent card lists (agents/a2a/card.py): v1.0 JSON-RPC and v0.3 JSON-RPC on one URL, v1.0
HTTP+JSON under another. No streaming and no push notifications: the card says so, and the
SDK's handler refuses them. Who calls is the key it sends, or no one (agents/a2a/callers.py):
Starlette's authentication middleware reads it, and the SDK's call context carries it to the
task store, which keeps and lists each caller's tasks apart (agents/a2a/tasks.py).

A message is checked before its operation runs, and refused with A2A v1.0's error: one naming
a task the caller does not have is TaskNotFound, and one naming a task it has UnsupportedOperation,
since every task is finished when it is answered (v1.0's answer to a message to a terminal
task); a contextId past MAX_CONTEXT_ID characters is invalid params; a part of a media type none
of the card's input modes is ContentTypeNotSupported; and a message that asks for nothing the
REST API takes is invalid params.
"""

from typing import Any

from a2a.client.card_resolver import parse_agent_card
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
from a2a.types.a2a_pb2 import Message, SendMessageRequest, Task, TaskState
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from agents import metrics, operations
from agents.a2a import A2A_JSONRPC_PATH, A2A_REST_PATH
from agents.a2a.callers import CallerKeys, refused
from agents.a2a.card import MODES, agent_card
from agents.a2a.executor import OUTCOME, GatewayAgentExecutor
from agents.a2a.messages import NotUnderstood, ask_of, unaccepted
from agents.a2a.tasks import CacheTaskStore
from agents.dispatch import Dispatcher
from kernel.handlers import error_body

# Answers of the REST API that say the message itself is wrong: the protocol's invalid params.
BAD_INPUT = frozenset({400, 413})
# The longest context id a message may name: every task of the context keeps it.
MAX_CONTEXT_ID = 256


class GatewayRequestHandler(DefaultRequestHandler):
    """The SDK's request handler, running the asked operation before the task is made."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.tasks = CacheTaskStore()
        super().__init__(
            agent_executor=GatewayAgentExecutor(),
            task_store=self.tasks,
            agent_card=parse_agent_card(agent_card()),
        )
        self.dispatcher = dispatcher

    async def on_message_send(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> Message | Task:
        task_id = params.message.task_id
        if task_id:
            task = await self.tasks.get(task_id, context)
            if task is None:
                raise TaskNotFoundError(f"No task {task_id[:64]!r} is yours to send to.")
            raise UnsupportedOperationError(
                f"The task {task_id[:64]!r} is {TaskState.Name(task.status.state)}: a task is "
                "finished when it is answered and takes no more messages. Send a new message "
                "without a task id."
            )
        if len(params.message.context_id) > MAX_CONTEXT_ID:
            raise InvalidParamsError(
                f"A contextId is at most {MAX_CONTEXT_ID} characters; this one is "
                f"{len(params.message.context_id):,}."
            )
        media_types = unaccepted(params.message, MODES)
        if media_types:
            raise ContentTypeNotSupportedError(
                f"The agent takes {' and '.join(MODES)} parts; this message has "
                f"{', '.join(repr(name[:64]) for name in media_types[:4])}."
            )
        try:
            ask = ask_of(params.message)
        except NotUnderstood as exc:
            raise InvalidParamsError(str(exc)) from None
        called = operations.call(self.dispatcher, ask.operation, ask.arguments)
        reply = await metrics.measured("a2a", ask.operation, called)
        if reply.status in BAD_INPUT:
            raise InvalidParamsError(f"{reply.body['error']}: {reply.body['message']}", reply.body)
        context.state[OUTCOME] = (ask, reply)
        return await super().on_message_send(params, context)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """A path or method no A2A route serves, in the gateway's error envelope."""
    assert isinstance(exc, HTTPException)
    code = {404: "not found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
    return JSONResponse(error_body(code, exc.detail), status_code=exc.status_code)


def application(dispatcher: Dispatcher) -> Any:
    """The ASGI application serving A2A at A2A_JSONRPC_PATH and A2A_REST_PATH."""
    handler = GatewayRequestHandler(dispatcher)
    routes = [
        *create_jsonrpc_routes(handler, rpc_url=A2A_JSONRPC_PATH, enable_v0_3_compat=True),
        *create_rest_routes(handler, path_prefix=A2A_REST_PATH),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(AuthenticationMiddleware, backend=CallerKeys(), on_error=refused)],
        exception_handlers={HTTPException: _http_error},
    )
