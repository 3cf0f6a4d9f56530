"""Without an OTLP endpoint tracing is off and free (gateway/telemetry.py): no SDK provider is
installed, nothing wraps the application, and a request records no span. The suite's settings
leave the endpoint unset whatever the environment says (tests/settings.py)."""

import pytest
from opentelemetry import trace

from gateway import telemetry
from merchants.models import WebhookEvent
from tests.protocol import register

pytestmark = pytest.mark.django_db


def test_without_an_endpoint_nothing_is_traced(client, engine, shelf, receiver):
    register(client, "shop", agent_endpoint=receiver.url, subscription_tags=["*"])

    answer = client.get("/v1/recommend", {"intent": "trail running shoes"})

    assert answer.status_code == 200
    assert not telemetry.enabled()
    # No SDK provider: the API's proxy, whose tracers record nothing.
    assert type(trace.get_tracer_provider()) is trace.ProxyTracerProvider
    application = object()
    assert telemetry.served(application, lambda path: None) is application
    assert WebhookEvent.objects.get().traceparent == ""
