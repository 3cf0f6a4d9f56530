"""Destinations, not spellings (merchants/endpoints.py): an IPv4 address is registered only as a
dotted quad, the special-purpose blocks are refused whatever the interpreter says, and every
bound on what the gateway sends counts the address and port a request goes to."""

import ipaddress
from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from merchants.delivery import delivery_attempt
from merchants.endpoints import (
    GLOBALLY_REACHABLE,
    NOT_PUBLIC,
    SPECIAL_PURPOSE,
    endpoint_problem,
    registration_problem,
)
from merchants.models import DeliveryStatus, MerchantAgent, WebhookDelivery
from merchants.verification import endpoint_verify
from tests.protocol import create_intent, fan_out, patch, post, register
from tests.support.minutes import a_whole_minute_ahead

pytestmark = pytest.mark.django_db

REFUSED = {"agent_endpoint": [f"The endpoint {NOT_PUBLIC}."]}
ODD_SPELLINGS = ["2130706433", "0x7f000001", "0177.0.0.1", "127.1", "017700000001", "0x7f.1"]


def spelled(url: str, host: str) -> str:
    """`url` with its host written as `host`."""
    parts = urlsplit(url)
    return parts._replace(netloc=f"{host}:{parts.port}").geturl()


@pytest.mark.parametrize("host", ["16843009", "0x01010101", "1.1.257", "001.1.1.1", "1.1.1.1."])
def test_ipv4_addresses_not_written_as_a_dotted_quad_are_refused_on_default_settings(client, host):
    response = post(
        client,
        "/v1/merchant/register",
        {"merchant_id": "m", "agent_endpoint": f"https://{host}/agent"},
    )

    assert response.status_code == 400
    assert response.json()["fields"] == REFUSED  # the one sentence: no DNS oracle
    assert not MerchantAgent.objects.exists()
    assert registration_problem("https://1.1.1.1/agent") is None  # the dotted quad is fine


@pytest.mark.parametrize("host", ODD_SPELLINGS)
def test_odd_spellings_of_loopback_are_refused_even_where_loopback_is_allowed(
    client, receiver, host
):
    shop = register(client, "shop", agent_endpoint=receiver.url)

    registered = post(
        client,
        "/v1/merchant/register",
        {"merchant_id": "other", "agent_endpoint": spelled(receiver.url, host)},
    )
    patched = patch(
        client, "/v1/merchant/shop", {"agent_endpoint": spelled(receiver.url, host)}, shop.token
    )

    assert registered.status_code == patched.status_code == 400
    assert registered.json()["fields"] == patched.json()["fields"] == REFUSED
    assert MerchantAgent.objects.get().agent_endpoint == receiver.url
    assert receiver.received == receiver.verifications == []


def _edges(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> list[str]:
    return [str(network.network_address), str(network.broadcast_address)]


@pytest.mark.parametrize(
    "address", [address for network in SPECIAL_PURPOSE for address in _edges(network)]
)
def test_every_special_purpose_block_is_refused_without_connecting(address):
    """Literal addresses: the rules judge them as written, with no lookup and no connection."""
    host = f"[{address}]" if ":" in address else address

    assert endpoint_problem(f"https://{host}/agent") == NOT_PUBLIC


@pytest.mark.parametrize("address", ["192.0.0.8", "192.0.0.11", "192.0.0.200", "192.0.0.255"])
def test_the_protocol_assignments_block_is_refused_but_for_its_two_anycast_addresses(
    client, address
):
    response = post(
        client,
        "/v1/merchant/register",
        {"merchant_id": "m", "agent_endpoint": f"https://{address}/agent"},
    )

    assert response.status_code == 400
    assert response.json()["fields"] == REFUSED
    assert sorted(map(str, GLOBALLY_REACHABLE)) == ["192.0.0.10", "192.0.0.9"]
    for reachable in GLOBALLY_REACHABLE:
        assert endpoint_problem(f"https://{reachable}/agent") is None


def _written_as_spellings(client, receiver_url: str, count: int, *, verified: bool = True) -> None:
    """`count` merchants (up to four) registered before the dotted-quad rule: one address
    written as `127.0.0.1`, `2130706433`, `0x7f000001` and `127.1`; verified ones then
    subscribed to an intent, fanned out."""
    spellings = ["127.0.0.1", "2130706433", "0x7f000001", "127.1"]
    for n, host in enumerate(spellings[:count]):
        url = f"{receiver_url}?m={n}"
        register(client, f"shop-{n}", verified=verified, agent_endpoint=url,
                 subscription_tags=["trail"])  # fmt: skip
        MerchantAgent.objects.filter(merchant_id=f"shop-{n}").update(
            agent_endpoint=spelled(url, host)
        )
    if verified:
        create_intent(client, intent_tags=["trail"])
        fan_out()


def test_four_spellings_of_one_address_share_one_bucket(client, receiver, settings):
    settings.WEBHOOK_HOST_PER_MINUTE = 2
    a_whole_minute_ahead()  # the bound counts by the clock's minute: all in one of them
    _written_as_spellings(client, receiver.url, 4)

    outcomes = [delivery_attempt(delivery_id=d.pk) for d in WebhookDelivery.objects.all()]

    assert [outcome is not None for outcome in outcomes].count(True) == 2
    assert len(receiver.wait_for(2)) == 2
    waiting = WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING)
    assert waiting.count() == 2
    assert {delivery.attempt_count for delivery in waiting} == {0}  # they wait, no attempt spent
    assert all(delivery.next_attempt_at > timezone.now() for delivery in waiting)
    port = urlsplit(receiver.url).port
    sent = WebhookDelivery.objects.filter(status=DeliveryStatus.SUCCEEDED)
    assert set(sent.values_list("destination", flat=True)) == {f"127.0.0.1:{port}"}


def test_verifications_to_four_spellings_share_one_bucket(client, receiver, settings):
    settings.WEBHOOK_HOST_PER_MINUTE = 2
    a_whole_minute_ahead()  # the bound counts by the clock's minute: all in one of them
    _written_as_spellings(client, receiver.url, 4, verified=False)

    outcomes = [endpoint_verify(merchant_pk=m.pk) for m in MerchantAgent.objects.all()]

    assert outcomes.count(True) == 2
    assert outcomes.count(None) == 2  # over the bound: they wait for the next minute
    assert len(receiver.verifications) == 2


def test_deliveries_under_way_to_one_destination_are_bounded_whatever_the_spelling(
    client, receiver, settings
):
    settings.WEBHOOK_MERCHANT_IN_FLIGHT = 1
    _written_as_spellings(client, receiver.url, 2)
    first, second = WebhookDelivery.objects.order_by("merchant__merchant_id")
    port = urlsplit(receiver.url).port
    # shop-0's delivery is under way to 127.0.0.1, as a worker would have it.
    WebhookDelivery.objects.filter(pk=first.pk).update(
        status=DeliveryStatus.SENDING, claimed_at=timezone.now(), destination=f"127.0.0.1:{port}"
    )

    assert delivery_attempt(delivery_id=second.pk) is None  # shop-1 wrote it 2130706433

    second.refresh_from_db()
    assert second.status == DeliveryStatus.PENDING
    assert second.attempt_count == 0
    assert receiver.received == []


def test_an_event_to_a_shared_url_is_signed_for_every_merchant_naming_it(client, receiver):
    """An event reaches a URL once: each merchant naming it can verify it with its own secret,
    so none can take another's events by naming its URL."""
    shops = [
        register(client, f"tenant-{n}", agent_endpoint=receiver.url, subscription_tags=["trail"])
        for n in range(3)
    ]
    create_intent(client, intent_tags=["trail"])
    fan_out()

    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)

    (request,) = receiver.wait_for(1)
    assert len(request.headers["webhook-signature"].split()) == 3
    for shop in shops:
        assert Webhook(shop.webhook_secret).verify(request.body, request.headers)["type"]


def test_an_event_to_a_shared_url_is_signed_only_for_the_merchants_it_is_for(client, receiver):
    """Merchants proven on one URL: an event is signed for those it is for (subscribed to its
    tags, in its region), never for one that would take it for its own."""
    subscribed = register(
        client, "tenant-trail", agent_endpoint=receiver.url, subscription_tags=["trail"]
    )
    elsewhere = register(
        client,
        "tenant-far",
        agent_endpoint=receiver.url,
        subscription_tags=["trail"],
        regions=["JP"],
    )
    other_tags = register(
        client, "tenant-tea", agent_endpoint=receiver.url, subscription_tags=["tea"]
    )
    create_intent(client, intent_tags=["trail"], region="US")
    fan_out()

    delivery_attempt(delivery_id=WebhookDelivery.objects.get().pk)

    (request,) = receiver.wait_for(1)
    assert len(request.headers["webhook-signature"].split()) == 1
    assert Webhook(subscribed.webhook_secret).verify(request.body, request.headers)["type"]
    for outsider in (elsewhere, other_tags):
        with pytest.raises(WebhookVerificationError):
            Webhook(outsider.webhook_secret).verify(request.body, request.headers)
