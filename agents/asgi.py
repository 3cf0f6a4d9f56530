"""The agents' protocols beside the REST API in one ASGI application (gateway/asgi.py).

Requests under A2A's and MCP's paths (agents/a2a/, agents/mcp/) go to their servers, after the
checks Django makes of every request of its own: the Host header must be one of
ALLOWED_HOSTS, and the body no larger than DATA_UPLOAD_MAX_MEMORY_SIZE; then the client's rate
limit and the JSON check (agents/admission.py). Everything else goes to the REST API.
Operations the protocols run reach the REST API in process (agents/dispatch.py).
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from django.conf import settings
from django.http.request import split_domain_port, validate_host
from starlette.responses import JSONResponse
from starlette.types import Scope

from agents.a2a import A2A_JSONRPC_PATH, A2A_PREFIXES, A2A_REST_PATH
from agents.a2a.server import application as a2a_application
from agents.admission import refusal
from agents.dispatch import ASGIApp, Caller, Dispatcher, current_caller
from agents.mcp import MCP_PATH
from agents.mcp.server import McpServer
from kernel.bodies import Aborted, TooLarge, read_body, replay
from kernel.errors import PAYLOAD_TOO_LARGE
from kernel.handlers import error_body


def _host_allowed(scope: Scope) -> bool:
    host = next((value for name, value in scope["headers"] if name == b"host"), b"")
    domain, _port = split_domain_port(host.decode("latin-1"))
    return bool(domain) and validate_host(domain, settings.ALLOWED_HOSTS)


class Agents:
    """Routes the agents' paths to their servers, everything else to `rest`."""

    def __init__(self, rest: ASGIApp) -> None:
        self.rest = rest
        dispatcher = Dispatcher(rest)
        self.a2a = a2a_application(dispatcher)
        self.mcp = McpServer(dispatcher)

    def serves(self, path: str) -> bool:
        return path in (MCP_PATH, A2A_REST_PATH) or path.startswith(A2A_PREFIXES)

    # Django and Starlette type the one ASGI protocol differently (a Mapping message, a
    # MutableMapping one): the callables are taken as either.
    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope["path"]
        if not self.serves(path):
            await self.rest(scope, receive, send)
            return
        if path == A2A_JSONRPC_PATH + "/":
            # The same URL: clients that join a path to the card's URL post to `{url}/`.
            path = A2A_JSONRPC_PATH
            scope = {**scope, "path": path, "raw_path": path.encode()}
        if not _host_allowed(scope):
            answer = JSONResponse(
                error_body("bad_request", "The Host header is not one this gateway serves."),
                status_code=400,
            )
            await answer(scope, receive, send)
            return
        try:
            body = await read_body(receive, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        except Aborted:
            return
        except TooLarge:
            error = PAYLOAD_TOO_LARGE(limit_kb=(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0) // 1024)
            answer = JSONResponse(error_body(error.code, error.message), status_code=413)
            await answer(scope, receive, send)
            return
        refused = await refusal(scope, body)
        if refused is not None:
            await refused(scope, receive, send)
            return
        token = current_caller.set(Caller.of(scope))
        try:
            server = self.mcp.asgi if path == MCP_PATH else self.a2a
            await server(scope, replay(body, receive), send)
        finally:
            current_caller.reset(token)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.mcp.running():
            yield
