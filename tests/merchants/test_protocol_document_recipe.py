"""A merchant agent written from docs/INTENT_MATCHING_PROTOCOL.md alone: it registers, receives
a real Intent.Surge on loopback, verifies it by the document's by-hand recipe (no webhook
library), and proposes through the URL the event gives it."""

import base64
import hashlib
import hmac
import time

import orjson
import pytest

from merchants.delivery import delivery_attempt
from merchants.models import WebhookDelivery
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
