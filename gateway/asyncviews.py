"""ViewSets with coroutine actions: the views that wait on the outside world.

DRF's dispatch is synchronous. `WaitingViewSet` keeps every step of it (authentication,
throttles, the error envelope, content negotiation) and awaits a coroutine action on the event
loop; the synchronous steps, and any synchronous action of the same ViewSet, run through
`sync_to_async`: on the web pool under ASGI (gateway/asgi.py), on the calling thread under
Django's test client.
"""

from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpResponse
from django.utils.decorators import classonlymethod
from rest_framework import viewsets
from rest_framework.request import Request
from rest_framework.response import Response


class WaitingViewSet(viewsets.ViewSet):
    """A ViewSet whose actions may be coroutines (`async def`)."""

    @classonlymethod
    def as_view(cls, actions: Any = None, **initkwargs: Any) -> Any:
        return markcoroutinefunction(super().as_view(actions, **initkwargs))

    async def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponse:  # type: ignore[override]
        self.args, self.kwargs = args, kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request: Request = request
        self.headers = self.default_response_headers
        try:
            await sync_to_async(self.initial)(request, *args, **kwargs)
            method = request.method.lower()
            handler = (
                getattr(self, method, self.http_method_not_allowed)
                if method in self.http_method_names
                else self.http_method_not_allowed
            )
            if iscoroutinefunction(handler):
                response = await handler(request, *args, **kwargs)
            else:
                response = await sync_to_async(handler)(request, *args, **kwargs)
        except Exception as exc:
            response = await sync_to_async(self.handle_exception)(exc)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        return rendered(self.response)


def rendered(response: Response) -> HttpResponse:
    """`response` rendered here, on the event loop (its JSON costs microseconds), as a plain
    response: Django renders a deferred one on a thread, a hop that waited its turn in the
    pool of the view's steps behind other requests' queries."""
    response.render()
    plain = HttpResponse(response.content, status=response.status_code)
    for header, value in response.items():
        plain[header] = value
    return plain
