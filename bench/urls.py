"""The gateway's routes, and before them the reference view every request figure of `make bench`
is compared with (bench/reference.py says why it is the bench's own)."""

from django.http import HttpRequest, JsonResponse
from django.urls import path

from gateway.urls import handler400, handler403, handler404, handler500
from gateway.urls import urlpatterns as gateway_urlpatterns

REFERENCE_PATH = "bench/reference"


def reference(request: HttpRequest) -> JsonResponse:
    """The least a Django JSON answer costs: no database, no cache, no DRF, the gateway's
    middleware and handler around it as around any other view."""
    return JsonResponse({"status": "ok"})


urlpatterns = [path(REFERENCE_PATH, reference), *gateway_urlpatterns]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
