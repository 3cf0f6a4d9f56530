"""Every error leaves the gateway as the flat envelope, whatever raised it."""

import pytest
from django.test import Client

from merchants.models import MerchantAgent
from tests.protocol import get, patch, register
from tests.support.network import free_port

pytestmark = [pytest.mark.urls("tests.gateway.urls"), pytest.mark.django_db]


def post_json(client: Client, body: str | bytes, content_type: str = "application/json"):
    return client.post("/echo", data=body, content_type=content_type)


def test_valid_body_passes_through(client):
    response = post_json(client, '{"name": "ok", "count": 2}')

    assert response.status_code == 201
    assert response.json() == {"name": "ok", "count": 2}


def test_missing_required_field_is_missing_fields(client):
    response = post_json(client, '{"name": "ok"}')

    assert response.status_code == 400
    assert response.json() == {
        "error": "missing_fields",
        "message": "Required fields are missing: count.",
        "fields": {"count": ["This field is required."]},
    }


def test_wrong_type_is_invalid_body_naming_the_field(client):
    response = post_json(client, '{"name": "ok", "count": "many"}')

    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "invalid_body"
    assert list(body["fields"]) == ["count"]


@pytest.mark.parametrize("body", ["[1, 2]", '"text"', "3", "null"])
def test_non_object_body_is_invalid_body(client, body):
    response = post_json(client, body)

    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_body",
        "message": "The request body must be a JSON object.",
    }


@pytest.mark.parametrize("body", ["{", '{"name": }', b"\xff\xfe{}", "NaN", b'{"name": "\xc3"}'])
def test_malformed_json_is_invalid_body(client, body):
    response = post_json(client, body)

    assert response.status_code == 400
    assert response.json()["error"] == "invalid_body"
    assert response.json()["message"].startswith("The request body is not valid JSON")


def test_body_over_256_kb_is_413(client):
    body = '{"name": "' + "x" * (256 * 1024) + '", "count": 1}'

    response = post_json(client, body)

    assert response.status_code == 413
    assert response.json() == {
        "error": "payload_too_large",
        "message": "The request body is larger than 256 KB.",
    }


def test_non_json_content_type_is_415(client):
    response = post_json(client, "name=x", content_type="application/x-www-form-urlencoded")

    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"


def test_non_utf8_charset_is_415(client):
    response = post_json(client, '{"name": "ok", "count": 1}', "application/json; charset=latin-1")

    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"


def test_wrong_method_is_405(client):
    response = client.get("/echo")

    assert response.status_code == 405
    assert response.json() == {
        "error": "method_not_allowed",
        "message": 'Method "GET" not allowed.',
    }


@pytest.mark.parametrize(
    "path", ["/nowhere", "/v1/", "/v1/cards/", "/v1/cards/a/b", "/v1/%00", "/v1/" + "x" * 5000]
)
def test_unknown_path_is_404_envelope(client, path):
    response = client.get(path)

    assert response.status_code == 404
    assert response.json() == {
        "error": "not found",
        "message": "The requested resource does not exist.",
    }


def test_bug_is_500_envelope_without_detail(client):
    client.raise_request_exception = False

    response = client.get("/boom")

    assert response.status_code == 500
    assert response.json() == {
        "error": "internal_error",
        "message": "The gateway failed to answer; it has been logged.",
    }
    assert b"secret detail" not in response.content


def test_throttled_scope_is_429_with_retry_after(client, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "cards": "2/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    statuses = [post_json(client, '{"name": "a", "count": 1}').status_code for _ in range(3)]
    response = post_json(client, '{"name": "a", "count": 1}')

    assert statuses == [201, 201, 429]
    assert response.status_code == 429
    assert response.json()["error"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60


def test_throttle_scope_with_no_rate_never_throttles(client, settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "cards": None}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}

    statuses = {post_json(client, '{"name": "a", "count": 1}').status_code for _ in range(30)}

    assert statuses == {201}


def test_request_id_is_minted_and_echoed(client):
    minted = client.get("/healthz")
    adopted = client.get("/healthz", HTTP_X_REQUEST_ID="agent-42.trace")
    refused = client.get("/healthz", HTTP_X_REQUEST_ID="bad id with spaces")

    assert minted["X-Request-ID"].startswith("req_")
    assert adopted["X-Request-ID"] == "agent-42.trace"
    assert refused["X-Request-ID"].startswith("req_")


def nested(depth: int) -> str:
    return '{"name": "ok", "count": 1, "x": ' + "[" * depth + "]" * depth + "}"


def test_json_nested_deeper_than_32_levels_is_refused(client):
    response = post_json(client, nested(40))

    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_body",
        "message": "JSON must not nest deeper than 32 levels.",
    }


def test_json_nested_within_the_limit_is_accepted(client):
    assert post_json(client, nested(20)).status_code == 201


@pytest.mark.parametrize(
    "body",
    ['{"name": "a\\u0000b", "count": 1}', '{"name": "ok", "count": 1, "x": {"k\\u0000": 1}}'],
)
def test_nul_characters_anywhere_are_refused(client, body):
    response = post_json(client, body)

    assert response.status_code == 400
    assert response.json()["message"] == "Strings must not contain NUL characters."


def _cards_rate(settings, rate):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "cards": rate}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


def test_a_forged_x_forwarded_for_does_not_buy_a_fresh_throttle_bucket(client, settings):
    _cards_rate(settings, "2/min")

    statuses = [
        client.post(
            "/echo",
            '{"name": "a", "count": 1}',
            content_type="application/json",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
        ).status_code
        for n in range(3)
    ]

    assert statuses == [201, 201, 429]


def test_throttles_let_requests_through_while_redis_is_unreachable(client, settings):
    _cards_rate(settings, "1/min")
    port = free_port()  # nothing listens there
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
        }
    }

    statuses = [post_json(client, '{"name": "a", "count": 1}').status_code for _ in range(3)]

    assert statuses == [201, 201, 201]


def test_a_number_past_64_bits_in_stored_json_is_served_not_a_500(client):
    """1e20 is parsed as a float; PostgreSQL's jsonb keeps it as the integer 10**20, which
    comes back as a Python int too big for orjson: it is served as a number all the same."""
    shop = register(client, "shop-1")
    patch(client, "/v1/merchant/shop-1", {"metadata": {"big": 1e20}}, shop.token)
    MerchantAgent.objects.filter(merchant_id="shop-1").update(metadata={"big": 10**20})

    answer = get(client, "/v1/merchant/shop-1")

    assert answer.status_code == 200
    assert answer.json()["merchant"]["metadata"] == {"big": 1e20}
