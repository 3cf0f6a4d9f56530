"""X-Supply-Key: the key supply teams' tools present to read the attribution report.

Keys come from SUPPLY_API_KEYS (two at a time while one replaces the other). A missing or wrong
key is 401 `unauthorized`; while none is configured every call is 503
`supply_keys_not_configured`, so an operator who forgot the setting is not sent hunting for a
wrong key. Keys are compared in constant time and never logged.
"""

import hmac
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from kernel.errors import SUPPLY_KEY_REQUIRED, SUPPLY_KEYS_NOT_CONFIGURED, ApiError

HEADER = "X-Supply-Key"


@dataclass(frozen=True)
class SupplyClient:
    """The caller of a report, known only by which configured key it presented."""

    key_number: int  # 1-based position in SUPPLY_API_KEYS, safe to log


def unauthorized() -> ApiError:
    return SUPPLY_KEY_REQUIRED(headers={"WWW-Authenticate": HEADER})


def supply_key_match(presented: str) -> int | None:
    """The 1-based number of the configured key equal to `presented`, or None.

    Every configured key is compared, whatever the outcome, so timing says nothing about which.
    """
    found = None
    for number, key in enumerate(settings.SUPPLY_API_KEYS, start=1):
        if hmac.compare_digest(presented.encode(), key.encode()):
            found = number
    return found


class SupplyKeyAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[SupplyClient, None]:
        if not settings.SUPPLY_API_KEYS:
            raise SUPPLY_KEYS_NOT_CONFIGURED()
        presented = request.headers.get(HEADER, "")
        number = supply_key_match(presented) if presented else None
        if number is None:
            raise unauthorized()
        return SupplyClient(key_number=number), None

    def authenticate_header(self, request: Request) -> str:
        return HEADER


class SupplyKeyRequired(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        if not isinstance(request.user, SupplyClient):
            raise unauthorized()
        return True


class SupplyKeyScheme(OpenApiAuthenticationExtension):
    target_class = "reporting.auth.SupplyKeyAuthentication"
    name = "SupplyKey"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": HEADER,
            "description": "One of the keys configured in SUPPLY_API_KEYS.",
        }
