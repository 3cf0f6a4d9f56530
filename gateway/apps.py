import contextlib
import logging

from django.apps import AppConfig

logger = logging.getLogger(__name__)


class GatewayConfig(AppConfig):
    name = "gateway"
    verbose_name = "Gateway"

    def warm_up(self) -> None:
        """As a web worker starts: the URLconf (every app's views, imported on the first
        request otherwise) and a connection of the broker's producer pool (the first task sent
        after a commit would open it)."""
        from django.urls import get_resolver

        from gateway.celery import app

        get_resolver().url_patterns  # noqa: B018 - evaluated for its imports
        app.backend  # noqa: B018 - every task sent asks for it, and finding it scans entry points
        # A broker that is down is the sender's concern, not the worker's start.
        with contextlib.suppress(Exception), app.producer_or_acquire() as producer:
            producer.connection.ensure_connection(max_retries=1)
