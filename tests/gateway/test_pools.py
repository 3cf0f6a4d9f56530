"""The steps' pool (gateway/pools.py): a step marked as the answer after a wait (kernel/steps.py)
runs behind the steps still to run that are not, so a new request's checks never wait for the
answers queued before it; each lane keeps its order; a pool that stops cancels what waits."""

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError, Future
from contextvars import copy_context
from typing import Any

import pytest
from asgiref.sync import ThreadSensitiveContext, sync_to_async

from gateway.pools import StepsPool
from kernel.steps import AFTER_THE_WAIT, after_the_wait


@pytest.fixture
def pool() -> Iterator[StepsPool]:
    steps = StepsPool(1, thread_name_prefix="test-steps")
    yield steps
    steps.shutdown(wait=True, cancel_futures=True)


def busy(pool: StepsPool) -> threading.Event:
    """Hold the pool's one thread until the returned event is set."""
    started, release = threading.Event(), threading.Event()

    def hold() -> None:
        started.set()
        release.wait(timeout=10)

    pool.submit(hold)
    assert started.wait(timeout=10)
    return release


def queued(pool: StepsPool, ran: list[str], *steps: tuple[str, bool]) -> list[Future[Any]]:
    """Each (name, after the wait) step handed over in turn, recording its name as it runs."""
    return [submitted(pool, ran, name, after=after) for name, after in steps]


def submitted(pool: StepsPool, ran: list[str], name: str, *, after: bool) -> Future[Any]:
    def step() -> str:
        ran.append(name)
        return name

    def submit() -> Future[Any]:
        AFTER_THE_WAIT.set(after)
        return pool.submit(step)

    return copy_context().run(submit)


def test_steps_after_a_wait_run_behind_the_others_each_lane_in_its_order(pool):
    ran: list[str] = []
    release = busy(pool)
    futures = queued(
        pool, ran, ("answer 1", True), ("check 1", False), ("answer 2", True), ("check 2", False)
    )
    release.set()

    assert [future.result(timeout=10) for future in futures] == [
        "answer 1",
        "check 1",
        "answer 2",
        "check 2",
    ]
    assert ran == ["check 1", "check 2", "answer 1", "answer 2"]


def test_an_answer_handed_over_through_asgiref_goes_behind_a_check_handed_over_after_it(pool):
    """As the web role hands steps over: sync_to_async in the outermost ThreadSensitiveContext
    with the pool, the marker read in the context of the coroutine handing the step over."""
    ran: list[str] = []

    def record(name: str) -> str:
        ran.append(name)
        return threading.current_thread().name

    async def serve() -> list[str]:
        async with ThreadSensitiveContext(executor=pool):
            release = busy(pool)
            answer = asyncio.ensure_future(after_the_wait(lambda: record("answer")))
            await asyncio.sleep(0.05)  # the answer is handed over first
            check = asyncio.ensure_future(sync_to_async(record)("check"))
            await asyncio.sleep(0.05)
            release.set()
            return list(await asyncio.gather(answer, check))

    threads = asyncio.run(serve())

    assert ran == ["check", "answer"]
    assert all(name.startswith("test-steps") for name in threads)
    assert AFTER_THE_WAIT.get() is False  # the marker does not outlive its step


def test_a_step_that_raises_hands_its_error_to_its_caller_and_the_thread_goes_on(pool):
    def fails() -> None:
        raise LookupError("no such row")

    with pytest.raises(LookupError, match="no such row"):
        pool.submit(fails).result(timeout=10)
    assert pool.submit(lambda: "next").result(timeout=10) == "next"


def test_a_pool_stopping_cancels_the_steps_still_waiting_and_takes_no_more(pool):
    ran: list[str] = []
    release = busy(pool)
    waiting = queued(pool, ran, ("check", False), ("answer", True))

    pool.shutdown(wait=False, cancel_futures=True)
    release.set()

    for future in waiting:
        with pytest.raises(CancelledError):
            future.result(timeout=10)
    with pytest.raises(RuntimeError, match="after shutdown"):
        pool.submit(lambda: None)
    pool.shutdown(wait=True)
    assert ran == []


def test_without_the_pool_an_answer_after_the_wait_runs_as_sync_to_async_alone_would():
    """Under Django's test client, or any other executor, the marker changes nothing."""
    assert asyncio.run(after_the_wait(lambda: 6 * 7)) == 42
