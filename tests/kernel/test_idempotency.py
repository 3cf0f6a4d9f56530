"""Idempotency-Key on the API's POSTs (kernel/idempotency.py), through Django's test client: a
repeated request is answered from the stored answer and runs nothing again; another request
under the key is 422; keys are their caller's; an expired key is new; answers are kept encrypted.
In-flight requests and deliveries through real workers: test_idempotency_processes.py."""

import base64
import zlib
from datetime import timedelta

import orjson
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from kernel.idempotency_keys import idempotency_keys_prune
from kernel.models import IdempotencyKey
from kernel.secrets import decrypt
from matching.models import Intent, MatchSession, Proposal
from merchants.models import MerchantAgent, WebhookEvent
from merchants.tasks import prune_records
from tests.factories import ProductFactory
from tests.merchants.delivery_calls import surge_delivery
from tests.protocol import PUBLIC_ENDPOINT, create_intent, register
from tests.support.metrics import Scrapes

pytestmark = pytest.mark.django_db

KEY = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"


def keyed_post(client, path, body, key=KEY, token=None, **extra):
    headers = {"Idempotency-Key": key}
    if token is not None:
        headers["X-Merchant-Token"] = token
    return client.post(path, data=body, content_type="application/json", headers=headers, **extra)


def stored_columns() -> list[tuple[str, ...]]:
    """Every row of the keys' table as the database holds it (no field decrypts anything)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT key_hash, request_hash, caller, method, path, stored_answer "
            "FROM kernel_idempotencykey"
        )
        return [tuple(str(value) for value in row) for row in cursor.fetchall()]


def test_a_repeated_intent_is_answered_again_and_records_nothing_more(client):
    register(client, "shop-1", subscription_tags=["trail"])
    scrapes = Scrapes(client)
    body = {"raw_query": "trail running shoes", "intent_tags": ["trail"]}

    first = keyed_post(client, "/v1/intents", body)
    again = keyed_post(client, "/v1/intents", body)

    assert first.status_code == again.status_code == 201
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    assert again["Cache-Control"] == first["Cache-Control"] == "no-store"
    assert again["Content-Type"] == "application/json"
    assert Intent.objects.count() == 1
    assert WebhookEvent.objects.count() == 1  # one Intent.Surge to fan out, not two
    assert scrapes.moved("gateway_idempotent_requests_total", outcome="kept") == 1
    assert scrapes.moved("gateway_idempotent_requests_total", outcome="replayed") == 1


def test_without_a_key_a_repeated_intent_is_a_new_one(client):
    body = {"raw_query": "trail running shoes", "intent_tags": ["trail"]}

    client.post("/v1/intents", body, content_type="application/json")
    client.post("/v1/intents", body, content_type="application/json")

    assert Intent.objects.count() == 2
    assert not IdempotencyKey.objects.exists()


def test_the_key_with_another_body_or_path_is_422_and_runs_nothing(client):
    first = keyed_post(client, "/v1/intents", {"raw_query": "trail shoes", "intent_tags": ["a"]})

    other_body = keyed_post(client, "/v1/intents", {"raw_query": "socks", "intent_tags": ["a"]})
    other_path = keyed_post(client, "/v1/match", {"intent_id": first.json()["intent"]["intent_id"]})

    for answer in (other_body, other_path):
        assert answer.status_code == 422
        assert answer.json() == {
            "error": "idempotency_key_reused",
            "message": "This Idempotency-Key was sent with another request (method, path or "
            "body): send a new key with a new request.",
        }
        assert "Idempotent-Replayed" not in answer
    assert list(Intent.objects.values_list("raw_query", flat=True)) == ["trail shoes"]
    assert not MatchSession.objects.exists()


@pytest.mark.parametrize(
    "key", ["", "x" * 256, " leading-space", "trailing-space ", "tab\tinside", "caf\u00e9"]
)
def test_a_malformed_key_is_400_and_runs_nothing(client, key):
    answer = keyed_post(client, "/v1/intents", {"raw_query": "trail shoes"}, key=key)

    assert answer.status_code == 400
    assert answer.json() == {
        "error": "invalid_idempotency_key",
        "message": "Idempotency-Key must be 1 to 255 printable ASCII characters, without a "
        "space at either end.",
    }
    assert not Intent.objects.exists()
    assert not IdempotencyKey.objects.exists()


def test_keys_of_255_printable_characters_with_inner_spaces_are_taken(client):
    key = "k" + " ~!" * 84 + "yz"
    assert len(key) == 255

    first = keyed_post(client, "/v1/intents", {"raw_query": "a", "intent_tags": ["a"]}, key=key)
    again = keyed_post(client, "/v1/intents", {"raw_query": "a", "intent_tags": ["a"]}, key=key)

    assert (first.status_code, again.status_code, again["Idempotent-Replayed"]) == (
        201,
        201,
        "true",
    )


def test_two_merchants_with_one_key_get_their_own_answers(client):
    one, two = register(client, "shop-1"), register(client, "shop-2")

    beats = {
        merchant.merchant_id: keyed_post(
            client,
            "/v1/merchant/heartbeat",
            {"merchant_id": merchant.merchant_id},
            token=merchant.token,
        )
        for merchant in (one, two)
    }
    again = keyed_post(
        client,
        "/v1/merchant/heartbeat",
        {"merchant_id": "shop-1"},
        token=one.token,
    )

    assert {name: beat.status_code for name, beat in beats.items()} == {
        "shop-1": 200,
        "shop-2": 200,
    }
    assert beats["shop-2"].json()["merchant"]["merchant_id"] == "shop-2"
    assert "Idempotent-Replayed" not in beats["shop-2"]
    assert again.content == beats["shop-1"].content
    assert again["Idempotent-Replayed"] == "true"
    assert IdempotencyKey.objects.count() == 2
    assert set(IdempotencyKey.objects.values_list("caller", flat=True)) == {
        "merchants.merchantagent"
    }


def test_two_merchants_proposing_under_one_key_each_propose(client):
    ProductFactory(id=1001)
    intent_id = create_intent(client, intent_tags=["trail"])["intent_id"]
    merchants = [register(client, "shop-1"), register(client, "shop-2")]

    answers = [
        keyed_post(
            client,
            "/v1/proposals",
            {"merchant_agent_id": m.merchant_id, "intent_id": intent_id, "product_id": "1001"},
            token=m.token,
        )
        for m in merchants
    ]

    assert [answer.status_code for answer in answers] == [201, 201]
    assert sorted(Proposal.objects.values_list("merchant__merchant_id", flat=True)) == [
        "shop-1",
        "shop-2",
    ]


def test_anonymous_clients_are_told_apart_by_their_address(client):
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"]}

    here = keyed_post(client, "/v1/intents", body, REMOTE_ADDR="203.0.113.7")
    there = keyed_post(client, "/v1/intents", body, REMOTE_ADDR="198.51.100.20")
    here_again = keyed_post(client, "/v1/intents", body, REMOTE_ADDR="203.0.113.7")

    assert here.json()["intent"]["intent_id"] != there.json()["intent"]["intent_id"]
    assert here_again.content == here.content
    assert Intent.objects.count() == 2


def test_a_refusal_of_the_request_itself_is_not_kept_and_its_retry_runs(client):
    missing = "int_" + "0" * 24

    refused = keyed_post(client, "/v1/match", {"intent_id": missing})
    released = IdempotencyKey.objects.exists()
    Intent.objects.create(intent_id=missing, raw_query="trail shoes", intent_tags=["trail"])
    again = keyed_post(client, "/v1/match", {"intent_id": missing})
    replayed = keyed_post(client, "/v1/match", {"intent_id": missing})

    assert refused.status_code == 404
    assert refused.json()["error"] == "intent_not_found"
    assert released is False
    assert again.status_code == 201  # the retry ran: the 404 changed nothing
    assert "Idempotent-Replayed" not in again
    assert replayed.content == again.content
    assert replayed["Idempotent-Replayed"] == "true"
    assert MatchSession.objects.count() == 1


def test_a_conflict_with_another_requests_work_is_kept(client, receiver, shop):
    delivery = surge_delivery(client)  # pending: not failed, so not to be retried
    path = f"/v1/merchant/shop-1/deliveries/{delivery.pk}/retry"

    refused = keyed_post(client, path, None, token=shop.token)
    again = keyed_post(client, path, None, token=shop.token)

    assert refused.status_code == again.status_code == 409
    assert refused.json()["error"] == "delivery_not_failed"
    assert again.content == refused.content
    assert again["Idempotent-Replayed"] == "true"


def test_a_503_answer_releases_the_key_and_its_retry_runs(
    client, no_signing_key, settings, rsa_pems
):
    ProductFactory(id=1001)
    body = {"product_id": "1001", "amount_limit": 120}

    unavailable = keyed_post(client, "/v1/intent-mandates/sign", body)
    released = IdempotencyKey.objects.exists()
    settings.MANDATE_SIGNING_KEY = rsa_pems[0]
    signed = keyed_post(client, "/v1/intent-mandates/sign", body)

    assert unavailable.status_code == 503
    assert released is False
    assert signed.status_code == 201
    assert "Idempotent-Replayed" not in signed


def test_a_throttled_request_claims_no_key(client, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "intents": "1/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    keyed_post(client, "/v1/intents", {"raw_query": "a", "intent_tags": ["a"]}, key="first")

    throttled = keyed_post(client, "/v1/intents", {"raw_query": "b", "intent_tags": ["b"]})

    assert throttled.status_code == 429
    assert list(IdempotencyKey.objects.values_list("status_code", flat=True)) == [201]


def test_an_expired_key_is_new_and_the_hourly_prune_deletes_expired_keys(client, settings):
    settings.IDEMPOTENCY_KEY_TTL_S = 600
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"]}
    first = keyed_post(client, "/v1/intents", body)
    kept = IdempotencyKey.objects.get()
    assert kept.expires_at - kept.created_at == timedelta(seconds=600)

    IdempotencyKey.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    later = keyed_post(client, "/v1/intents", body)

    assert later.status_code == 201
    assert "Idempotent-Replayed" not in later
    assert later.json()["intent"]["intent_id"] != first.json()["intent"]["intent_id"]
    assert Intent.objects.count() == 2
    renewed = IdempotencyKey.objects.get()
    assert renewed.expires_at > timezone.now() + timedelta(seconds=590)

    keyed_post(client, "/v1/intents", body, key="another-key")
    IdempotencyKey.objects.exclude(pk=renewed.pk).update(expires_at=timezone.now())
    prune_records()  # beat's hourly task

    assert list(IdempotencyKey.objects.values_list("pk", flat=True)) == [renewed.pk]
    assert idempotency_keys_prune(now=timezone.now() + timedelta(seconds=601)) == 1
    assert not IdempotencyKey.objects.exists()


def test_a_registration_replay_keeps_no_secret_in_the_clear(client):
    body = {"merchant_id": "shop-1", "agent_endpoint": PUBLIC_ENDPOINT}

    first = keyed_post(client, "/v1/merchant/register", body)
    again = keyed_post(client, "/v1/merchant/register", body)

    token, secret = first.json()["registration_token"], first.json()["webhook_secret"]
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert MerchantAgent.objects.count() == 1
    ((key_hash, request_hash, caller, method, path, answer),) = stored_columns()
    assert (caller, method, path) == ("client", "POST", "/v1/merchant/register")
    for column in (key_hash, request_hash, answer):
        assert token not in column
        assert secret not in column
        assert KEY not in column
    stored = orjson.loads(decrypt(answer))  # the answer, deflated and encrypted
    assert zlib.decompress(base64.b64decode(stored["deflated"])) == first.content


def test_a_merchants_keys_are_its_own_whichever_of_its_tokens_it_sends(client):
    shop = register(client, "shop-1")
    body = {"merchant_id": "shop-1", "agent_endpoint": PUBLIC_ENDPOINT + "/new"}

    updated = keyed_post(client, "/v1/merchant/register", body, token=shop.token)
    without = keyed_post(client, "/v1/merchant/register", body)
    beat = keyed_post(
        client, "/v1/merchant/heartbeat", {"merchant_id": "shop-1"}, "beat", shop.token
    )
    rotated = keyed_post(client, "/v1/merchant/shop-1/rotate-token", None, "rotate", shop.token)
    new_token = rotated.json()["registration_token"]
    beat_again = keyed_post(
        client, "/v1/merchant/heartbeat", {"merchant_id": "shop-1"}, "beat", new_token
    )
    updated_again = keyed_post(client, "/v1/merchant/register", body, token=new_token)

    assert (updated.status_code, without.status_code) == (200, 401)  # another caller's key
    assert "Idempotent-Replayed" not in without  # and a refusal is not kept
    assert beat_again.content == beat.content
    assert beat_again["Idempotent-Replayed"] == "true"
    assert updated_again.content == updated.content  # the old token, echoed as it was
    assert updated_again["Idempotent-Replayed"] == "true"
    assert sorted(IdempotencyKey.objects.values_list("caller", flat=True)) == [
        "merchants.merchantagent",
        "merchants.merchantagent",
        "merchants.merchantagent",
    ]


def test_a_key_rotation_keeps_kept_answers_readable(client, settings, capsys):
    body = {"raw_query": "trail shoes", "intent_tags": ["trail"]}
    first = keyed_post(client, "/v1/intents", body)
    settings.SECRETS_ENCRYPTION_KEYS = ["a new passphrase", *settings.SECRETS_ENCRYPTION_KEYS]

    call_command("reencrypt_secrets")
    settings.SECRETS_ENCRYPTION_KEYS = ["a new passphrase"]  # the old one dropped
    again = keyed_post(client, "/v1/intents", body)

    assert "1 secret encrypted again" in capsys.readouterr().out
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"


def test_the_admin_shows_keys_without_their_answers(client, django_user_model):
    body = {"merchant_id": "shop-1", "agent_endpoint": PUBLIC_ENDPOINT}
    secrets = keyed_post(client, "/v1/merchant/register", body).json()
    key = IdempotencyKey.objects.get()
    staff: User = django_user_model.objects.create_superuser("root", "r@x.test", "pw")
    client.force_login(staff)
    changelist = reverse("admin:kernel_idempotencykey_changelist")

    listed = client.get(changelist)
    page = client.get(reverse("admin:kernel_idempotencykey_change", args=[key.pk]))
    looked_up = client.get(changelist, {"stored_answer__contains": "mrt_"})

    assert listed.status_code == page.status_code == 200
    assert b"/v1/merchant/register" in listed.content
    for shown in (listed, page):
        for value in (secrets["registration_token"], secrets["webhook_secret"], key.key_hash):
            assert value.encode() not in shown.content
    assert looked_up.status_code == 400
    assert client.get(reverse("admin:kernel_idempotencykey_add")).status_code == 403
