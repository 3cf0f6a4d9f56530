"""The base of the ViewSets that wait on the outside world: adrf's async ViewSet, with two of
DRF's documented hooks set for the event loop.

adrf awaits a coroutine action on the event loop and runs DRF's synchronous steps
(authentication, throttles, the error envelope) through `sync_to_async`: on the steps' pool
under the web role (gateway/asgi.py), on the calling thread under Django's test client. Each
hop to that one thread waits its turn behind other requests' queries, so two hops that do no
database work stay on the loop (measured in turns: docs/benchmarks.md).
"""

from typing import Any

from adrf.viewsets import ViewSet
from django.http import HttpResponse, HttpResponseBase
from django.utils.functional import classproperty
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.idempotent_answers import SHOWN_ONCE

# adrf's answer to "is this view a coroutine?" by class: it never changes once a class exists.
_ASYNC: dict[type, bool] = {}


class WaitingViewSet(ViewSet):
    """A ViewSet whose actions may be coroutines (`async def`)."""

    @classproperty
    def view_is_async(cls) -> bool:
        """adrf's own answer (ViewSet.view_is_async), worked out once per class: adrf asks on
        every request, and answers by listing every member of the class."""
        found = _ASYNC.get(cls)
        if found is None:
            found = _ASYNC[cls] = ViewSet.__dict__["view_is_async"].fget(cls)
        return found

    # adrf's check hands the throttles that are coroutines to the event loop (async_to_sync)
    # even when there are none: a round trip to the loop that holds the steps' thread. The
    # gateway's throttles are synchronous; DRF's own check runs them where it is called.
    check_throttles = APIView.check_throttles

    def finalize_response(
        self, request: Any, response: HttpResponseBase, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        """The response rendered here, on the event loop (its JSON costs microseconds), as a
        plain response: Django renders a deferred one on the steps' thread, a hop."""
        final = super().finalize_response(request, response, *args, **kwargs)
        if not isinstance(final, Response):
            return final
        final.render()
        plain = HttpResponse(final.content, status=final.status_code)
        for header, value in final.items():
            plain[header] = value
        if getattr(final, SHOWN_ONCE, False):
            setattr(plain, SHOWN_ONCE, True)  # what the Idempotency-Key keeps of it
        return plain
