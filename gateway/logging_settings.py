"""What the gateway's processes log, and what they leave out (gateway/settings.py LOGGING).

Quiet by design: a line says something happened. Beat sends its sweeps every few seconds and
Celery would log three lines for each run (sent, received, succeeded) even when the sweep found
nothing to do; those lines are left out, and each periodic task logs one line of its own when it
did something (`delivery sweep: 2 deliveries sent, ...`). A failing run is still logged by
Celery, at ERROR. The answers the gateway gives by design when something it depends on is down
(503: the intent engine unavailable or its breaker open, no signing key, not ready) are
warnings, not errors; a 500 is a bug and stays an error.
"""

import logging
from collections.abc import Iterable, Mapping
from typing import Any

# The loggers of Celery's per-run lines: beat sending a task, a worker receiving it, and the
# task's outcome.
CELERY_RUN_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")


class QuietPeriodicRuns(logging.Filter):
    """Leaves out Celery's INFO lines about a run of one of `tasks` (their names)."""

    def __init__(self, tasks: Iterable[str]) -> None:
        super().__init__()
        self.tasks = frozenset(tasks)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True  # a failure, a retry refused, a warning: always shown
        # Celery passes the task's name as an argument of the message: a mapping's "name" for
        # the worker's lines, the entry's task among a tuple for beat's.
        args = record.args
        values = args.values() if isinstance(args, Mapping) else (args or ())
        return not any(isinstance(value, str) and value in self.tasks for value in values)


class ExpectedUnavailable(logging.Filter):
    """On `django.request`: a 503 is logged as a WARNING, a 4xx not at all.

    The gateway answers 503 only by design, when what it depends on is unavailable (Django itself
    never does: an unhandled error is a 500), so it is no error of the gateway's. Client errors
    (4xx) are the client's business; the access log of a proxy records them.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if not isinstance(status, int):
            return True
        if status < 500:
            return False
        if status == 503 and record.levelno > logging.WARNING:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            # Lowered past the logger's own check: shown only where warnings are wanted.
            return logging.getLogger().isEnabledFor(logging.WARNING)
        return True


def logging_config(*, level: str, quiet_tasks: Iterable[str]) -> dict[str, Any]:
    """Django's LOGGING: one plain line per record on stderr, at `level` (LOG_LEVEL)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
        "filters": {
            "quiet_periodic_runs": {"()": QuietPeriodicRuns, "tasks": sorted(quiet_tasks)},
            "expected_unavailable": {"()": ExpectedUnavailable},
        },
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.request": {"filters": ["expected_unavailable"]},
            # litellm logs every call at INFO; the engine module logs what matters.
            "LiteLLM": {"level": "WARNING"},
            **{name: {"filters": ["quiet_periodic_runs"]} for name in CELERY_RUN_LOGGERS},
        },
    }
