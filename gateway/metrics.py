"""`GET /metrics`: this host's metrics in Prometheus's text format, to the bearer of
METRICS_TOKEN only (docs/alerts.md#metrics).

While no token is set the path does not exist (404, as any unknown path): metrics are off and
nothing is measured. With one set, a request without `Authorization: Bearer <the token>` is
answered 401 with `WWW-Authenticate: Bearer`, in the gateway's error envelope; the token is
compared in constant time and never logged. The answer adds up every process of the host
(prometheus_client's multiprocess files, gateway/metrics_files.py) and appends what is read
now: each app's AppConfig `readings()` (rows waiting in the database, the breaker's state).
"""

import hmac
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from kernel.errors import METRICS_TOKEN_REQUIRED
from kernel.handlers import error_body, handler404


class Readings:
    """A prometheus_client collector of what the apps read at scrape time."""

    def collect(self) -> Iterator[Any]:
        for config in apps.get_app_configs():
            read = getattr(config, "readings", None)
            if read is not None:
                yield from read()


# A process's file of metrics starts with how much of it is written (prometheus_client's header).
_HEADER_BYTES = 8


def written_files(directory: Path) -> list[str]:
    """The processes' files of metrics in `directory` that a scrape can read: not one that a
    process starting up has created and not yet sized (it is empty for that moment, and
    prometheus_client fails the whole scrape on it), nor one gone since it was listed."""
    found = []
    for path in directory.glob("*.db"):
        try:
            if os.path.getsize(path) >= _HEADER_BYTES:
                found.append(str(path))
        except FileNotFoundError:
            continue  # its process ended and the file was cleared (gateway/metrics_files.py)
    return sorted(found)


def _authorized(request: HttpRequest) -> bool:
    scheme, _, presented = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        presented.strip().encode(), settings.METRICS_TOKEN.encode()
    )


def _error(status: int, code: str, message: str, headers: dict[str, str]) -> HttpResponse:
    answer = JsonResponse(error_body(code, message), status=status)
    for name, value in headers.items():
        answer[name] = value
    return answer


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_TOKEN or settings.METRICS_DIR is None:
        return handler404(request)
    if request.method not in ("GET", "HEAD"):
        allow = {"Allow": "GET, HEAD"}
        return _error(405, "method_not_allowed", "Only GET is served here.", allow)
    if not _authorized(request):
        error = METRICS_TOKEN_REQUIRED()
        challenge = {"WWW-Authenticate": 'Bearer realm="metrics"'}
        return _error(error.status_code, error.code, error.message, challenge)
    from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    directory: Path = settings.METRICS_DIR

    class WrittenFiles(MultiProcessCollector):
        """Every process's metrics, those a scrape can read (written_files)."""

        def collect(self) -> Any:
            return self.merge(written_files(directory), accumulate=True)

    registry = CollectorRegistry()
    WrittenFiles(registry, path=str(directory))
    registry.register(Readings())
    exposition = HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
    exposition["Cache-Control"] = "no-store"
    return exposition
