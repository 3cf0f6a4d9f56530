"""X-Merchant-Token: the registration token authenticates a merchant agent's requests.

Missing token: 401 `missing registration token`. A token that matches no merchant, or another
merchant's token: 403 `invalid registration token`.
"""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication
from rest_framework.permissions import AllowAny, BasePermission
from rest_framework.request import Request

from kernel.digests import token_digest
from kernel.errors import INVALID_TOKEN, MISSING_TOKEN, OTHER_MERCHANTS_TOKEN, ApiError
from merchants.models import MerchantAgent

HEADER = "X-Merchant-Token"


def missing_token() -> ApiError:
    return MISSING_TOKEN()


def invalid_token() -> ApiError:
    return INVALID_TOKEN()


def presented_token(request: Request) -> str | None:
    return request.headers.get(HEADER) or None


def merchant_of_token(token: str) -> MerchantAgent | None:
    return MerchantAgent.objects.filter(token_hash=token_digest(token)).first()


def merchant_for_token(token: str) -> MerchantAgent:
    merchant = merchant_of_token(token)
    if merchant is None:
        raise invalid_token()
    return merchant


class MerchantTokenAuthentication(BaseAuthentication):
    """Authenticates the merchant whose registration token is presented, when one is."""

    def authenticate(self, request: Request) -> tuple[MerchantAgent, str] | None:
        token = presented_token(request)
        if token is None:
            return None
        return merchant_for_token(token), token

    def authenticate_header(self, request: Request) -> str:
        return HEADER


class MerchantTokenRequired(BasePermission):
    """The request must carry a valid registration token."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not isinstance(request.user, MerchantAgent):
            raise missing_token()
        return True


class MerchantTokenActions:
    """ViewSet mixin: the actions in `token_actions` need X-Merchant-Token; the rest are public."""

    token_actions: tuple[str, ...] = ()
    action_map: dict[str, str]
    request: Any

    def _current_action(self) -> str | None:
        # DRF builds the authenticators before it sets self.action: read the action map then.
        action: str | None = getattr(self, "action", None)
        if action is None and self.request is not None:
            action = self.action_map.get(self.request.method.lower())
        return action

    def get_authenticators(self) -> list[BaseAuthentication]:
        return (
            [MerchantTokenAuthentication()] if self._current_action() in self.token_actions else []
        )

    def get_permissions(self) -> list[BasePermission]:
        # AllowAny changes nothing at run time; it makes the contract say `security: [{}]` for
        # the public actions, as it does for every other public operation.
        if self._current_action() in self.token_actions:
            return [MerchantTokenRequired()]
        return [AllowAny()]


def require_merchant(request: Request, merchant_id: str) -> MerchantAgent:
    """The authenticated merchant, which must be `merchant_id`: 403 for another's token."""
    merchant = request.user
    assert isinstance(merchant, MerchantAgent)  # MerchantTokenRequired ran first
    if merchant.merchant_id.lower() != merchant_id.lower():  # ids ignore case
        raise OTHER_MERCHANTS_TOKEN()
    return merchant


def presented_by_owner(request: Request, merchant: MerchantAgent) -> bool:
    """Whether a public request carries the merchant's own token (it may carry none): 403 for a
    token that is not its own, as for the actions that need one."""
    token = presented_token(request)
    if token is None:
        return False
    if merchant_for_token(token).pk != merchant.pk:
        raise OTHER_MERCHANTS_TOKEN()
    return True


class MerchantTokenScheme(OpenApiAuthenticationExtension):
    target_class = "merchants.auth.MerchantTokenAuthentication"
    name = "MerchantToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": HEADER,
            "description": "The registration_token returned by POST /v1/merchant/register.",
        }
