"""The intent engine's own event loop, on a thread of its own in each web worker.

litellm spends some 4 ms of CPU on each call, building the request and reading the answer. On
the worker's event loop, that work came in runs: when 30 answers arrived together, the loop
read them one after another before it parsed the next request, and a card lookup arriving then
waited behind them (p99 52-76 ms beside 64 cold recommends). Here litellm's coroutines run on a
loop of their own; the worker's loop only awaits their results, and both threads share the
interpreter in turns of a few milliseconds (card lookups p99 31-42 ms in the same test).

Everything litellm keeps for its async calls (HTTP clients, sessions) belongs to this loop, so
every async call goes through `run`.
"""

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _running_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(
                target=_loop.run_forever, name="intent-engine-loop", daemon=True
            ).start()
        return _loop


async def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Await `coroutine` run on the engine's loop. Cancelling the caller (its deadline, say)
    cancels it there too."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, _running_loop()))
