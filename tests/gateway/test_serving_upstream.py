"""Canaries of what the web role (gateway/asgi.py) takes from Django, asgiref and adrf: each
fails on the upgrade that changes it, and says what to re-check.

- The coroutine views are served by Django's own `ASGIHandler.__call__`, inside a
  `ThreadSensitiveContext` with the steps' executor: asgiref lets the outermost context with an
  executor choose where thread-sensitive calls run, even inside the plain context Django opens.
- The synchronous views are served as Django's WSGI handler serves them (`request_started`,
  `create_request`, `get_response` on a synchronous chain), on a thread of the pool:
  `GatewayHandler._respond` is written after `ASGIHandler.handle` and `WSGIHandler.__call__`.
- adrf's ViewSet makes a view whose actions are coroutines a coroutine function: that is how the
  handler tells the views that wait from the others.
"""

import asyncio
import hashlib
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, iscoroutinefunction, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIHandler
from django.urls import resolve

# The source of each upstream function the handler relies on, as it was checked: Django 5.2,
# and 6.0 (which changed only how send_response and WSGIHandler.__call__ write cookies).
CHECKED = {
    ASGIHandler.__call__: {"f756809e9c9308dc"},
    ASGIHandler.handle: {"98faeb5bef800331"},
    ASGIHandler.create_request: {"5eae59c6696013ff"},
    ASGIHandler.send_response: {"77eda2b08689b44e", "d91e83d2c6859eda"},
    WSGIHandler.__call__: {"8391f497d588b2a0", "10db1647b7553f93"},
    BaseHandler.get_response: {"3d6a79b124c2cccb"},
}


def fingerprint(function: object) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]  # type: ignore[arg-type]


def test_the_django_handler_code_the_gateway_relies_on_is_the_code_it_was_checked_against():
    changed = [
        function.__qualname__
        for function, checked in CHECKED.items()
        if fingerprint(function) not in checked
    ]

    assert changed == [], (
        f"Django changed {', '.join(changed)}. Re-check gateway/asgi.py against it: "
        "GatewayHandler._respond serves a synchronous view as ASGIHandler.handle and "
        "WSGIHandler.__call__ do (script prefix, request_started, create_request, the "
        "synchronous chain's get_response), and the coroutine views rely on "
        "ASGIHandler.__call__ opening a plain ThreadSensitiveContext() around handle(). "
        "Then update CHECKED with the new fingerprints."
    )


def test_the_outermost_context_with_an_executor_runs_the_steps_inside_djangos_own_context():
    steps = ThreadPoolExecutor(1, thread_name_prefix="canary-steps")

    async def serve() -> str:
        # The inner context is the one ASGIHandler.__call__ opens.
        async with ThreadSensitiveContext(executor=steps), ThreadSensitiveContext():
            return await sync_to_async(lambda: threading.current_thread().name)()

    try:
        ran_on = asyncio.run(serve())
    finally:
        steps.shutdown()

    assert ran_on.startswith("canary-steps"), (
        "asgiref no longer runs thread-sensitive calls on the executor of the outermost "
        "ThreadSensitiveContext: the coroutine views' steps would leave the steps' pool "
        f"(ran on {ran_on}). Re-check gateway/asgi.py (GatewayHandler.__call__)."
    )


def test_adrf_views_with_coroutine_actions_are_coroutine_functions():
    paths = ["/v1/recommend", "/v1/intents", "/v1/merchant/m-1/health"]

    assert [iscoroutinefunction(resolve(path).func) for path in paths] == [True] * 3, (
        "adrf's ViewSet.as_view no longer returns a coroutine function for a ViewSet with "
        "coroutine actions: gateway/asgi.py would serve those views on the synchronous pool, "
        "each holding a thread while it waits on the engine or a merchant."
    )
    assert not iscoroutinefunction(resolve("/v1/cards/rec_1").func)
