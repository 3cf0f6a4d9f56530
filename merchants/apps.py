from collections.abc import Iterator
from typing import Any

from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    # The staff console's section, above its "Merchant agents" list (the breadcrumbs would read
    # "Merchant agents > Merchant agents").
    verbose_name = "Merchants"

    def ready(self) -> None:
        from kernel import idempotency_keys
        from merchants.auth import HEADER, merchant_of_token

        # A merchant's Idempotency-Keys are its own, by whichever of its tokens it presents.
        idempotency_keys.recognise(HEADER, merchant_of_token)

    def readings(self) -> Iterator[Any]:
        """At each scrape of /metrics: the deliveries' backlog, verifications and merchants
        (merchants/backlog.py)."""
        from merchants import backlog

        return backlog.readings()
