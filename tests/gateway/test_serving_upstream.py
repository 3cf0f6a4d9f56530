"""Canaries of what the web role (gateway/asgi.py) takes from Django, asgiref and adrf: each
fails on the upgrade that changes it, and says what to re-check.

- The coroutine views are served by Django's own `ASGIHandler.__call__`, inside a
  `ThreadSensitiveContext` with the steps' executor: asgiref lets the outermost context with an
  executor choose where thread-sensitive calls run, even inside the plain context Django opens.
- The synchronous views are served as Django's WSGI handler serves them (`request_started`,
  `create_request`, `get_response` on a synchronous chain), on a thread of the pool:
  `GatewayHandler._respond` is written after `ASGIHandler.handle` and `WSGIHandler.__call__`.
- Django's `request_started` receivers are its own two (empty the query log, close aged or broken
  connections), which the pools run around every job instead (`checked_by_the_pools`).
- adrf's ViewSet makes a view whose actions are coroutines a coroutine function: that is how the
  handler tells the views that wait from the others. adrf asks the view whether it is one on
  every request (`view_is_async`), which kernel/asyncviews.py answers once per class.
"""

import asyncio
import hashlib
import inspect
import threading

from adrf.viewsets import ViewSet
from asgiref.sync import ThreadSensitiveContext, iscoroutinefunction, sync_to_async
from django.core import signals
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIHandler
from django.db import close_old_connections, connection, reset_queries
from django.test.utils import CaptureQueriesContext
from django.urls import resolve

from gateway import asgi, pools
from gateway.pools import StepsPool
from kernel import asyncviews

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
    steps = StepsPool(1, thread_name_prefix="canary-steps")

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


def test_adrf_asks_each_request_whether_the_view_waits_and_gets_adrfs_own_answer(
    db, client, engine
):
    """kernel/asyncviews.py keeps adrf's answer per class; it must be adrf's answer, and adrf
    must still be asking (else the kept answer is dead code, or adrf answers otherwise)."""
    view = resolve("/v1/recommend").func.cls  # type: ignore[attr-defined]
    asyncviews._ASYNC.pop(view, None)

    response = client.get("/v1/recommend", {"intent": "anything"})

    assert response.status_code == 200
    assert view in asyncviews._ASYNC, (
        "adrf no longer reads view_is_async as it dispatches a request: drop the kept answer "
        "in kernel/asyncviews.py, or keep it where adrf now asks."
    )
    adrfs_own = ViewSet.__dict__["view_is_async"].fget
    for waiting in (view, resolve("/v1/intents").func.cls):  # type: ignore[attr-defined]
        assert waiting.view_is_async is adrfs_own(waiting) is True

    class Synchronous(asyncviews.WaitingViewSet):
        def list(self, request: object) -> None: ...

    assert Synchronous.view_is_async is adrfs_own(Synchronous) is False


def test_the_pools_do_what_djangos_request_started_receivers_did(db):
    """A coroutine request starts without a hop to the steps' thread for Django's receivers:
    the pools empty the query log and check the connections around every job instead."""
    receivers = [receiver() for _, receiver, *_ in signals.request_started.receivers]
    assert receivers == [reset_queries, close_old_connections], (
        "Django's request_started receivers changed: re-check gateway/asgi.py "
        "(checked_by_the_pools) and gateway/pools.py (_fresh), which runs Django's two "
        "itself around every job."
    )
    try:
        asgi.checked_by_the_pools()
        assert not signals.request_started.has_listeners()
        with CaptureQueriesContext(connection):  # the query log kept, as under DEBUG
            connection.queries_log.append({"sql": "an earlier request's", "time": "0"})
            assert pools._fresh(lambda: len(connection.queries_log)) == 0
            connection.errors_occurred = True  # a failed query: checked, kept if usable
            assert pools._fresh(lambda: connection.connection is not None)
    finally:
        signals.request_started.connect(reset_queries)
        signals.request_started.connect(close_old_connections)
