"""The web role's two pools of threads (gateway/asgi.py): the synchronous views' pool, and the
steps' pool of the views that wait on the outside world. Their threads keep their database
connections between jobs, checked around each job as Django checks them around a request.

The steps' pool runs a step marked as the answer after a wait (kernel/steps.py) behind every
other step waiting to run: in the order steps were handed over, the answers already queued held
up each new request's checks, and with them the start of its wait (docs/serving.md).
"""

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from functools import partial
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, close_old_connections, connection, reset_queries

from kernel.steps import AFTER_THE_WAIT


def _fresh(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run `fn` with this thread's database connections checked before and after, as Django
    checks them around each request: one that broke or aged out is closed, never reused (and
    the query log of DEBUG emptied, as Django empties it as a request starts)."""
    reset_queries()
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


class _Connecting:
    """What both pools do as a worker starts: open every thread's connections."""

    threads: int

    async def connect(self: Any) -> None:
        """Start every thread and open its connections, to the database and to each cache
        (Django keeps both per thread), as a worker starts: the first requests then pay for
        none of them (a PostgreSQL or Redis connection costs milliseconds). A database or cache
        that is down is the requests' concern, not the worker's start."""
        everyone = threading.Barrier(self.threads)

        def connect() -> None:
            with contextlib.suppress(threading.BrokenBarrierError):
                everyone.wait(timeout=30)  # one job on each thread
            with contextlib.suppress(DatabaseError):
                connection.ensure_connection()
            for alias in settings.CACHES:
                with contextlib.suppress(Exception):  # whatever a cache backend raises
                    caches[alias].get("warm-up")

        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self, connect) for _ in range(self.threads)))


class ConnectionKeepingPool(_Connecting, ThreadPoolExecutor):
    """Threads that keep their database connections between jobs, checked around each job."""

    def __init__(self, threads: int, thread_name_prefix: str) -> None:
        super().__init__(threads, thread_name_prefix=thread_name_prefix)
        self.threads = threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return super().submit(_fresh, fn, *args, **kwargs)


_Job = tuple[Future[Any], Callable[[], Any]]


class StepsPool(_Connecting, Executor):
    """The steps' pool: threads that keep their connections, and two lanes. A step handed over
    with kernel.steps.AFTER_THE_WAIT set (an answer after the engine) runs once no other step
    waits; each lane keeps the order its steps were handed over in."""

    def __init__(self, threads: int, thread_name_prefix: str) -> None:
        self.threads = threads
        self._first: deque[_Job] = deque()
        self._after: deque[_Job] = deque()
        self._ready = threading.Condition()
        self._stopping = False
        self._workers = [
            threading.Thread(target=self._work, name=f"{thread_name_prefix}_{n}", daemon=True)
            for n in range(threads)
        ]
        for worker in self._workers:
            worker.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._ready:
            if self._stopping:
                raise RuntimeError("cannot schedule new futures after shutdown")
            lane = self._after if AFTER_THE_WAIT.get() else self._first
            lane.append((future, partial(_fresh, fn, *args, **kwargs)))
            self._ready.notify()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._ready:
            self._stopping = True
            if cancel_futures:
                for future, _ in (*self._first, *self._after):
                    future.cancel()
                self._first.clear()
                self._after.clear()
            self._ready.notify_all()
        if wait:
            for worker in self._workers:
                worker.join()

    def _next(self) -> _Job | None:
        """The next step to run, or None once the pool stops with nothing left to run."""
        with self._ready:
            while not (self._first or self._after or self._stopping):
                self._ready.wait()
            lane = self._first or self._after
            return lane.popleft() if lane else None

    def _work(self) -> None:
        while (job := self._next()) is not None:
            future, step = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(step())
            except BaseException as error:
                future.set_exception(error)
            del job, future, step  # a finished step's objects are not kept until the next
