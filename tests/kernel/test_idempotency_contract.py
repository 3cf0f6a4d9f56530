"""The Idempotency-Key in the contract: every POST of /openapi.json takes it, documents the
replay header and the key's own errors, and refuses a malformed key before anything else."""

import re

import pytest

from kernel.models import IdempotencyKey
from tests.protocol import register

HEADER = "Idempotency-Key"
IDEMPOTENT_OPERATIONS = {
    "/v1/merchant/register",
    "/v1/merchant/heartbeat",
    "/v1/merchant/{merchantId}/verify",
    "/v1/merchant/{merchantId}/rotate-token",
    "/v1/merchant/{merchantId}/deactivate",
    "/v1/merchant/{merchantId}/deliveries/{deliveryId}/retry",
    "/v1/intents",
    "/v1/proposals",
    "/v1/match",
    "/v1/match/{matchSessionId}/accept",
    "/v1/intent-mandates/sign",
    "/v1/intent-mandates/verify",
    "/v1/attribution/conversions",
    "/ucp/catalog/search",
    "/ucp/catalog/lookup",
    "/ucp/catalog/product",
}


def _operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_every_post_takes_an_idempotency_key_and_documents_its_answers(client):
    schema = client.get("/openapi.json").json()
    posts = {path: op for path, method, op in _operations(schema) if method == "post"}

    assert set(posts) == IDEMPOTENT_OPERATIONS
    for path, operation in posts.items():
        (key,) = [p for p in operation["parameters"] if p["name"] == HEADER]
        assert key["in"] == "header"
        assert key["required"] is False
        assert key["schema"]["maxLength"] == 255
        pattern = re.compile(key["schema"]["pattern"])
        assert pattern.match("0f8e2a4c-5b6d 7e8f")
        assert not pattern.match(" x")
        responses = operation["responses"]
        assert "`idempotency_key_in_flight`" in responses["409"]["description"], path
        assert "`idempotency_key_reused`" in responses["422"]["description"], path
        assert "`invalid_idempotency_key`" in responses["400"]["description"], path
        for status, response in responses.items():
            replayed = response.get("headers", {}).get("Idempotent-Replayed")
            if status.startswith("2"):
                assert replayed == {
                    "description": "`true` on an answer replayed for a repeated Idempotency-Key; "
                    "absent otherwise.",
                    "schema": {"type": "string", "enum": ["true"]},
                }, (path, status)
            elif status in ("413", "422", "429") or status.startswith("5"):
                assert replayed is None, (path, status)  # never kept, so never replayed
    # Nothing else takes it.
    others = [op for _, method, op in _operations(schema) if method != "post"]
    assert not [p for op in others for p in op.get("parameters", []) if p["name"] == HEADER]


PATH_VALUES = {
    "{merchantId}": "shop-1",
    "{deliveryId}": "1",
    "{matchSessionId}": "mss_" + "0" * 24,
}


@pytest.mark.parametrize("path", sorted(IDEMPOTENT_OPERATIONS))
@pytest.mark.django_db
def test_every_post_refuses_a_malformed_key_before_anything_else(client, path):
    for name, value in PATH_VALUES.items():
        path = path.replace(name, value)

    answer = client.post(path, {}, content_type="application/json", headers={HEADER: " x"})

    assert answer.status_code == 400
    body = answer.json()  # UCP's routes answer UCP's error response
    code = body["messages"][0]["code"] if path.startswith("/ucp/") else body["error"]
    assert code == "invalid_idempotency_key"


@pytest.mark.parametrize("path", sorted(IDEMPOTENT_OPERATIONS))
@pytest.mark.django_db
def test_every_keyed_post_is_throttled(client, settings, path):
    shop = register(client, "shop-1")  # merchants' commands are throttled once authenticated
    rates = dict.fromkeys(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "0/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    for name, value in PATH_VALUES.items():
        path = path.replace(name, value)
    headers = {HEADER: "k", "X-Merchant-Token": shop.token}

    answer = client.post(path, {}, content_type="application/json", headers=headers)

    assert answer.status_code == 429  # every one has a scope, so none goes unthrottled
    assert not IdempotencyKey.objects.exists()
