"""An IPv6 client is its /64 wherever the gateway counts clients (kernel/clients.py): the
throttles, the Idempotency-Keys a client may hold, the staff login's lockout. A host given a /64
picks any of its 2**64 addresses at will; a new address of it is no new allowance. Through
Django's test client, on whichever database the run configures."""

import pytest
from axes.models import AccessAttempt
from django.test import Client

from kernel.clients import client_network, network_address
from kernel.models import IdempotencyKey
from tests.protocol import PUBLIC_ENDPOINT

pytestmark = pytest.mark.django_db

ONE_HOST = [f"2001:db8:1:2:{n:x}::{n + 1:x}" for n in range(40)]  # 40 addresses of one /64
NEIGHBOUR = "2001:db8:1:3::1"  # the next /64: another subscriber
PASSWORD = "correct horse battery staple"


def register(client: Client, merchant_id: str, address: str):
    body = {"merchant_id": merchant_id, "agent_endpoint": f"{PUBLIC_ENDPOINT}/{merchant_id}"}
    return client.post(
        "/v1/merchant/register", body, content_type="application/json", REMOTE_ADDR=address
    )


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("203.0.113.7", "203.0.113.7"),
        (" 203.0.113.7 ", "203.0.113.7"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:2::/64"),  # the same host's other one
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:203.0.113.7", "203.0.113.7"),  # IPv4 on a dual-stack socket
        ("fe80::1%eth0", "fe80::/64"),
        ("", ""),
        ("not an address", "not an address"),
    ],
)
def test_a_client_is_its_address_or_its_ipv6_64(address, client):
    assert client_network(address) == client


def test_a_client_network_has_an_address_for_stores_that_keep_one():
    assert network_address("2001:db8:1:2::/64") == "2001:db8:1:2::"
    assert network_address("203.0.113.7") == "203.0.113.7"


def test_forty_registrations_from_one_64_meet_one_register_allowance(client, settings):
    allowance = int(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["register"].split("/")[0])

    statuses = [
        register(client, f"host-{n}", address).status_code for n, address in enumerate(ONE_HOST)
    ]
    neighbour = register(client, "neighbour", NEIGHBOUR)

    assert allowance == 30
    assert statuses == [200] * allowance + [429] * (len(ONE_HOST) - allowance)
    assert neighbour.status_code == 200


def test_the_idempotency_keys_of_one_64_are_one_clients(client, settings, unthrottled):
    settings.IDEMPOTENCY_KEYS_PER_CLIENT = 10
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"]}

    def keyed(key: str, address: str):
        return client.post(
            "/v1/intents",
            body,
            content_type="application/json",
            headers={"Idempotency-Key": key},
            REMOTE_ADDR=address,
        )

    statuses = [keyed(f"k-{n}", address).status_code for n, address in enumerate(ONE_HOST[:12])]
    neighbour = keyed("k-neighbour", NEIGHBOUR)

    assert statuses == [201] * 10 + [429] * 2
    assert keyed("k-12", ONE_HOST[12]).json()["error"] == "idempotency_key_limit"
    assert neighbour.status_code == 201
    assert IdempotencyKey.objects.count() == 11


def test_wrong_passwords_from_one_64_lock_the_name_out_of_all_of_it(django_user_model, settings):
    django_user_model.objects.create_user("ops", password=PASSWORD, is_staff=True)

    def login(address: str, password: str):
        return Client(REMOTE_ADDR=address).post(
            "/admin/login/?next=/admin/", {"username": "ops", "password": password}
        )

    guesses = [
        login(address, "guess").status_code for address in ONE_HOST[: settings.AXES_FAILURE_LIMIT]
    ]
    locked = login(ONE_HOST[-1], PASSWORD)
    neighbour = login(NEIGHBOUR, PASSWORD)

    assert guesses == [200] * (settings.AXES_FAILURE_LIMIT - 1) + [429]
    assert locked.status_code == 429  # the right password, from yet another address of it
    assert neighbour.status_code == 302
    # The lockout is kept under the /64's first address, an IP address axes can store.
    assert AccessAttempt.objects.get(username="ops").ip_address == "2001:db8:1:2::"
