"""Endpoint changes are bounded per merchant (the `endpoint_change` throttle scope, 10 an hour by
default): every change, and every verification a merchant asks for, sends a verification POST
to its endpoint, so no merchant can make the gateway POST to URL after URL. Past the bound the
request is a 429 and nothing changes."""

from types import SimpleNamespace
from typing import Any

from rest_framework.exceptions import Throttled
from rest_framework.request import Request

from kernel.throttles import ScopeThrottle
from merchants.models import MerchantAgent

SCOPE = "endpoint_change"


class _PerMerchant(ScopeThrottle):
    """The scope's counter of one merchant, whoever sends the request and from where."""

    def __init__(self, merchant: MerchantAgent) -> None:
        super().__init__()
        self.merchant = merchant

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": f"merchant-{self.merchant.pk}"}


def endpoint_change_count(request: Request, merchant: MerchantAgent) -> None:
    """Count one endpoint change of `merchant`; 429 (Throttled) past the bound."""
    throttle = _PerMerchant(merchant)
    if not throttle.allow_request(request, SimpleNamespace(throttle_scope=SCOPE)):
        raise Throttled(throttle.wait())
