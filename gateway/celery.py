"""The Celery app: Redis broker when configured, else a filesystem broker under var/."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gateway.settings")

app = Celery("gateway")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The project's app is every thread's current app: `celery.current_app` (what the kernel's
# dispatcher sends with) is otherwise a fresh unconfigured app in any thread but this one.
app.set_default()
