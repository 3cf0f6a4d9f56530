"""Tasks sent by name once the work they name is committed, with the broker allowed to be down.

Every task the gateway sends names a row that says, by itself, that work is due (a delivery, a
verification, an event to fan out), and a sweep sent by beat finds the due rows whose task never
arrived. So a task that cannot be sent is logged and dropped, never raised to the request that
wrote the row: the sweep sends it later. Tasks are sent by name, so that the use cases that send
them need not import the tasks module that calls them. They go through Celery's `current_app`,
which the project makes its own app in every thread (gateway/celery.py), so the kernel needs
no import of the project package.
"""

import logging
from functools import partial
from typing import Any

from celery import current_app
from django.db import transaction
from kombu.exceptions import OperationalError

logger = logging.getLogger(__name__)


def dispatch(task: str, *args: Any, **options: Any) -> bool:
    """Send the task named `task` with these arguments now (`options` as Celery's `queue`,
    `expires`); False when the broker is unavailable, the sweep sending it later."""
    try:
        current_app.send_task(task, args, retry=False, **options)
    except (OperationalError, OSError) as exc:
        logger.warning("broker unavailable, the sweep will send %s: %s", task, exc)
        return False
    return True


def dispatch_after_commit(task: str, *args: Any, **options: Any) -> None:
    """`dispatch` once the current transaction commits (at once outside of one): a worker never
    looks for a row that is not committed yet, nor for one rolled back."""
    transaction.on_commit(partial(dispatch, task, *args, **options))


def waiting(*queues: str) -> int | None:
    """How many messages wait in these queues of the broker (reserved by a worker or not sent
    yet, none counted); None when the broker cannot be asked."""
    with current_app.connection_for_write() as conn:
        errors: tuple[type[BaseException], ...] = (
            OperationalError,
            OSError,
            *conn.connection_errors,
            *conn.channel_errors,
        )
        try:
            channel: Any = conn.default_channel
            counts: list[int] = [
                channel.queue_declare(queue=queue).message_count for queue in queues
            ]
        except errors as exc:
            logger.warning("broker unavailable, its queues unread: %s", exc)
            return None
        return sum(counts)
