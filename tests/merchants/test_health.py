"""GET /v1/merchant/{id}/health and the scheduled probes, against a real receiver."""

import asyncio
import socket

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from merchants import probes, tasks
from merchants.endpoints import NOT_PUBLIC
from merchants.models import HealthProbe, MerchantAgent, MerchantStatus
from tests.protocol import post, register

pytestmark = pytest.mark.django_db


@pytest.fixture
def shop(client, receiver):
    return register(client, "shop-1", agent_endpoint=receiver.url)


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


def test_a_live_merchant_is_healthy(client, receiver, shop):
    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 200
    body = response.json()
    assert body == {
        "merchant_id": "shop-1",
        "healthy": True,
        "status_code": 200,
        "latency_ms": body["latency_ms"],
        "checked_at": body["checked_at"],
        "error": None,
        "message": None,
    }
    assert 0 <= body["latency_ms"] < 1000
    (ping,) = receiver.wait_for(1)
    event = Webhook(shop.webhook_secret).verify(ping.body, ping.headers)
    assert event["type"] == "ping"
    assert event["data"] == {"merchant_id": "shop-1"}
    assert ping.headers["webhook-id"] == event["id"]
    probe = HealthProbe.objects.get()
    assert (probe.healthy, probe.trigger, probe.status_code) == (True, "api", 200)


def test_a_dead_merchant_is_503_and_becomes_unhealthy(client, loopback):
    register(client, "shop-1", agent_endpoint=_closed_port_url())

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 503
    body = response.json()
    assert body["healthy"] is False
    assert body["error"] == "merchant_unhealthy"
    assert body["message"] == "Could not connect to the endpoint."
    assert body["status_code"] is None
    assert MerchantAgent.objects.get(merchant_id="shop-1").status == MerchantStatus.UNHEALTHY


def test_the_merchants_own_answer_is_never_echoed(client, receiver, shop):
    receiver.script("500")
    receiver.answer_body = b'{"internal": "db password hunter2"}'

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 503
    assert response.json()["message"] == "The endpoint answered 500."
    assert response.json()["status_code"] == 500
    assert b"hunter2" not in response.content
    assert "hunter2" not in str(dict(response.headers))


def test_a_hanging_merchant_is_503_within_the_timeout(client, receiver, shop):
    receiver.script("hang:5")

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 503
    assert response.json()["message"] == "No answer within 1 s."


def test_answers_are_reused_for_30_seconds(client, receiver, shop):
    first = client.get("/v1/merchant/shop-1/health").json()
    receiver.script("500")  # would be unhealthy, if it were asked again

    second = client.get("/v1/merchant/shop-1/health")

    assert second.status_code == 200
    assert second.json() == first
    assert len(receiver.received) == 1
    assert HealthProbe.objects.count() == 1


def test_an_unknown_merchant_is_404(client):
    response = client.get("/v1/merchant/nobody/health")

    assert response.status_code == 404
    assert response.json()["error"] == "merchant_not_found"


def test_a_deactivated_merchant_is_503_without_a_probe(client, receiver, shop):
    post(client, "/v1/merchant/shop-1/deactivate", None, token=shop.token)

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 503
    assert response.json()["message"] == "The merchant agent is deactivated; it is not probed."
    assert receiver.received == []
    assert not HealthProbe.objects.exists()


def test_a_private_endpoint_is_not_probed_when_the_switches_are_off(
    client, receiver, shop, settings
):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 503
    assert response.json()["message"] == (f"Not sent: the endpoint {NOT_PUBLIC}.")
    assert receiver.received == []


def test_the_health_probe_is_throttled(client, receiver, shop, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "health": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    codes = [client.get("/v1/merchant/shop-1/health").status_code for _ in range(3)]

    assert codes == [200, 200, 429]


def test_scheduled_probes_move_merchants_between_active_and_unhealthy(client, receiver, shop):
    register(client, "dead", agent_endpoint=_closed_port_url())
    gone = register(client, "gone", agent_endpoint=receiver.url)
    post(client, "/v1/merchant/gone/deactivate", None, token=gone.token)
    MerchantAgent.objects.filter(merchant_id="shop-1").update(status=MerchantStatus.UNHEALTHY)

    for merchant in MerchantAgent.objects.all():
        tasks.probe.run(merchant.pk)  # what each task queued by probe_merchants does

    statuses = dict(MerchantAgent.objects.values_list("merchant_id", "status"))
    assert statuses == {"shop-1": "active", "dead": "unhealthy", "gone": "deactivated"}
    assert len(receiver.received) == 1  # the deactivated merchant was not pinged
    assert set(HealthProbe.objects.values_list("trigger", flat=True)) == {"schedule"}
    assert HealthProbe.objects.filter(checked_at__lte=timezone.now()).count() == 2


def test_a_scheduled_probe_under_30_seconds_old_answers_without_a_new_ping(client, receiver, shop):
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    tasks.probe.run(merchant.pk)

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 200
    assert len(receiver.received) == 1  # the scheduled ping only
    assert HealthProbe.objects.get().trigger == "schedule"


def test_callers_arriving_during_a_probe_do_not_ping_again(client, receiver, shop):
    merchant = MerchantAgent.objects.get(merchant_id="shop-1")
    # Another web process's probe is running, and records nothing within the probe timeout.
    cache.add(f"merchant-probe-running:{merchant.pk}", 1)

    response = client.get("/v1/merchant/shop-1/health")

    assert response.status_code == 503
    assert response.json()["message"] == (
        "A probe of this merchant is under way; ask again shortly."
    )
    assert receiver.received == []


def test_callers_asking_at_once_share_one_ping(receiver, shop):
    receiver.script("slow:0.5")

    async def both() -> list[dict]:
        return list(
            await asyncio.gather(
                probes.merchant_health(merchant_id="shop-1"),
                probes.merchant_health(merchant_id="shop-1"),
            )
        )

    first, second = async_to_sync(both)()

    assert (first["healthy"], second["healthy"]) == (True, True), second
    assert len(receiver.received) == 1
    assert HealthProbe.objects.count() == 1
