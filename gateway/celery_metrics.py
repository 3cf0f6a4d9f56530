"""The Celery processes' part in the host's metrics (gateway/celery.py connects these to
Celery's signals): every task run counted by name and state, so that a beat that stopped sending
its sweeps shows; and a worker process that stops marked dead (gateway/metrics_files.py)."""

import functools
import os
from typing import Any

from gateway import metrics_files
from kernel import metrics


@functools.cache
def _runs() -> Any:
    # Declared at the first run, once the settings are loaded (gateway/celery.py is imported
    # before them).
    return metrics.counter(
        "gateway_celery_tasks",
        "Task runs finished on this host's workers, by task and state (SUCCESS, FAILURE, ...).",
        ("task", "state"),
    )


def task_finished(sender: Any = None, state: str | None = None, **kwargs: Any) -> None:
    _runs().labels(getattr(sender, "name", "unknown"), state or "unknown").inc()


def process_stopped(**kwargs: Any) -> None:
    metrics_files.process_ended(os.getpid())
