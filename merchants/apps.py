from collections.abc import Iterator
from typing import Any

from django.apps import AppConfig


class MerchantsConfig(AppConfig):
    name = "merchants"
    # The staff console's section, above its "Merchant agents" list (the breadcrumbs would read
    # "Merchant agents > Merchant agents").
    verbose_name = "Merchants"

    def readings(self) -> Iterator[Any]:
        """At each scrape of /metrics: the deliveries' backlog, verifications and merchants
        (merchants/backlog.py)."""
        from merchants import backlog

        return backlog.readings()
