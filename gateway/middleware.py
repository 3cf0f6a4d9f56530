"""The gateway's middleware, in two chains (gateway/asgi.py): every synchronous view passes
through all of it; the coroutine views (API endpoints that wait on the outside world) through
what an API answer needs.

Django's own middleware runs its hooks for a coroutine view through `sync_to_async`: two thread
hops each, a dozen per request, which cost a coroutine view more than its own work. So:

- `PagesOnly` middleware (sessions, CSRF, authentication, messages, static files) serve the
  admin and the supply pages; a coroutine view has no session, cookie or form, so they leave
  its chain (Django's MiddlewareNotUsed);
- `InlineHooks` middleware (security headers, X-Frame-Options) only compute headers: in a
  coroutine chain their hooks run on the event loop, without a hop;
- RequestIdMiddleware is written for both;
- django-prometheus's middleware, only while metrics are on, is gateway/metrics_middleware.py.
"""

import re
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from axes.middleware import AxesMiddleware
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthentication
from django.contrib.messages.middleware import MessageMiddleware as DjangoMessages
from django.contrib.sessions.middleware import SessionMiddleware as DjangoSessions
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpRequest, HttpResponse
from django.middleware.clickjacking import XFrameOptionsMiddleware as DjangoXFrameOptions
from django.middleware.common import CommonMiddleware as DjangoCommon
from django.middleware.csrf import CsrfViewMiddleware as DjangoCsrf
from django.middleware.security import SecurityMiddleware as DjangoSecurity
from whitenoise.middleware import WhiteNoiseMiddleware  # type: ignore[import-untyped]

from gateway.log_context import request_started
from kernel.ids import REQUEST, new_id

_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


class RequestIdMiddleware:
    """Adopt a well-formed inbound `X-Request-ID`, or mint one, and echo it on the response; it
    is in every log line of the request and on its trace (gateway/log_context.py)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    @staticmethod
    def _adopt(request: HttpRequest) -> str:
        inbound = request.META.get("HTTP_X_REQUEST_ID", "")
        request_id = inbound if _CLIENT_ID.fullmatch(inbound) else new_id(REQUEST)
        request.request_id = request_id  # type: ignore[attr-defined]
        request_started(request_id)
        return request_id

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        request_id = self._adopt(request)
        response: HttpResponse = self.get_response(request)
        response["X-Request-ID"] = request_id
        return response

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        request_id = self._adopt(request)
        response: HttpResponse = await self.get_response(request)
        response["X-Request-ID"] = request_id
        return response


class PagesOnly:
    """Middleware of the pages, left out of the coroutine views' chain. It declares both modes,
    or Django would turn the coroutine chain synchronous before asking it."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Any) -> None:
        if iscoroutinefunction(get_response):
            raise MiddlewareNotUsed
        super().__init__(get_response)  # type: ignore[call-arg]


class InlineHooks:
    """A middleware whose hooks only compute (headers): in a coroutine chain they run on the
    event loop, where Django's MiddlewareMixin would hop to a thread for each."""

    get_response: Any

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        response = self.process_request(request)  # type: ignore[attr-defined]
        response = response or await self.get_response(request)
        return self.process_response(request, response)  # type: ignore[attr-defined]


class SecurityMiddleware(InlineHooks, DjangoSecurity):
    pass


class XFrameOptionsMiddleware(InlineHooks, DjangoXFrameOptions):
    def process_request(self, request: HttpRequest) -> None:
        return None


class StaticFilesMiddleware(PagesOnly, WhiteNoiseMiddleware):
    """WhiteNoise: the admin's and Swagger UI's assets, served by the synchronous chain."""


class SessionMiddleware(PagesOnly, DjangoSessions):
    pass


class CommonMiddleware(PagesOnly, DjangoCommon):
    pass


class CsrfViewMiddleware(PagesOnly, DjangoCsrf):
    pass


class LoginLockoutMiddleware(PagesOnly, AxesMiddleware):
    """django-axes: the admin login's lockout answer after too many failures."""


class AuthenticationMiddleware(PagesOnly, DjangoAuthentication):
    pass


class MessageMiddleware(PagesOnly, DjangoMessages):
    pass
