"""The Celery app: Redis broker when configured, else a filesystem broker under var/; its
processes measured (gateway/celery_metrics.py)."""

import os

from celery import Celery, signals

from gateway import celery_metrics

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
