"""A test-only endpoint that uses the gateway's real parser, renderer, handler and throttles."""

from django.urls import include, path
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kernel.validation import validated


class EchoBody(serializers.Serializer):
    name = serializers.CharField(max_length=10)
    count = serializers.IntegerField(min_value=1)


class EchoView(APIView):
    throttle_scope = "cards"

    def post(self, request: Request) -> Response:
        return Response(validated(EchoBody, request.data, source="body"), status=201)


class BoomView(APIView):
    def get(self, request: Request) -> Response:
        raise RuntimeError("secret detail that must not leak")


urlpatterns = [
    path("echo", EchoView.as_view()),
    path("boom", BoomView.as_view()),
    path("", include("gateway.urls")),
]

# Django reads the error handlers from the root URLconf; keep the gateway's.
from gateway.urls import handler400, handler403, handler404, handler500  # noqa: E402

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
