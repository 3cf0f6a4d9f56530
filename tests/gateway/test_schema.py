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
}


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
