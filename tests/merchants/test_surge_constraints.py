"""An intent's constraints reach merchants in the Intent.Surge body as the intent states them:
strings, with an object's values in JSON's syntax (true, null), never Python's (True, None)."""

import pytest
from standardwebhooks.webhooks import Webhook

from merchants.delivery import delivery_attempt
from merchants.models import WebhookDelivery
from tests.protocol import create_intent, fan_out

pytestmark = pytest.mark.django_db


def test_constraints_given_as_an_object_are_delivered_in_json_syntax(client, receiver, shop):
    intent = create_intent(
        client,
        intent_tags=["trail"],
        constraints={"waterproof": True, "size": 42, "laces": None, "material": "mesh"},
    )
    fan_out()
    delivery = WebhookDelivery.objects.get()

    delivery_attempt(delivery_id=delivery.pk)

    (request,) = receiver.wait_for(1)
    payload = Webhook(shop.webhook_secret).verify(request.body, request.headers)
    delivered = payload["data"]["intent"]
    assert delivered["intent_id"] == intent["intent_id"]
    assert delivered["constraints"] == [
        "waterproof: true",
        "size: 42",
        "laces: null",
        "material: mesh",
    ]
    assert b"True" not in request.body
    assert b"None" not in request.body
