"""The Celery app: Redis broker when configured, else a filesystem broker under var/; its
processes measured (gateway/celery_metrics.py)."""

import logging.config
import os
from typing import Any

from celery import Celery, signals
from django.conf import settings

from gateway import celery_metrics, log_context, telemetry

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gateway.settings")

app = Celery("gateway")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The project's app is every thread's current app: `celery.current_app` (what the kernel's
# dispatcher sends with) is otherwise a fresh unconfigured app in any thread but this one.
app.set_default()

signals.task_postrun.connect(celery_metrics.task_finished, weak=False)
signals.worker_process_shutdown.connect(celery_metrics.process_stopped, weak=False)
signals.worker_shutdown.connect(celery_metrics.process_stopped, weak=False)


# Traces (gateway/telemetry.py), set up where the tasks run: in the worker's own process (the
# Procfile's thread pools), or in each child of a prefork pool, after it is forked.
@signals.worker_init.connect(weak=False)
@signals.worker_process_init.connect(weak=False)
def _start_tracing(**_: Any) -> None:
    telemetry.start("gateway-worker")


@signals.worker_shutdown.connect(weak=False)
@signals.worker_process_shutdown.connect(weak=False)
def _stop_tracing(**_: Any) -> None:
    telemetry.stop()


# celeryd_init: before the worker checks its privileges, whose warning is then a JSON line too.
@signals.celeryd_init.connect(weak=False)
@signals.after_setup_logger.connect(weak=False)
def _json_logging(**_: Any) -> None:
    """With LOG_FORMAT=json, Celery's processes log in JSON lines as Django's do
    (gateway/logging_settings.py), in place of the format Celery gives its own handler, and
    Python's warnings (Celery's SecurityWarning) are log records, not text on stderr."""
    if settings.LOG_FORMAT == "json":
        logging.config.dictConfig(settings.LOGGING)
        logging.captureWarnings(True)


@signals.task_prerun.connect(weak=False)
def _task_started(task_id: str, task: Any, **_: Any) -> None:
    log_context.task.set((task_id, task.name))  # each log line of the task names it


@signals.task_postrun.connect(weak=False)
def _task_finished(**_: Any) -> None:
    log_context.task.set(None)
