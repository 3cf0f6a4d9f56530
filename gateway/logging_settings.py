"""What the gateway's processes log, and what they leave out (gateway/settings.py LOGGING).

Quiet by design: a line says something happened. Beat sends its sweeps every few seconds and
Celery would log three lines for each run (sent, received, succeeded) even when the sweep found
nothing to do; those lines are left out, and each periodic task logs one line of its own when it
did something (`delivery sweep: 2 deliveries sent, ...`). A failing run is still logged by
Celery, at ERROR. The answers the gateway gives by design when something it depends on is down
(503: the intent engine unavailable or its breaker open, no signing key, not ready) are
warnings, not errors; a 500 is a bug and stays an error.

Each line is plain text by default, or one JSON object with LOG_FORMAT=json (python-json-logger):
`timestamp` (UTC, ISO 8601), `level`, `logger`, `message`, and what ties it to its request or
task and its trace when there is one (`request_id`, `task_id` and `task`, `trace_id` and
`span_id`: gateway/log_context.py), plus `exc_info` with a traceback. Objects third parties
attach to a record (Django's request, Celery's task arguments) are left out: a line says what
the message says, and the gateway's messages never hold a token, a secret or a key.
"""

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from pythonjsonlogger.core import RESERVED_ATTRS

# The loggers of Celery's per-run lines: beat sending a task, a worker receiving it, and the
# task's outcome.
CELERY_RUN_LOGGERS = ("celery.beat", "celery.worker.strategy", "celery.app.trace")

LOG_FORMATS = ("text", "json")
# What third parties attach to a record that a JSON line leaves out: Django's request object
# (written out, its path with the query string: a recommend's words), Celery's `data` (a
# task's arguments, its traceback again) and uvicorn's `color_message` (the message again, with
# a terminal's colour codes in it).
LEFT_OUT = ("request", "data", "color_message")


def log_format(value: str) -> str:
    """LOG_FORMAT, checked: `text` or `json`."""
    value = value.strip().lower()
    if value not in LOG_FORMATS:
        raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {value!r}")
    return value


def formatters() -> dict[str, Any]:
    """The two formatters: a plain line, and a JSON object a line."""
    return {
        "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(levelname)s %(name)s %(message)s",
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": True,
            "reserved_attrs": [*RESERVED_ATTRS, *LEFT_OUT],
        },
    }


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


class AnonymousInput(logging.Filter):
    """On the console handler: what an anonymous client's malformed input makes a library log
    as an error, with a traceback, is a WARNING without one, its message cut to MESSAGE_CAP
    characters (it quotes the input): Django's refusals of a SuspiciousOperation (a Host it
    does not serve, an admin lookup or filter it refuses: `django.security.*`), and the A2A
    SDK's of a JSON-RPC request it cannot read. An anonymous client decides how often these
    happen: they are no error of the gateway's, and no traceback says more than the line."""

    MESSAGE_CAP = 200
    A2A_REFUSALS = (
        "Failed to validate base JSON-RPC request",
        "Failed to parse request params",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.WARNING and (
            record.name.startswith("django.security.")
            or (record.name.startswith("a2a.server.routes.") and record.msg in self.A2A_REFUSALS)
        ):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg, record.args = record.getMessage()[: self.MESSAGE_CAP], None
            record.exc_info, record.exc_text = None, None
        return True


def logging_config(*, level: str, quiet_tasks: Iterable[str], form: str) -> dict[str, Any]:
    """Django's LOGGING: one line per record on stderr, at `level` (LOG_LEVEL), in the format
    `form` (LOG_FORMAT: text or json)."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": formatters(),
        "filters": {
            "quiet_periodic_runs": {"()": QuietPeriodicRuns, "tasks": sorted(quiet_tasks)},
            "expected_unavailable": {"()": ExpectedUnavailable},
            "correlation": {"()": "gateway.log_context.Correlation"},
            "anonymous_input": {"()": AnonymousInput},
        },
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": form,
                "filters": ["anonymous_input", "correlation"],
            }
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            "django.request": {"filters": ["expected_unavailable"]},
            # litellm logs every call at INFO; the engine module logs what matters.
            "LiteLLM": {"level": "WARNING"},
            # The MCP SDK says at INFO that each web worker started its session manager.
            "mcp.server.streamable_http_manager": {"level": "WARNING"},
            **{name: {"filters": ["quiet_periodic_runs"]} for name in CELERY_RUN_LOGGERS},
        },
    }


def gunicorn_logging() -> dict[str, Any]:
    """gunicorn's logging configuration (`logconfig_dict`) with LOG_FORMAT=json: its own lines,
    and uvicorn's (which its workers write through gunicorn's handler), in JSON too."""
    console = {"class": "logging.StreamHandler", "formatter": "json", "filters": ["correlation"]}
    logger = {"handlers": ["console"], "level": "INFO", "propagate": False}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": formatters()["json"]},
        "filters": {"correlation": {"()": "gateway.log_context.Correlation"}},
        "handlers": {"console": console},
        "root": {"handlers": ["console"], "level": "INFO"},
        # No access lines: uvicorn's carry the query string (a recommend's words) and the
        # client's address. uvicorn_worker gives uvicorn.access gunicorn.access's handlers, and
        # uvicorn writes access lines only where that logger has a handler.
        "loggers": {
            "gunicorn.error": logger,
            "gunicorn.access": {"handlers": [], "level": "INFO", "propagate": False},
        },
    }
