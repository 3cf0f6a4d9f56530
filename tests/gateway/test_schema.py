"""The contract: generated, valid, warning-free, and served with a local Swagger UI."""

import re

import pytest
from django.core.management import call_command
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

EXPECTED_PATHS = {
    "/v1/cards/{recId}",
    "/v1/products/{productId}/card",
    "/v1/creators/{username}/showcase",
    "/r/{recId}",
    "/healthz",
    "/readyz",
    "/v1/merchant/register",
    "/v1/merchant/{merchantId}",
    "/v1/merchant/heartbeat",
    "/v1/merchant/{merchantId}/deactivate",
    "/v1/merchant/{merchantId}/rotate-token",
    "/v1/merchant/{merchantId}/deliveries",
    "/v1/merchant/{merchantId}/deliveries/{deliveryId}/retry",
    "/v1/intents",
    "/v1/intents/{intentId}",
    "/v1/intents/{intentId}/proposals",
    "/v1/proposals",
    "/v1/proposals/{proposalId}",
    "/v1/match",
    "/v1/match/{matchSessionId}",
    "/v1/match/{matchSessionId}/accept",
    "/v1/match-tokens/{matchTokenId}",
    "/v1/intent-mandates/sign",
    "/v1/intent-mandates/verify",
    "/.well-known/jwks.json",
    "/v1/attribution/conversions",
    "/v1/report/attribution",
}

TOKEN_OPERATIONS = [
    ("/v1/merchant/heartbeat", "post"),
    ("/v1/merchant/{merchantId}/deactivate", "post"),
    ("/v1/merchant/{merchantId}", "patch"),
    ("/v1/merchant/{merchantId}/rotate-token", "post"),
    ("/v1/merchant/{merchantId}/deliveries", "get"),
    ("/v1/merchant/{merchantId}/deliveries/{deliveryId}/retry", "post"),
    ("/v1/proposals", "post"),
    ("/v1/intents", "get"),
    ("/v1/attribution/conversions", "post"),
]


def test_schema_builds_valid_without_warnings(tmp_path):
    out = tmp_path / "openapi.yaml"

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))

    assert out.stat().st_size > 0


def test_openapi_json_describes_every_endpoint_with_its_errors(client):
    response = client.get("/openapi.json")

    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"] == "3.1.0"
    assert schema["info"]["version"] == "0.1.0"
    assert set(schema["paths"]) >= EXPECTED_PATHS
    showcase = schema["paths"]["/v1/creators/{username}/showcase"]["get"]
    assert {"200", "400", "404", "429"} <= set(showcase["responses"])
    error = schema["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"error", "message"}


def test_card_schema_lists_every_required_field_of_the_interface(client):
    card = client.get("/openapi.json").json()["components"]["schemas"]["Card"]

    assert set(card["required"]) >= {
        "rec_id",
        "product",
        "hero_pitch",
        "selection_story",
        "videos",
        "cta",
        "generated_at",
    }


@pytest.mark.django_db
def test_swagger_ui_is_served_from_local_assets(client):
    response = client.get("/docs/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "/openapi.json" in html
    # Every asset the page loads is the gateway's own (a CSRF token may spell "cdn" by chance).
    loaded = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert loaded
    assert all(url.startswith("/") and not url.startswith("//") for url in loaded), loaded
    asset = next(part.split('"')[0] for part in html.split('src="')[1:] if "swagger" in part)
    assert client.get(asset).status_code == 200


def test_merchant_token_operations_declare_the_api_key_scheme(client):
    schema = client.get("/openapi.json").json()

    assert schema["components"]["securitySchemes"]["MerchantToken"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Merchant-Token",
        "description": "The registration_token returned by POST /v1/merchant/register.",
    }
    for path, method in TOKEN_OPERATIONS:
        operation = schema["paths"][path][method]
        assert operation["security"] == [{"MerchantToken": []}], (path, method)
        assert {"401", "403"} <= set(operation["responses"]), (path, method)
    public = schema["paths"]["/v1/intents"]["post"]
    assert "security" not in public or {} in public["security"]


def test_registration_declares_the_token_as_optional(client):
    operation = client.get("/openapi.json").json()["paths"]["/v1/merchant/register"]["post"]

    assert operation["security"] == [{"MerchantToken": []}, {}]


def test_mandate_signing_declares_its_errors_and_the_signed_body(client):
    schema = client.get("/openapi.json").json()

    sign = schema["paths"]["/v1/intent-mandates/sign"]["post"]
    # 409 and 422: an Idempotency-Key in flight, or reused with another body.
    assert set(sign["responses"]) == {"201", "400", "409", "413", "422", "429", "503"}
    signed = schema["components"]["schemas"]["SignedIntentMandate"]
    assert set(signed["required"]) == {
        "mandate",
        "canonical_payload",
        "signature",
        "algorithm",
        "key_id",
        "jwks_url",
    }
    request = schema["components"]["schemas"]["IntentMandateSignRequest"]
    assert set(request["required"]) == {"product_id", "amount_limit"}
    verify = schema["paths"]["/v1/intent-mandates/verify"]["post"]
    assert set(verify["responses"]) == {"200", "400", "409", "413", "422", "429"}


def test_the_report_declares_the_supply_key_scheme(client):
    schema = client.get("/openapi.json").json()

    assert schema["components"]["securitySchemes"]["SupplyKey"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-Supply-Key",
        "description": "One of the keys configured in SUPPLY_API_KEYS.",
    }
    operation = schema["paths"]["/v1/report/attribution"]["get"]
    assert operation["security"] == [{"SupplyKey": []}]
    assert {"200", "400", "401", "429"} <= set(operation["responses"])
    assert {parameter["name"] for parameter in operation["parameters"]} == {
        "days",
        "channel",
        "product_id",
    }


# Every operation of the interface (gateway-interface.md, "Endpoints" and "Discovery
# documents") with the status codes the interface documents for it.
INTERFACE = {
    ("/v1/recommend", "get"): {"200", "503"},
    ("/v1/cards/{recId}", "get"): {"200", "404"},
    ("/v1/products/{productId}/card", "get"): {"200"},
    ("/v1/creators/{username}/showcase", "get"): {"200"},
    ("/v1/merchant/register", "post"): {"200", "400"},
    ("/v1/merchant/{merchantId}", "get"): {"200", "404"},
    ("/v1/merchant/{merchantId}/health", "get"): {"200", "503"},
    ("/v1/merchant/heartbeat", "post"): {"200", "401", "403"},
    ("/v1/merchant/{merchantId}/deactivate", "post"): {"200", "401", "403"},
    ("/v1/intents", "post"): {"201", "400"},
    ("/v1/intents/{intentId}", "get"): {"200", "404"},
    ("/v1/intents/{intentId}/proposals", "get"): {"200", "404"},
    ("/v1/intent-mandates/sign", "post"): {"201", "400", "503"},
    ("/v1/proposals", "post"): {"201", "401", "403", "404"},
    ("/v1/proposals/{proposalId}", "get"): {"200", "404"},
    ("/v1/match", "post"): {"201", "400", "404"},
    ("/v1/match/{matchSessionId}", "get"): {"200", "404"},
    ("/v1/match/{matchSessionId}/accept", "post"): {"200", "404"},
    ("/v1/match-tokens/{matchTokenId}", "get"): {"200", "404"},
    ("/v1/report/attribution", "get"): {"200", "401"},
    ("/openapi.json", "get"): {"200"},
    ("/.well-known/agent-card.json", "get"): {"200"},
}

# The documented bounds of query values (the interface's "Limits").
QUERY_BOUNDS = [
    ("/v1/recommend", "limit", {"type": "integer", "minimum": 1, "maximum": 10, "default": 3}),
    (
        "/v1/creators/{username}/showcase",
        "limit",
        {"type": "integer", "minimum": 1, "maximum": 10, "default": 6},
    ),
    ("/v1/match/{matchSessionId}", "limit", {"type": "integer", "minimum": 1, "maximum": 10}),
    (
        "/v1/report/attribution",
        "days",
        {"type": "integer", "minimum": 1, "maximum": 365, "default": 30},
    ),
]

# 5xx answers whose body is the operation's own report rather than the error envelope.
REPORT_BODIES = {("/readyz", "get", "503"), ("/v1/merchant/{merchantId}/health", "get", "503")}


def _operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def _validator(schema, sub_schema):
    # Component references ("#/components/...") resolve against the document's root.
    return Draft202012Validator({**sub_schema, "components": schema["components"]})


def test_openapi_json_is_valid_openapi_3_1(client):
    schema = client.get("/openapi.json").json()

    validate(schema)  # raises on any error

    assert schema["openapi"] == "3.1.0"


def test_every_operation_of_the_interface_declares_its_documented_status_codes(client):
    schema = client.get("/openapi.json").json()

    missing = {
        (path, method): sorted(
            codes - set(schema["paths"].get(path, {}).get(method, {}).get("responses", {}))
        )
        for (path, method), codes in INTERFACE.items()
    }

    assert {key: codes for key, codes in missing.items() if codes} == {}


def test_query_limits_carry_the_documented_bounds(client):
    schema = client.get("/openapi.json").json()

    for path, name, bounds in QUERY_BOUNDS:
        parameter = next(p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == name)
        assert parameter["in"] == "query"
        assert parameter["schema"] == bounds, path
    match = schema["components"]["schemas"]["MatchCreateRequest"]["properties"]["limit"]
    assert match == {"type": "integer", "minimum": 1, "maximum": 10, "default": 3}
    amount = schema["components"]["schemas"]["IntentMandateSignRequest"]["properties"]
    assert amount["amount_limit"]["exclusiveMinimum"] == 0


def test_path_parameters_of_minted_ids_carry_their_pattern(client):
    schema = client.get("/openapi.json").json()

    card = schema["paths"]["/v1/cards/{recId}"]["get"]["parameters"]
    assert card == [
        {
            "in": "path",
            "name": "recId",
            "schema": {"type": "string", "pattern": "^rec_[0-9a-f]{24}$"},
            "description": "The card's rec_id: `rec_` and 24 hex characters.",
            "required": True,
        }
    ]
    for path, _method, operation in _operations(schema):
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "path":
                assert "pattern" in parameter["schema"], (path, parameter["name"])
                assert parameter["description"], (path, parameter["name"])


def test_every_operation_has_a_summary_a_declared_tag_and_its_security(client):
    schema = client.get("/openapi.json").json()
    tags = {tag["name"]: tag["description"] for tag in schema["tags"]}

    assert all(tags.values())
    for path, method, operation in _operations(schema):
        assert operation["summary"], (path, method)
        assert operation["operationId"], (path, method)
        assert len(operation["tags"]) == 1, (path, method)
        assert operation["tags"][0] in tags, (path, method)
        # [{}]: public; otherwise the scheme(s) the operation needs.
        assert operation["security"], (path, method)
    used = {operation["tags"][0] for _, _, operation in _operations(schema)}
    assert used == set(tags)


def test_error_responses_use_the_envelope_and_name_their_codes(client):
    schema = client.get("/openapi.json").json()

    for path, method, operation in _operations(schema):
        for status, response in operation["responses"].items():
            if int(status) < 400 or (path, method, status) in REPORT_BODIES:
                continue
            body = response["content"]["application/json"]["schema"]
            # UCP's routes answer UCP's error response (tests/agents/test_ucp.py checks it).
            shape = "UcpErrorResponse" if path.startswith("/ucp/") else "Error"
            assert body == {"$ref": f"#/components/schemas/{shape}"}, (path, method, status)
            assert "`" in response["description"], (path, method, status)


def test_bodies_can_be_too_large_and_throttled_answers_name_retry_after(client):
    schema = client.get("/openapi.json").json()

    for path, method, operation in _operations(schema):
        if "requestBody" in operation:
            assert "413" in operation["responses"], (path, method)
        throttled = operation["responses"].get("429")
        if throttled:
            assert throttled["headers"]["Retry-After"]["schema"] == {
                "type": "integer",
                "minimum": 1,
            }
    assert "429" in schema["paths"]["/v1/recommend"]["get"]["responses"]
    assert "429" not in schema["paths"]["/v1/proposals/{proposalId}"]["get"]["responses"]


def test_main_operations_carry_examples_that_match_their_schemas(client):
    schema = client.get("/openapi.json").json()
    with_request_examples = {
        ("/v1/merchant/register", "post"),
        ("/v1/intents", "post"),
        ("/v1/proposals", "post"),
        ("/v1/match", "post"),
        ("/v1/match/{matchSessionId}/accept", "post"),
        ("/v1/intent-mandates/sign", "post"),
        ("/v1/intent-mandates/verify", "post"),
        ("/v1/attribution/conversions", "post"),
    }
    with_response_examples = with_request_examples | {
        ("/v1/recommend", "get"),
        ("/v1/cards/{recId}", "get"),
        ("/v1/products/{productId}/card", "get"),
        ("/v1/creators/{username}/showcase", "get"),
        ("/v1/report/attribution", "get"),
        ("/v1/merchant/{merchantId}/deliveries", "get"),
        ("/v1/merchant/{merchantId}/deliveries/{deliveryId}/retry", "post"),
    }
    checked = set()

    for path, method, operation in _operations(schema):
        bodies = [("request", operation.get("requestBody", {}))]
        bodies += [(status, response) for status, response in operation["responses"].items()]
        for where, body in bodies:
            content = body.get("content", {}).get("application/json", {})
            for name, example in content.get("examples", {}).items():
                errors = list(_validator(schema, content["schema"]).iter_errors(example["value"]))
                assert errors == [], (path, method, where, name, errors[:1])
                checked.add((path, method, "request" if where == "request" else "response"))

    assert {(path, method, "request") for path, method in with_request_examples} <= checked
    assert {(path, method, "response") for path, method in with_response_examples} <= checked


def test_a_non_blank_string_pattern_allows_exactly_what_trimming_keeps():
    """A request string's `pattern` holds what DRF's trimming (str.strip()) leaves a character,
    read as a JSON Schema validator (ECMA-262) or Python reads it."""
    import re
    import sys

    from kernel.serializer_fields import NOT_SPACE

    kept = re.compile(NOT_SPACE)
    every = (chr(code) for code in range(sys.maxunicode + 1) if not 0xD800 <= code <= 0xDFFF)
    assert [char for char in every if bool(kept.search(char)) == char.isspace()] == []
    assert Draft202012Validator({"type": "string", "pattern": NOT_SPACE}).is_valid(" a ")
    assert not Draft202012Validator({"type": "string", "pattern": NOT_SPACE}).is_valid(" \x1c\x85")
