"""Optional query strings in the contract: one plain `string` that also allows the empty value
the API reads as absent, never an `anyOf` of types (which Swagger UI shows as a puzzle)."""

import jsonschema
import pytest

pytestmark = pytest.mark.django_db

CHANNEL_OPERATIONS = [
    ("/v1/recommend", "get"),
    ("/v1/products/{productId}/card", "get"),
    ("/v1/creators/{username}/showcase", "get"),
    ("/v1/report/attribution", "get"),
]


def _parameter(schema, path, method, name):
    parameters = schema["paths"][path][method]["parameters"]
    return next(p for p in parameters if p["name"] == name and p["in"] == "query")


@pytest.mark.parametrize(("path", "method"), CHANNEL_OPERATIONS)
def test_the_channel_query_parameter_is_a_plain_string(client, path, method):
    schema = client.get("/openapi.json").json()

    channel = _parameter(schema, path, method, "channel")["schema"]

    assert channel == {"type": "string", "pattern": "^$|^[A-Za-z0-9._:-]{1,64}$"}
    for allowed in ("", "my-agent", "a" * 64, "agent.v2:beta_1"):
        jsonschema.validate(allowed, channel)
    for refused in ("a b", "a" * 65, "caf\u00e9", None):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(refused, channel)


def test_the_api_reads_channels_as_the_contract_states_them(client, trail_shoe):
    schema = client.get("/openapi.json").json()
    channel = _parameter(schema, "/v1/products/{productId}/card", "get", "channel")["schema"]

    for value in ("", "my-agent", "a b", "a" * 65):
        response = client.get("/v1/products/1001/card", {"channel": value})
        try:
            jsonschema.validate(value, channel)
        except jsonschema.ValidationError:
            assert response.status_code == 400, value
        else:
            assert response.status_code == 200, value
            assert response.json()["channel"] == (value or None)


def test_a_formatted_query_string_keeps_the_empty_value_as_a_second_choice(client):
    schema = client.get("/openapi.json").json()

    since = _parameter(schema, "/v1/intents", "get", "since")["schema"]

    assert since == {
        "anyOf": [{"type": "string", "format": "date-time"}, {"type": "string", "maxLength": 0}]
    }


def test_no_query_parameter_of_the_contract_may_be_null(client):
    schema = client.get("/openapi.json").json()

    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    assert "null" not in str(parameter["schema"]), (path, method, parameter)
