"""A merchant agent written from docs/INTENT_MATCHING_PROTOCOL.md alone: it registers, proves it
owns its endpoint by echoing the challenge, receives a real Intent.Surge on loopback, verifies it
by the document's by-hand recipe (no webhook library), and proposes through the URL the event
gives it."""

import base64
import hashlib
import hmac
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import orjson
import pytest

from merchants.delivery import delivery_attempt
from merchants.models import MerchantAgent, WebhookDelivery
from merchants.verification import endpoint_verify
from tests.protocol import create_intent, fan_out, post, register

pytestmark = pytest.mark.django_db


def verify_by_hand(secret: str, headers: dict[str, str], raw_body: bytes) -> dict:
    """Section 3 of the document, line by line."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    offered = [
        part.removeprefix("v1,")
        for part in headers["webhook-signature"].split()
        if part.startswith("v1,")
    ]
    if not any(hmac.compare_digest(expected, candidate) for candidate in offered):
        raise ValueError("bad signature")
    if abs(time.time() - int(headers["webhook-timestamp"])) > 300:
        raise ValueError("stale")
    return orjson.loads(raw_body)


def test_a_merchant_following_the_document_verifies_the_surge_and_proposes(
    client, receiver, trail_shoe
):
    shop = register(client, "doc-shop", agent_endpoint=receiver.url, subscription_tags=["running"])
    intent_id = create_intent(client, intent_tags=["Running"])["intent_id"]
    fan_out()
    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
    (request,) = receiver.wait_for(1)

    event = verify_by_hand(shop.webhook_secret, request.headers, request.body)

    assert event["type"] == "intent.surge"
    assert event["protocol_version"] == "0.2"
    assert event["data"]["intent"]["intent_id"] == intent_id
    proposals_path = event["data"]["proposals_url"].split("://", 1)[1].partition("/")[2]
    proposal = {
        "merchant_agent_id": "doc-shop",
        "intent_id": event["data"]["intent"]["intent_id"],
        "product_id": "1001",
        "price": 99.0,
        "inventory_status": "in_stock",
    }
    answer = post(client, "/" + proposals_path, proposal, token=shop.token)
    assert answer.status_code == 201
    assert answer.json()["proposal"]["status"] == "submitted"


def test_the_by_hand_recipe_refuses_a_changed_byte(client, receiver, trail_shoe):
    shop = register(client, "doc-shop", agent_endpoint=receiver.url, subscription_tags=["*"])
    create_intent(client, intent_tags=["trail"])
    fan_out()
    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
    (request,) = receiver.wait_for(1)
    tampered = request.body.replace(b"trail", b"trall", 1)

    with pytest.raises(ValueError, match="bad signature"):
        verify_by_hand(shop.webhook_secret, request.headers, tampered)


class DocumentMerchant:
    """The endpoint of a merchant agent written from the document: it verifies every request
    by the by-hand recipe, echoes the challenge of an endpoint.verification event (section 2)
    and keeps the surges it receives."""

    def __init__(self) -> None:
        self.secret = ""
        self.surges: list[dict] = []
        merchant = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {key.lower(): value for key, value in self.headers.items()}
                try:
                    event = verify_by_hand(merchant.secret, headers, raw)
                except ValueError:
                    self.send_response(401)
                    self.end_headers()
                    return
                answer = b"{}"
                if event["type"] == "endpoint.verification":
                    answer = orjson.dumps({"challenge": event["data"]["challenge"]})
                elif event["type"] == "intent.surge":
                    merchant.surges.append(event)
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_merchant_following_the_document_proves_its_endpoint_then_gets_surges(
    client, loopback, trail_shoe
):
    agent = DocumentMerchant()
    try:
        shop = register(client, "doc-shop", verified=False, agent_endpoint=agent.url,
                        subscription_tags=["running"])  # fmt: skip
        agent.secret = shop.webhook_secret
        create_intent(client, intent_tags=["running"])
        fan_out()
        assert not WebhookDelivery.objects.exists()  # not proven yet: nothing sent

        pk = MerchantAgent.objects.get(merchant_id="doc-shop").pk
        assert endpoint_verify(merchant_pk=pk) is True

        intent_id = create_intent(client, intent_tags=["running"])["intent_id"]
        fan_out()
        delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)
        (surge,) = agent.surges
        assert surge["data"]["intent"]["intent_id"] == intent_id
    finally:
        agent.close()
