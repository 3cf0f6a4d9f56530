"""Where A2A tasks are kept: the gateway's cache (Redis, or the embedded default's files), for
A2A_TASK_TTL_S after their last change, so `tasks/get` finds a finished task from any worker.

Tasks are kept by owner and id. The gateway's A2A callers are anonymous, so every task has the
same owner: listing tasks would show each caller everyone's shopping, and is refused. A task id
is a random UUID; who holds it may read the task.
"""

from a2a.server.context import ServerCallContext
from a2a.server.owner_resolver import OwnerResolver, resolve_user_scope
from a2a.server.tasks.task_store import TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task
from a2a.utils.errors import UnsupportedOperationError
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches

KEY = "a2a:task:{owner}:{task_id}"


class CacheTaskStore(TaskStore):
    def __init__(self, alias: str = "default", owner_resolver: OwnerResolver = resolve_user_scope):
        self.alias = alias
        self.owner_resolver = owner_resolver

    def _key(self, task_id: str, context: ServerCallContext) -> str:
        return KEY.format(owner=self.owner_resolver(context), task_id=task_id)

    async def save(self, task: Task, context: ServerCallContext) -> None:
        key, data = self._key(task.id, context), task.SerializeToString()
        await sync_to_async(caches[self.alias].set, thread_sensitive=False)(
            key, data, settings.A2A_TASK_TTL_S
        )

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        key = self._key(task_id, context)
        data = await sync_to_async(caches[self.alias].get, thread_sensitive=False)(key)
        if data is None:
            return None
        task = Task()
        task.ParseFromString(data)
        return task

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        raise UnsupportedOperationError(
            "Tasks are not listed: every caller is anonymous. Read a task by its id."
        )

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        key = self._key(task_id, context)
        await sync_to_async(caches[self.alias].delete, thread_sensitive=False)(key)
