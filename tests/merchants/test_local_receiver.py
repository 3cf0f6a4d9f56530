"""The merchant endpoint of docs/protocol.md ("Trying it on your machine"), run as written: it
refuses the verification that comes before its secret is saved, echoes the one after, and then
receives an Intent.Surge, all through the gateway's own signed delivery on loopback."""

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.utils import timezone

from merchants.delivery import delivery_attempt
from merchants.models import DeliveryStatus, MerchantAgent, WebhookDelivery
from merchants.verification import endpoint_verify
from tests.protocol import create_intent, fan_out, register
from tests.support.network import free_port

GUIDE = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
RECEIVER = re.search(r"<!-- receiver: [^>]*-->\n```python\n(.*?)```", GUIDE, re.DOTALL)

pytestmark = pytest.mark.django_db


@pytest.fixture
def endpoint(tmp_path):
    assert RECEIVER is not None
    script = tmp_path / "merchant_receiver.py"
    script.write_text(RECEIVER.group(1))
    port = free_port()
    env = {"PORT": str(port), "SECRET_FILE": str(tmp_path / "webhook-secret.txt")}
    process = subprocess.Popen(  # noqa: S603 - the guide's own script, our interpreter
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    yield port, tmp_path / "webhook-secret.txt", process
    process.terminate()
    process.wait(timeout=5)


@pytest.mark.processes
def test_the_guides_endpoint_proves_ownership_and_receives_intents(client, settings, endpoint):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = settings.WEBHOOK_ALLOW_HTTP = True  # the switches
    port, secret_file, process = endpoint
    shop = register(
        client,
        "my-shop",
        verified=False,
        agent_endpoint=f"http://127.0.0.1:{port}/hook",
        subscription_tags=["trail"],
    )
    pk = MerchantAgent.objects.get(merchant_id="my-shop").pk

    before = endpoint_verify(merchant_pk=pk)  # the secret is not saved yet
    secret_file.write_text(shop.webhook_secret + "\n")
    MerchantAgent.objects.filter(pk=pk).update(next_verification_at=timezone.now())  # 5 s later
    after = endpoint_verify(merchant_pk=pk)
    create_intent(client, intent_tags=["trail"])
    fan_out()
    delivery = WebhookDelivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)

    assert (before, after) == (False, True)
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED
    process.terminate()
    printed = process.communicate(timeout=5)[0]
    assert printed.startswith("refused:")
    assert "\nendpoint.verification " in printed
    assert "\nintent.surge " in printed
