"""The contract: generated, valid, warning-free, and served with a local Swagger UI."""

import pytest
from django.core.management import call_command

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
    assert "cdn" not in html.lower()
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
    assert set(sign["responses"]) == {"201", "400", "429", "503"}
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
    assert set(verify["responses"]) == {"200", "400"}


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
