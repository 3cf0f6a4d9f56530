"""Where the processes of one host keep their metrics, so that one scrape adds them all up.

prometheus_client's multiprocess mode: each process writes its samples to files of its own
(`counter_<pid>.db`, `histogram_<pid>.db`) in one directory, named by PROMETHEUS_MULTIPROC_DIR,
which must be set before prometheus_client is first imported; the web role's `GET /metrics`
reads every file there (gateway/metrics.py). Every role of the Procfile reads the gateway's
settings before it imports anything that measures, so the settings set it (`export`), from
METRICS_DIR (VAR_DIR/metrics by default), whenever METRICS_TOKEN is set.

A process that ended leaves its files: its counters keep counting in the sums, as Prometheus
expects of a counter, until the host starts afresh. When the web role starts (gunicorn's
`on_starting`, gateway/web_config.py) the files of every process no longer running are removed:
roles started at the same moment (honcho starts them together) keep theirs, their processes are
alive. A web worker that exits (gunicorn's `child_exit`) and a Celery process that stops
(gateway/celery.py) are marked dead, which drops their live gauges.
"""

import contextlib
import os
import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from gateway.environment import BASE_DIR, env

# prometheus_client's own variable, read once as it is imported.
VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def directory() -> Path | None:
    """This host's metrics directory, or None while metrics are off (METRICS_TOKEN unset)."""
    if not env.str("METRICS_TOKEN", default="").strip():
        return None
    var_dir = BASE_DIR / env.str("VAR_DIR", default="var")
    return BASE_DIR / env.str("METRICS_DIR", default=str(var_dir / "metrics"))


def exported() -> Path | None:
    """This host's metrics directory, named to prometheus_client (`export`), or None while
    metrics are off."""
    path = directory()
    if path is not None:
        export(path)
    return path


def export(path: Path) -> None:
    """Name `path` to prometheus_client, in this process and those it starts."""
    if "prometheus_client" in sys.modules and os.environ.get(VARIABLE) != str(path):
        raise ImproperlyConfigured(
            "prometheus_client was imported before the settings named its multiprocess "
            f"directory ({path}): its samples would stay in this process"
        )
    path.mkdir(parents=True, exist_ok=True)
    os.environ[VARIABLE] = str(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def forget_dead(path: Path) -> int:
    """Remove the files of the processes no longer running; how many were removed."""
    removed = 0
    for file in path.glob("*.db"):
        pid = file.stem.rpartition("_")[2]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(FileNotFoundError):
                file.unlink()
                removed += 1
    return removed


def process_ended(pid: int) -> None:
    """Say that process `pid` of this host ended: its live gauges go (metrics on only)."""
    if VARIABLE in os.environ:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)
