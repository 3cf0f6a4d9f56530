"""Which of a waiting view's synchronous steps go first on the web role's steps' thread.

A view that waits on the outside world (a recommend waiting on the language model) hands its
synchronous steps to one thread (gateway/asgi.py): the checks and lookups before its wait, a
millisecond or so, and the answer after it, retrieval, ranking and the rows to write, several.
In the order they were handed over, a request that had just arrived waited for its checks
behind every answer already queued, and so began its own wait only once they were all done:
requests that arrived apart began waiting together, were answered together, and queued behind
one another again, wave after wave, each answer later by the whole queue ahead of it
(docs/serving.md, "Steps before a wait go first").

So a step marked as the answer after a wait (`after_the_wait`) goes behind every step waiting
to run that is not: a new request's checks run after at most one answer, it begins its wait at
once, and the answers come back as spread out as their requests arrived. Answers keep their
order among themselves, and every other step keeps its order too.
"""

from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

from asgiref.sync import sync_to_async

T = TypeVar("T")

# Read by the steps' pool as a step is handed to it, in the context of the coroutine handing it.
AFTER_THE_WAIT: ContextVar[bool] = ContextVar("after_the_wait", default=False)


async def after_the_wait(step: Callable[[], T]) -> T:
    """`step` run as sync_to_async runs it, behind the steps of requests still to begin their
    wait (on the web role's steps' pool; elsewhere, as sync_to_async alone would)."""
    marked = AFTER_THE_WAIT.set(True)
    try:
        return await sync_to_async(step)()
    finally:
        AFTER_THE_WAIT.reset(marked)
