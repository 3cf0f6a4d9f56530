"""Merchants registered with a measured gateway, for the scenarios about merchants."""

import orjson

from bench import loopback


def register(port: int, merchant_id: str, endpoint: str, tags: list[str]) -> None:
    """Register a merchant over HTTP, its endpoint's ownership taken as proven (what its echo
    of the challenge does; the verification itself is not what these scenarios measure)."""
    from django.db import connection
    from django.utils import timezone

    from merchants.models import MerchantAgent

    body = orjson.dumps(
        {"merchant_id": merchant_id, "agent_endpoint": endpoint, "subscription_tags": tags}
    )
    status = loopback.post(port, "/v1/merchant/register", body)
    assert status == 200, f"registering {merchant_id}: {status}"
    MerchantAgent.objects.filter(merchant_id=merchant_id).update(
        endpoint_verified_at=timezone.now(), next_verification_at=None
    )
    connection.close()  # no connection held while the gateway is measured
