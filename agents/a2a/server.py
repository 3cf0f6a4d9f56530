"""The A2A server: the official SDK's request handler and routes, serving the interfaces the
agent card lists (agents/a2a/card.py): v1.0 JSON-RPC and v0.3 JSON-RPC on one URL, v1.0
HTTP+JSON under another. No streaming and no push notifications: the card says so, and the
SDK's handler refuses them.
"""

from typing import Any

from a2a.client.card_resolver import parse_agent_card
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_jsonrpc_routes, create_rest_routes
from a2a.types.a2a_pb2 import Message, SendMessageRequest, Task
from a2a.utils.errors import InvalidParamsError, UnsupportedOperationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

from agents import metrics, operations
from agents.a2a import A2A_JSONRPC_PATH, A2A_REST_PATH
from agents.a2a.card import agent_card
from agents.a2a.executor import OUTCOME, GatewayAgentExecutor
from agents.a2a.messages import NotUnderstood, ask_of
from agents.a2a.tasks import CacheTaskStore
from agents.dispatch import Dispatcher
from kernel.handlers import error_body

# Answers of the REST API that say the message itself is wrong: the protocol's invalid params.
BAD_INPUT = frozenset({400, 413})


class GatewayRequestHandler(DefaultRequestHandler):
    """The SDK's request handler, running the asked operation before the task is made."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        super().__init__(
            agent_executor=GatewayAgentExecutor(),
            task_store=CacheTaskStore(),
            agent_card=parse_agent_card(agent_card()),
        )
        self.dispatcher = dispatcher

    async def on_message_send(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> Message | Task:
        if params.message.task_id:
            raise UnsupportedOperationError(
                "The gateway's tasks are finished when they answer; send a new message "
                "without a task id."
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
    return Starlette(routes=routes, exception_handlers={HTTPException: _http_error})
