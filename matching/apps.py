from collections.abc import Iterator
from typing import Any

from django.apps import AppConfig


class MatchingConfig(AppConfig):
    name = "matching"
    verbose_name = "Intent matching"

    def ready(self) -> None:
        from matching import services
        from merchants.signals import merchant_deactivated

        merchant_deactivated.connect(services.proposals_withdraw, dispatch_uid="proposals_withdraw")

    def readings(self) -> Iterator[Any]:
        """At each scrape of /metrics: the intent engine's breaker (matching/metrics.py)."""
        from matching import metrics

        return metrics.readings()

    def warm_up(self) -> None:
        """As a web worker starts: the intent engine's client (matching/engine/warm_up.py)."""
        from matching.engine import warm_up as engine_warm_up

        engine_warm_up.warm_up()

    async def awarm_up(self) -> None:
        """Then, on the worker's event loop, a rehearsal of an engine call on loopback."""
        from matching.engine import warm_up as engine_warm_up

        await engine_warm_up.awarm_up()
