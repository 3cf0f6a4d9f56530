"""X-Merchant-Token on every merchant command: missing 401, wrong 403, another's 403, right 2xx."""

import pytest
from django.utils import timezone

from kernel.ids import EVENT, new_id
from matching.models import Proposal
from merchants.models import DeliveryStatus, MerchantAgent, WebhookDelivery, WebhookEvent
from tests.factories import ProductFactory
from tests.protocol import create_intent, get, patch, post, register

pytestmark = pytest.mark.django_db


def heartbeat(client, token):
    return post(client, "/v1/merchant/heartbeat", {"merchant_id": "shop-a"}, token=token)


def deactivate(client, token):
    return post(client, "/v1/merchant/shop-a/deactivate", None, token=token)


def propose(client, token):
    intent_id = create_intent(client)["intent_id"]
    body = {"merchant_agent_id": "shop-a", "intent_id": intent_id, "product_id": "1001"}
    return post(client, "/v1/proposals", body, token=token)


def update(client, token):
    return patch(client, "/v1/merchant/shop-a", {"capabilities": ["price_quote"]}, token)


def rotate(client, token):
    return post(client, "/v1/merchant/shop-a/rotate-token", None, token=token)


def deliveries(client, token):
    return get(client, "/v1/merchant/shop-a/deliveries", token)


def retry(client, token):
    """Retry a delivery of shop-a's that failed."""
    now = timezone.now()
    event = WebhookEvent.objects.create(
        event_id=new_id(EVENT), event_type="intent.surge", body="{}"
    )
    delivery = WebhookDelivery.objects.create(
        merchant=MerchantAgent.objects.get(merchant_id="shop-a"),
        event=event,
        status=DeliveryStatus.FAILED,
        next_attempt_at=now,
        completed_at=now,
    )
    return post(client, f"/v1/merchant/shop-a/deliveries/{delivery.pk}/retry", None, token=token)


COMMANDS = [heartbeat, deactivate, propose, update, rotate, deliveries, retry]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command.__name__)
@pytest.mark.parametrize(
    ("who", "status", "error"),
    [
        ("missing", 401, "missing registration token"),
        ("wrong", 403, "invalid registration token"),
        ("another merchant's", 403, "invalid registration token"),
        ("right", None, None),
    ],
)
def test_token_matrix(client, command, who, status, error):
    ProductFactory(id=1001)
    shop_a = register(client, "shop-a")
    shop_b = register(client, "shop-b")
    token = {"missing": None, "wrong": "mrt_wrong", "another merchant's": shop_b.token}.get(
        who, shop_a.token
    )

    before = MerchantAgent.objects.values().get(merchant_id="shop-a")

    response = command(client, token)

    if status is None:
        assert response.status_code in (200, 201, 202)
    else:
        assert (response.status_code, response.json()["error"]) == (status, error)
        # Refused means untouched: same record, same token, nothing proposed or retried.
        assert MerchantAgent.objects.values().get(merchant_id="shop-a") == before
        assert not Proposal.objects.exists()
        assert not WebhookDelivery.objects.exclude(status=DeliveryStatus.FAILED).exists()
        assert heartbeat(client, shop_a.token).status_code == 200
