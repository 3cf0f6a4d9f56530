"""The merchant endpoint of docs/protocol.md ("Trying it on your machine"), run as written: it
answers 503 to the verification that comes before its secret is saved (the file missing, or
created empty by the shell and not filled yet), echoes the one after, and then receives an
Intent.Surge, all through the gateway's own signed delivery on loopback."""

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
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
        [sys.executable, str(script)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
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
    assert printed.startswith("not ready: no secret in ")
    assert "\nendpoint.verification " in printed
    assert "\nintent.surge " in printed


@pytest.mark.processes
def test_the_guides_endpoint_answers_503_while_its_secret_file_is_empty(client, settings, endpoint):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = settings.WEBHOOK_ALLOW_HTTP = True
    port, secret_file, process = endpoint
    register(
        client,
        "my-shop",
        verified=False,
        agent_endpoint=f"http://127.0.0.1:{port}/hook",
        subscription_tags=["trail"],
    )
    secret_file.write_text("")  # `> webhook-secret.txt` creates it before python3 writes it
    pk = MerchantAgent.objects.get(merchant_id="my-shop").pk
    request = urllib.request.Request(f"http://127.0.0.1:{port}/hook", data=b"{}", method="POST")

    with pytest.raises(urllib.error.HTTPError) as answered:
        urllib.request.urlopen(request, timeout=5)  # noqa: S310 - the receiver on loopback
    verified = endpoint_verify(merchant_pk=pk)

    assert answered.value.code == 503
    assert answered.value.headers["Retry-After"] == "5"
    assert verified is False
    merchant = MerchantAgent.objects.get(pk=pk)
    assert merchant.last_verification_error == "The endpoint answered 503."
    assert merchant.endpoint_verified_at is None
    process.terminate()
    printed, logged = process.communicate(timeout=5)
    assert printed.count("not ready: no secret in ") == 2
    assert "Traceback" not in logged
    assert "Error" not in logged
