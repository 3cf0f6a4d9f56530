"""Moving a verification along its schedule, for the verification tests."""

from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from merchants.models import MerchantAgent
from merchants.verification import ATTEMPTS, endpoint_verify
from tests.protocol import Merchant, register


def attempt_when_due(merchant_id: str) -> bool | None:
    """What the clock and the sweeper do: the next attempt comes due, and runs (the URL's turn
    and the minute's bound start afresh, as they do once their time has passed)."""
    MerchantAgent.objects.filter(
        merchant_id=merchant_id, next_verification_at__isnull=False
    ).update(next_verification_at=timezone.now())
    cache.clear()
    merchant = MerchantAgent.objects.get(merchant_id=merchant_id)
    return endpoint_verify(merchant_pk=merchant.pk)


def parked(client: Client, merchant_id: str, endpoint: str) -> Merchant:
    """A merchant whose endpoint never echoed through the whole schedule."""
    shop = register(client, merchant_id, verified=False, agent_endpoint=endpoint)
    outcomes = [attempt_when_due(merchant_id) for _ in range(ATTEMPTS)]
    assert outcomes == [False] * ATTEMPTS
    return shop
