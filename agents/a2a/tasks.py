"""Where A2A tasks are kept: the `tasks` cache (its own Redis prefix, or its own files on the
embedded default; kernel/cache.py), so `tasks/get` finds a finished task from any worker and
no flood of tasks can push a throttle counter out.

What a task keeps is bounded. Its history holds the operation asked and its arguments, never the
caller's own message (agents/a2a/executor.py); a completed task is kept A2A_TASK_TTL_S, a failed
one A2A_FAILED_TASK_TTL_S (minutes: it says no more than its error did); and a task larger than
A2A_TASK_MAX_BYTES is kept without its history and artifacts, its metadata saying why: the
caller had the whole answer from message/send, `tasks/get` answers its state. A credential
in what was asked or answered (an intent's `demand_token`) is shown once, by message/send, and
never kept: whoever learns a task's id must not learn it.

Tasks are kept by owner and id (agents/a2a/callers.py): the owner of a caller that sends its
caller key, or no one's (the anonymous owner, "") for a caller without one, whose tasks are read
by whoever holds a task's id, a random UUID. ListTasks lists a key holder's tasks, through an
index of them kept beside them, and no anonymous caller's (agents/a2a/listing.py).
"""

import logging
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.owner_resolver import OwnerResolver, resolve_user_scope
from a2a.server.tasks.task_store import TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Part, Task, TaskState
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches
from redis.exceptions import RedisError

from agents.a2a import listing
from kernel.outages import store_down

logger = logging.getLogger(__name__)

KEY = "a2a:task:{owner}:{task_id}"
ALIAS = "tasks"
# The metadata key of a task kept without its result.
NOT_KEPT = "gateway_not_kept"
# Keys of the operations' arguments and answers that hold a credential, never kept.
CREDENTIALS = frozenset({"demand_token"})


def _drop_credentials(value: Any) -> None:
    """Drop CREDENTIALS from a protobuf Value (a data part's JSON), at any depth."""
    if value.HasField("struct_value"):
        fields = value.struct_value.fields
        for key in CREDENTIALS.intersection(fields):
            del fields[key]
        for inner in fields.values():
            _drop_credentials(inner)
    elif value.HasField("list_value"):
        for inner in value.list_value.values:
            _drop_credentials(inner)


def without_credentials(task: Task) -> Task:
    """A copy of `task` whose data parts hold no credential (CREDENTIALS), at any depth."""
    copy = Task()
    copy.CopyFrom(task)
    parts: list[Part] = [part for message in copy.history for part in message.parts]
    parts += [part for artifact in copy.artifacts for part in artifact.parts]
    for part in parts:
        if part.HasField("data"):
            _drop_credentials(part.data)
    return copy


def kept(task: Task) -> bytes:
    """The bytes kept of `task`: the whole task without its credentials, or its state alone
    past A2A_TASK_MAX_BYTES."""
    task = without_credentials(task)
    data = task.SerializeToString()
    limit = settings.A2A_TASK_MAX_BYTES
    if len(data) <= limit:
        return data
    trimmed = Task()
    trimmed.CopyFrom(task)
    del trimmed.history[:]
    del trimmed.artifacts[:]
    trimmed.metadata.update(
        {
            NOT_KEPT: (
                f"The task's result ({len(data):,} bytes) is larger than the {limit:,} bytes "
                "a task keeps (A2A_TASK_MAX_BYTES); it was answered whole once, by "
                "message/send. Ask again for it."
            )
        }
    )
    data = trimmed.SerializeToString()
    if len(data) > limit:  # a status message that large: the state alone
        trimmed.status.ClearField("message")
        data = trimmed.SerializeToString()
    return data


def lifetime(task: Task) -> int:
    """Seconds a task is kept: minutes when it failed, A2A_TASK_TTL_S otherwise."""
    if task.status.state == TaskState.TASK_STATE_FAILED:
        return int(settings.A2A_FAILED_TASK_TTL_S)
    return int(settings.A2A_TASK_TTL_S)


def task_key(owner: str, task_id: str) -> str:
    return KEY.format(owner=owner, task_id=task_id)


def _store_down(exc: Exception) -> bool:
    """Whether `exc` says the store did not answer (Redis down or full: django-redis wraps the
    client's errors), rather than a bug."""
    return isinstance(exc, RedisError) or store_down(exc) == "cache"


class CacheTaskStore(TaskStore):
    def __init__(self, alias: str = ALIAS, owner_resolver: OwnerResolver = resolve_user_scope):
        self.alias = alias
        self.owner_resolver = owner_resolver

    def _key(self, task_id: str, context: ServerCallContext) -> str:
        return task_key(self.owner_resolver(context), task_id)

    def _save(self, task: Task, owner: str) -> None:
        store = caches[self.alias]
        store.set(task_key(owner, task.id), kept(task), lifetime(task))
        if owner:  # only a key holder's tasks are listed
            listing.record(store, owner, listing.entry_of(task, lifetime(task)))

    async def save(self, task: Task, context: ServerCallContext) -> None:
        """Keep `task`. A store that is down or full costs the task's later reads, never the
        answer to the message."""
        try:
            await sync_to_async(self._save, thread_sensitive=False)(
                task, self.owner_resolver(context)
            )
        except Exception as exc:
            if not _store_down(exc):
                raise
            # The class of the error, never its text (it may spell out a host or a user).
            logger.warning("A2A task store unavailable (%s), task not kept", type(exc).__name__)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        key = self._key(task_id, context)
        data = await sync_to_async(caches[self.alias].get, thread_sensitive=False)(key)
        if data is None:
            return None
        task = Task()
        task.ParseFromString(data)
        return task

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        owner = self.owner_resolver(context)
        return await sync_to_async(listing.page, thread_sensitive=False)(
            caches[self.alias], owner, params, lambda task_id: task_key(owner, task_id)
        )

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        owner = self.owner_resolver(context)

        def delete() -> None:
            store = caches[self.alias]
            store.delete(task_key(owner, task_id))
            if owner:
                listing.forget(store, owner, task_id)

        await sync_to_async(delete, thread_sensitive=False)()
