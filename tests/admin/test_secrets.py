"""Secrets out of staff's reach: no admin lookup touches a secret column, on a model or through
a relation, whatever the staff member may view; webhook secrets are stored encrypted, and a key
rotation keeps every merchant's deliveries signed."""

import pytest
from django.contrib.admin import site
from django.contrib.admin.utils import quote
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import connection
from django.urls import reverse

from kernel.secrets import decrypt
from matching.models import Intent
from merchants.models import MerchantAgent
from tests.protocol import register, state_intent

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer(client, django_user_model):
    """Staff who may only view merchants and deliveries: the finding's attacker."""
    user = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=["view_merchantagent", "view_webhookdelivery", "view_healthprobe"]
        )
    )
    client.force_login(user)
    return client


def stored_secret(merchant_id: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT webhook_secret FROM merchants_merchantagent WHERE merchant_id = %s",
            [merchant_id],
        )
        return str(cursor.fetchone()[0])


@pytest.mark.parametrize(
    ("page", "lookup"),
    [
        ("merchants_merchantagent", "webhook_secret__startswith"),
        ("merchants_merchantagent", "webhook_secret"),
        ("merchants_merchantagent", "token_hash__startswith"),
        ("merchants_merchantagent", "token_hash__gt"),
        ("merchants_webhookdelivery", "merchant__webhook_secret__startswith"),
        ("merchants_webhookdelivery", "merchant__token_hash__startswith"),
        ("merchants_healthprobe", "merchant__token_hash__in"),
        ("auth_user", "password__startswith"),
        # The verification columns: the challenge only the endpoint should echo, and its state.
        ("merchants_merchantagent", "verification_challenge__startswith"),
        ("merchants_merchantagent", "verification_challenge"),
        ("merchants_merchantagent", "verification_event_id__gt"),
        ("merchants_merchantagent", "endpoint_verified_at__isnull"),
        ("merchants_merchantagent", "next_verification_at__lt"),
        ("merchants_merchantagent", "verification_attempts__gte"),
        ("merchants_merchantagent", "last_verification_error__contains"),
        ("merchants_merchantagent", "verification_parked_at__isnull"),
        ("merchants_webhookdelivery", "merchant__verification_challenge__startswith"),
        ("merchants_healthprobe", "merchant__next_verification_at__gt"),
    ],
)
def test_no_admin_lookup_touches_a_secret(client, viewer, django_user_model, page, lookup):
    shop = register(client, "shop-1")
    client.force_login(django_user_model.objects.create_superuser("root", "r@x.test", "pw"))
    if page == "auth_user":
        viewer = client  # a superuser, who may view users

    answer = viewer.get(reverse(f"admin:{page}_changelist"), {lookup: shop.webhook_secret[:8]})

    assert answer.status_code == 400


def test_search_and_ordering_never_reach_a_secret(client, viewer):
    shop = register(client, "shop-1")
    changelist = reverse("admin:merchants_merchantagent_changelist")

    searched = viewer.get(changelist, {"q": shop.webhook_secret})
    ordered = viewer.get(changelist, {"o": "99"})

    assert searched.status_code == 200
    assert b"shop-1" not in searched.content.split(b"<tbody>")[-1]  # found nothing
    assert shop.webhook_secret.encode() not in ordered.content


def test_search_and_ordering_never_reach_a_verification_column(client, viewer, monkeypatch):
    register(client, "shop-1", verified=False)
    challenge = MerchantAgent.objects.get().verification_challenge
    changelist = reverse("admin:merchants_merchantagent_changelist")
    # Were a column to order by the challenge, or a search to reach it, the guard holds.
    merchant_admin = site._registry[MerchantAgent]
    monkeypatch.setattr(merchant_admin, "list_display", ("merchant_id", "verification_challenge"))
    monkeypatch.setattr(merchant_admin, "search_fields", ("merchant_id", "verification_challenge"))

    searched = viewer.get(changelist, {"q": challenge})
    ordered = viewer.get(changelist, {"o": "1"})

    assert searched.status_code == ordered.status_code == 200
    assert b"shop-1" not in searched.content.split(b"<tbody>")[-1]  # found nothing
    assert not any(
        "verification" in str(field) for field in ordered.context["cl"].queryset.query.order_by
    )
    assert "verification_challenge" not in ordered.context["cl"].sortable_by  # no sorting link


def test_webhook_secrets_are_stored_encrypted_and_read_in_the_clear(client):
    shop = register(client, "shop-1")
    other = register(client, "shop-2")

    stored = stored_secret("shop-1")

    assert shop.webhook_secret not in stored
    assert shop.webhook_secret.removeprefix("whsec_") not in stored
    assert stored != stored_secret("shop-2")
    assert MerchantAgent.objects.get(merchant_id="shop-1").webhook_secret == shop.webhook_secret
    assert MerchantAgent.objects.get(merchant_id="shop-2").webhook_secret == other.webhook_secret


def test_a_key_rotation_keeps_every_secret(client, settings, capsys):
    shop = register(client, "shop-1")
    old = stored_secret("shop-1")
    settings.SECRETS_ENCRYPTION_KEYS = ["a new passphrase of the operator", settings.SECRET_KEY]

    assert decrypt(old) == shop.webhook_secret  # the old key still opens it
    call_command("reencrypt_secrets")
    settings.SECRETS_ENCRYPTION_KEYS = ["a new passphrase of the operator"]  # the old one dropped

    assert "1 secret encrypted again" in capsys.readouterr().out
    assert stored_secret("shop-1") != old
    assert MerchantAgent.objects.get().webhook_secret == shop.webhook_secret


@pytest.mark.parametrize(
    ("page", "lookup"),
    [
        ("matching_intent", "demand_token_hash__startswith"),
        ("matching_intent", "demand_token_hash"),
        ("matching_matchtoken", "intent__demand_token_hash__startswith"),
        ("matching_proposal", "intent__demand_token_hash__gt"),
    ],
)
def test_no_admin_lookup_touches_a_demand_credential(client, django_user_model, page, lookup):
    """Staff who may view the protocol's records cannot probe an intent's demand credential."""
    intent, demand_token = state_intent(client, intent_tags=["trail"])
    user = django_user_model.objects.create_user("protocol-viewer", password="pw", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_intent", "view_matchtoken", "view_proposal"])
    )
    client.force_login(user)
    digest = Intent.objects.get(pk=intent["intent_id"]).demand_token_hash

    answer = client.get(reverse(f"admin:{page}_changelist"), {lookup: digest[:8]})
    # quote: the admin's own escaping of ids in URLs ("int_5c..." would read as "int\\...").
    page_of_intent = client.get(
        reverse("admin:matching_intent_change", args=[quote(intent["intent_id"])])
    )

    assert answer.status_code == 400
    assert page_of_intent.status_code == 200, (
        page_of_intent.get("Location"),
        Intent.objects.filter(pk=intent["intent_id"]).exists(),
        [str(message) for message in page_of_intent.wsgi_request._messages],
    )
    assert digest.encode() not in page_of_intent.content
    assert demand_token.encode() not in page_of_intent.content
