"""django-prometheus's middleware (requests by view and status, with their latency), first and
last in both chains of gateway/middleware.py while metrics are on (gateway/settings.py); never
imported while they are off.

It only counts, so in a coroutine chain each of its hooks runs on the event loop
(InlineHooks, and `InlineViewHooks` for the view and template-response hooks, where Django would
hop to a thread for each: every API answer is a template response), its exception hook aside:
Django always runs that one synchronously, and only for a view that raised.
"""

from typing import Any

from asgiref.sync import iscoroutinefunction
from django_prometheus import middleware as django_prometheus

from gateway.middleware import InlineHooks


def _on_the_loop(hook: Any) -> Any:
    async def run(*args: Any) -> Any:
        return hook(*args)

    return run


class InlineViewHooks(InlineHooks):
    """InlineHooks whose view and template-response hooks run on the event loop too (Django
    would hop to a thread for each in a coroutine chain: every API answer is a template
    response)."""

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)  # type: ignore[call-arg]
        if iscoroutinefunction(get_response):
            for name in ("process_view", "process_template_response"):
                setattr(self, name, _on_the_loop(getattr(self, name)))


class PrometheusBeforeMiddleware(InlineHooks, django_prometheus.PrometheusBeforeMiddleware):
    pass


class PrometheusAfterMiddleware(InlineViewHooks, django_prometheus.PrometheusAfterMiddleware):
    pass
