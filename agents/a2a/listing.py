"""ListTasks: the tasks of one caller, most recently updated first, a page at a time.

Each owner of a caller key (agents/a2a/callers.py) has an index beside its tasks in the
`tasks` store: one entry per task (its status timestamp, id, a digest of its context id, its
state, and when it expires: a few dozen bytes, however long the context id), the INDEX_ENTRIES
most recent at most, the index itself kept as long as its longest-lived task. A listing drops
what expired, filters the rest as ListTasks asks (`contextId`, `status`,
`statusTimestampAfter`), orders it by status timestamp, then id, both descending, and reads the
tasks of one page (`pageSize`: DEFAULT_LIST_TASKS_PAGE_SIZE unless asked, at most
MAX_LIST_TASKS_PAGE_SIZE); `totalSize` counts every task of the listing. The anonymous owner
("") has no index: its listing is empty, since any anonymous caller may be anyone.

A page token names the last task of its page (timestamp and id), signed under SECRET_KEY
(django.core.signing) with the owner and the filters it was made for: it serves the same
caller asking the same listing, and any other token (another caller's, another filter's, one
altered or made up) is refused as invalid params. The next page begins strictly after the task
the token names, wherever that task now is: one that expired meanwhile shifts nothing.

A task saved rewrites its owner's index, under a short lock in the shared `default` store, so
that two workers saving tasks of one caller at once both land in it. The lock is a courtesy,
not a condition: past LOCK_WAIT_S the index is written without it. A store that drops a task
before its time (the embedded default's file store culls past A2A_TASK_STORE_ENTRIES) leaves an
entry without its task: a page skips it, and `totalSize` counts it until it expires; one that
drops the index itself starts it again with the next task saved.
"""

import hashlib
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task
from a2a.utils.constants import DEFAULT_LIST_TASKS_PAGE_SIZE
from a2a.utils.errors import InvalidParamsError
from django.core import signing
from django.core.cache import BaseCache, caches

INDEX_KEY = "a2a:index:{owner}"
INDEX_ENTRIES = 1_000
LOCK_KEY = "a2a:index-lock:{owner}"
LOCK_S = 5  # how long a lock is held at most, should its holder die holding it
LOCK_WAIT_S = 0.5
LOCK_POLL_S = 0.02
LOCKS = "default"
PAGE_SALT = "agents.a2a.listing.page"


class Entry(NamedTuple):
    """One task in its owner's index."""

    timestamp_ns: int
    task_id: str
    context: str  # context_mark(the task's context id)
    state: int
    expires: float  # seconds since the epoch

    @property
    def position(self) -> tuple[int, str]:
        return self.timestamp_ns, self.task_id


def context_mark(context_id: str) -> str:
    """What an index keeps of a context id: a digest of fixed size."""
    return hashlib.blake2b(context_id.encode(), digest_size=12).hexdigest()


def entry_of(task: Task, lifetime_s: int) -> Entry:
    stamped = task.status.HasField("timestamp")
    return Entry(
        task.status.timestamp.ToNanoseconds() if stamped else 0,
        task.id,
        context_mark(task.context_id),
        int(task.status.state),
        time.time() + lifetime_s,
    )


def _live(entries: Any) -> list[Entry]:
    """The entries of a stored index that have not expired."""
    now = time.time()
    return [Entry(*entry) for entry in entries or () if entry[4] > now]


def record(store: BaseCache, owner: str, entry: Entry) -> None:
    """Put `entry` in the index of `owner` (replacing an entry of the same task)."""
    locks = caches[LOCKS]
    lock = LOCK_KEY.format(owner=owner)
    deadline = time.monotonic() + LOCK_WAIT_S
    held = locks.add(lock, 1, timeout=LOCK_S)
    while not held and time.monotonic() < deadline:
        time.sleep(LOCK_POLL_S)
        held = locks.add(lock, 1, timeout=LOCK_S)
    try:
        key = INDEX_KEY.format(owner=owner)
        stored = [kept for kept in store.get(key) or () if kept[1] != entry.task_id]
        entries = _live([*stored, entry])
        if not entries:
            return
        entries.sort(key=lambda kept: kept.position, reverse=True)
        del entries[INDEX_ENTRIES:]
        lasts = max(kept.expires for kept in entries) - time.time()
        store.set(key, [tuple(kept) for kept in entries], max(1, int(lasts) + 1))
    finally:
        if held:
            locks.delete(lock)


def forget(store: BaseCache, owner: str, task_id: str) -> None:
    """Take the task `task_id` out of the index of `owner`."""
    key = INDEX_KEY.format(owner=owner)
    entries = [kept for kept in _live(store.get(key)) if kept.task_id != task_id]
    if entries:
        lasts = max(kept.expires for kept in entries) - time.time()
        store.set(key, [tuple(kept) for kept in entries], max(1, int(lasts) + 1))
    else:
        store.delete(key)


def _salt(owner: str, params: ListTasksRequest) -> str:
    """What a page token is bound to: its caller and its listing's filters."""
    after = params.status_timestamp_after.ToNanoseconds()
    if not params.HasField("status_timestamp_after"):
        after = -1
    return f"{PAGE_SALT}|{owner}|{params.context_id}|{int(params.status)}|{after}"


def _token(owner: str, params: ListTasksRequest, last: Entry) -> str:
    return signing.dumps(list(last.position), salt=_salt(owner, params))


def _after(owner: str, params: ListTasksRequest) -> tuple[int, str]:
    """The position a page token names. Raises InvalidParamsError for any token this listing
    did not give."""
    try:
        timestamp_ns, task_id = signing.loads(params.page_token, salt=_salt(owner, params))
    except (signing.BadSignature, TypeError, ValueError):
        raise InvalidParamsError(
            "The pageToken is not one a listing gave this caller for these filters: pass the "
            "nextPageToken of the previous page, with the same contextId, status and "
            "statusTimestampAfter."
        ) from None
    return int(timestamp_ns), str(task_id)


def _wanted(entry: Entry, params: ListTasksRequest) -> bool:
    if params.context_id and entry.context != context_mark(params.context_id):
        return False
    if params.status and entry.state != params.status:
        return False
    if params.HasField("status_timestamp_after"):
        return entry.timestamp_ns >= params.status_timestamp_after.ToNanoseconds()
    return True


def page(
    store: BaseCache, owner: str, params: ListTasksRequest, task_key: Callable[[str], str]
) -> ListTasksResponse:
    """One page of the tasks of `owner` as `params` asks; `task_key` names a task's entry in
    `store`."""
    size = params.page_size if params.HasField("page_size") else DEFAULT_LIST_TASKS_PAGE_SIZE
    if not owner:
        if params.page_token:
            _after(owner, params)  # a token is refused here as anywhere
        return ListTasksResponse(next_page_token="", page_size=size, total_size=0)
    selected = [
        entry for entry in _live(store.get(INDEX_KEY.format(owner=owner))) if _wanted(entry, params)
    ]
    selected.sort(key=lambda entry: entry.position, reverse=True)
    start = 0
    if params.page_token:
        after = _after(owner, params)
        start = next(
            (i for i, entry in enumerate(selected) if entry.position < after), len(selected)
        )
    window = selected[start : start + size]
    keys = [task_key(entry.task_id) for entry in window]
    found = store.get_many(keys)
    tasks = []
    for key in keys:
        if key in found:
            task = Task()
            task.ParseFromString(found[key])
            tasks.append(task)
    more = start + size < len(selected)
    return ListTasksResponse(
        tasks=tasks,
        next_page_token=_token(owner, params, window[-1]) if more else "",
        page_size=size,
        total_size=len(selected),
    )
