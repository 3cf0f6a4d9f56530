"""The gateway as the contract's tests find it (the `gateway` fixture, conftest.py): a small
catalog with the ids of the contract's examples (products 100001-100004, creator lucas.ortiz,
intent int_4755...), one registered merchant agent (acme-running, its endpoint a real receiver
on loopback, with a failed delivery to list and retry), and the credentials its operations ask
for."""

import socket
from decimal import Decimal
from typing import Any

from django.test import Client
from django.utils import timezone

from matching.examples import INTENT_ID
from matching.models import Intent, IntentTag
from merchants.examples import FAILED
from merchants.models import DeliveryStatus, MerchantAgent, WebhookDelivery, WebhookEvent
from tests import protocol
from tests.factories import CreatorFactory, ProductFactory, VideoFactory
from tests.support.receiver import Receiver

MERCHANT_ID = "acme-running"  # the merchant of the contract's examples
SUPPLY_KEY = "contract-fuzz-supply-key-0001"
PRODUCT_IDS = ["100001", "100002", "100003", "100004"]
CREATOR = "lucas.ortiz"
DELIVERY_ID = str(FAILED["delivery_id"])  # the failed delivery of the contract's examples


class Credentials:
    """The credentials of the current test's database: set by the `gateway` fixture."""

    merchant_token: str | None = None
    supply_key: str | None = None


def resolve_to_loopback(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
    return socket.getaddrinfo("127.0.0.1", port, *args, **kwargs)


def populate(client: Client, receiver: Receiver) -> None:
    """The catalog, the intent and the merchant (its endpoint `receiver`), with its credentials
    in `Credentials`."""
    lucas = CreatorFactory(username=CREATOR, display_name="Lucas Ortiz")
    theo = CreatorFactory(username="run_with_theo", display_name="Theo")
    for number in range(4):
        product = ProductFactory(
            id=100001 + number,
            title=f"Stridewell Stride {5 + number} Road Running Shoe",
            brand="Stridewell",
            price_usd=Decimal("74.99"),
            original_price_usd=Decimal("89.99"),
            category_l2="Running Shoes",
            tags=["running", "shoes"],
            regions=[],
        )
        VideoFactory(product=product, creator=lucas if number % 2 == 0 else theo)
    intent = Intent.objects.create(
        intent_id=INTENT_ID,
        raw_query="cushioned running shoes for road runs under $90",
        intent_tags=["running", "shoes"],
        region="US",
        resolution_source="client",
    )
    IntentTag.objects.bulk_create(IntentTag(intent=intent, tag=tag) for tag in intent.intent_tags)
    merchant = protocol.register(
        client,
        MERCHANT_ID,
        agent_endpoint=receiver.url,
        subscription_tags=["running", "shoes"],
    )
    Credentials.merchant_token, Credentials.supply_key = merchant.token, SUPPLY_KEY
    _failed_delivery()


def _failed_delivery() -> None:
    """The merchant's delivery of the contract's examples, failed: one to list and retry."""
    event = WebhookEvent.objects.create(
        event_id=FAILED["event"]["webhook_id"],
        event_type=FAILED["event"]["type"],
        intent_id=INTENT_ID,
        body="{}",
        fanned_out_at=timezone.now(),
    )
    WebhookDelivery.objects.create(
        pk=FAILED["delivery_id"],
        merchant=MerchantAgent.objects.get(merchant_id=MERCHANT_ID),
        event=event,
        status=DeliveryStatus.FAILED,
        attempt_count=FAILED["attempt_count"],
        next_attempt_at=timezone.now(),
        completed_at=timezone.now(),
        last_status_code=FAILED["last_status_code"],
        last_error=FAILED["last_error"],
    )


def credentials(operation: dict[str, Any]) -> dict[str, str]:
    """The headers of the credentials `operation` (of the contract) requires; none where they
    are optional (registration)."""
    requirements = operation.get("security", [])
    if not requirements or any(not requirement for requirement in requirements):
        return {}
    names = {name for requirement in requirements for name in requirement}
    headers = {}
    if "MerchantToken" in names and Credentials.merchant_token:
        headers["X-Merchant-Token"] = Credentials.merchant_token
    if "SupplyKey" in names and Credentials.supply_key:
        headers["X-Supply-Key"] = Credentials.supply_key
    return headers
