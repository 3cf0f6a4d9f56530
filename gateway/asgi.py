"""The gateway's ASGI application: what the `web` role serves (gunicorn with uvicorn workers).

The gateway spends its time waiting on slow outsiders: a language model answers in seconds, a
merchant may take its whole timeout. Views that wait on them are coroutines (adrf's ViewSets:
recommend, intent creation, merchant health), served by Django's own ASGI handler: while they
wait they hold no thread and no database connection. Every other view is ordinary synchronous
Django, run whole (middleware, view, response) on one thread of a bounded pool whose threads
keep their database connections between requests, as a threaded worker's would. The coroutine
views' own synchronous steps (queries, writes) run on a second pool, of one thread unless
`WEB_STEP_THREADS` says otherwise, so the database connections of a web process stay bounded by
`WEB_THREADS` + `WEB_STEP_THREADS` however many requests wait. docs/serving.md ("The web
role") explains the choice; its measurements are in docs/benchmarks.md.

What is the gateway's own here, and why (tests/gateway/test_serving_upstream.py fails on the
Django or asgiref upgrade that changes what it relies on):

- request bodies are read, and refused past the limit, before Django sees them
  (kernel/bodies.py);
- the synchronous views run on their own pool, as Django's WSGI handler runs them
  (`GatewayHandler._respond`): Django's ASGI handler would run each of their middleware hooks
  and the view on a thread of a new executor per request, opening a database connection for
  each, and two pools keep a burst of recommends from queuing ahead of a card lookup;
- the coroutine views' steps go to the steps' pool through asgiref's documented
  `ThreadSensitiveContext(executor=...)`, which Django's own context inside does not override.

Before a worker accepts its first request, the lifespan protocol warms it: every app whose
AppConfig has a `warm_up()` loads there what its first request would otherwise wait for (the
intent engine's process, the catalog's category names), then its `awarm_up()` whatever needs the
event loop (a rehearsal of an engine call); every thread of the pools opens its connections.
"""

import asyncio
import contextlib
import contextvars
import gc
import io
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gateway.settings")

import django

django.setup(set_prefix=False)

from asgiref.sync import ThreadSensitiveContext, iscoroutinefunction  # noqa: E402
from django.apps import apps  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core import signals  # noqa: E402
from django.core.handlers.asgi import ASGIHandler, get_script_prefix  # noqa: E402
from django.core.handlers.base import BaseHandler  # noqa: E402
from django.db import close_old_connections, reset_queries  # noqa: E402
from django.http import HttpResponseBase, JsonResponse  # noqa: E402
from django.urls import Resolver404, get_resolver, set_script_prefix  # noqa: E402

from agents.asgi import Agents  # noqa: E402
from gateway import telemetry  # noqa: E402
from gateway.pools import ConnectionKeepingPool, StepsPool  # noqa: E402
from kernel.bodies import Aborted, TooLarge, read_body, replay, with_length  # noqa: E402
from kernel.handlers import error_body, payload_too_large  # noqa: E402

logger = logging.getLogger(__name__)

Scope = dict[str, Any]
Message = Mapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class _SyncChain(BaseHandler):
    """Django's synchronous middleware chain and views, as its WSGI handler runs them."""

    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)


class GatewayHandler(ASGIHandler):
    """Django's ASGI handler, serving a request one of two ways: a coroutine view as Django
    serves it, its synchronous steps on one pool, any other view whole on another.

    The steps' pool has one thread by default: one step at a time, on one thread, which is what
    asgiref asks of a thread-sensitive executor. A step is the interpreter's work (retrieval,
    composing cards, ORM rows) with short database round trips between; threads cannot run it
    side by side, they only take turns at the interpreter lock, and every thread that wants it
    makes each other thread of the worker wait longer for its turn, a card lookup's among them:
    more step threads left card lookups slower beside a burst of cold recommends, for the same
    throughput (docs/benchmarks.md). `WEB_STEP_THREADS` is for a database whose round trips
    are slow, where steps waiting on it side by side would pay."""

    def __init__(self, threads: int, step_threads: int) -> None:
        super().__init__()
        self.sync_chain = _SyncChain()
        self.pool = ConnectionKeepingPool(threads, thread_name_prefix="web")
        self.steps = StepsPool(step_threads, thread_name_prefix="web-steps")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            raise ValueError(f"The gateway serves HTTP, not {scope['type']}.")
        try:
            body = await read_body(receive, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        except Aborted:
            return
        except TooLarge:
            error = payload_too_large()
            await self.send_response(
                JsonResponse(error_body(error.code, error.message), status=413), send
            )
            return
        scope = dict(with_length(scope, body))  # a chunked body is read, not ignored
        if _waits(scope["path"]):
            # Django's own handler, its thread-sensitive steps on their pool: bounded,
            # connections kept (asgiref lets the outermost context with an executor choose).
            async with ThreadSensitiveContext(executor=self.steps):
                await super().__call__(scope, replay(body, receive), send)
            return
        loop = asyncio.get_running_loop()
        # In a copy of the request's context, as Django's sync_to_async runs a step: its trace
        # and whatever the request set are the view's, and go with it.
        respond = partial(contextvars.copy_context().run, self._respond, scope, body)
        response = await loop.run_in_executor(self.pool, respond)
        try:
            await self.send_response(response, send)
        finally:
            await loop.run_in_executor(self.pool, response.close)

    def _respond(self, scope: Scope, body: bytes) -> HttpResponseBase:
        """The whole synchronous request, on a thread of the pool: what ASGIHandler.handle does
        before its view, then the synchronous chain, as WSGIHandler.__call__ runs it."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, io.BytesIO(body))
        if request is None:
            assert error_response is not None
            return error_response
        return self.sync_chain.get_response(request)


def _waits(path: str) -> bool:
    """Whether the view at `path` is a coroutine: one that waits on the outside world."""
    try:
        match = get_resolver().resolve(path)
    except Resolver404:
        return False
    return iscoroutinefunction(match.func)


def _route(path: str) -> str | None:
    """The route of the view at `path` as a template, `/v1/intents/{pk}` (a trace names it):
    the URLconf's pattern, its converters and named groups turned into `{name}`."""
    try:
        route = get_resolver().resolve(path).route
    except Resolver404:
        return None
    route = _PARAMETER.sub(r"{\1}", _CONVERTER.sub(r"{\1}", route))
    return "/" + route.replace("^", "").removesuffix("$")


_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")  # path("cards/<int:product_id>")
_PARAMETER = re.compile(r"\(\?P<(\w+)>[^)]*\)")  # a router's (?P<pk>[^/.]+)


_gateway = GatewayHandler(threads=settings.WEB_THREADS, step_threads=settings.WEB_STEP_THREADS)
# A2A and MCP beside the REST API (agents/asgi.py): their paths to their servers, the rest here.
_agents = Agents(_gateway)
# Each HTTP request in a span of its own when traces are exported (gateway/telemetry.py).
_served = telemetry.served(_agents, _route)


def checked_by_the_pools() -> None:
    """Leave the pools to do what Django's `request_started` receivers do (empty the query log,
    close aged or broken connections): `_fresh` does both around every job, on the thread that
    owns the connections. Django would otherwise run those receivers for a coroutine view on
    the steps' thread, a hop before every such request. A receiver of a worker's own (none
    today) would bring the hop back, not skip its work."""
    signals.request_started.disconnect(reset_queries)
    signals.request_started.disconnect(close_old_connections)


def warm_up() -> None:
    """Each app's warm-up (its AppConfig's `warm_up()`), as a web worker starts; then what
    start-up loaded (Django, the URLconf, the agents' schemas: hundreds of thousands of
    objects) is moved out of the garbage collector's sight. Its full collections then walk only
    what requests create, rather than pausing a request now and then to walk all of it."""
    for config in apps.get_app_configs():
        warm = getattr(config, "warm_up", None)
        if warm is not None:
            warm()
    gc.collect()
    gc.freeze()


async def _lifespan(receive: Receive, send: Send) -> None:
    """Warm the worker before it takes requests, and run the agents' servers while it serves;
    stop its pools when it stops."""
    async with contextlib.AsyncExitStack() as running:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                checked_by_the_pools()
                await asyncio.get_running_loop().run_in_executor(_gateway.pool, warm_up)
                for config in apps.get_app_configs():  # then what needs the event loop
                    if (awarm := getattr(config, "awarm_up", None)) is not None:
                        await awarm()
                await asyncio.gather(_gateway.pool.connect(), _gateway.steps.connect())
                await running.enter_async_context(_agents.running())
                telemetry.start("gateway-web")  # after warm-up: its rehearsals are no trace
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await running.aclose()
                _gateway.pool.shutdown(wait=False, cancel_futures=True)
                _gateway.steps.shutdown(wait=False, cancel_futures=True)
                telemetry.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    """The ASGI application (`gunicorn gateway.asgi:application -k gateway.web_worker...`)."""
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    await _served(scope, receive, send)
