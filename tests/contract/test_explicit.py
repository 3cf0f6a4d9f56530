"""Explicit cases beside the contract fuzzing (test_fuzz.py): values random generation reaches
too seldom to be relied on, checked for every operation the contract lists, and the contract's
own examples against the rules no schema states (rules.py).

- A query value given empty (`limit=`), blank (`intent=%20`), a character too long with a
  space at its end, or valid but padded (` US`, `my-agent%1E`) is refused with 400
  `invalid_parameter` naming it exactly where the contract's schema refuses it, and accepted
  where the schema allows it: DRF reads an optional value given empty as absent (its default),
  and trims strings before it measures or matches them, so either side can drift from the
  other.
- Each request example of the contract obeys the rules of rules.py: one that breaks one (a
  valid_until gone by) is a request the gateway always refuses.
- Every `cursor` query parameter has its rule in rules.py (a cursor is one the gateway issued).
- An intent's constraints at the contract's bounds are accepted, one beyond is refused.

Through Django's test client, on the world of the fuzzing (world.py).

    .venv/bin/pytest -m contract tests/contract/test_explicit.py
"""

import re
from typing import Any
from urllib.parse import quote, urlencode

import orjson
import pytest
from django.test import Client
from jsonschema import Draft202012Validator

from kernel.ids import new_id
from matching.examples import INTENT_ID
from tests.contract.rules import NOT_IN_SCHEMA
from tests.contract.world import CREATOR, DELIVERY_ID, MERCHANT_ID, PRODUCT_IDS, credentials

pytestmark = pytest.mark.contract

contract = orjson.loads(Client(HTTP_HOST="localhost").get("/openapi.json").content)

# Values of the path parameters that name a record of the world; ids the gateway mints are
# made up (their record does not exist, and the query is read before it is looked up).
PATH_VALUES = {
    "merchantId": MERCHANT_ID,
    "intentId": INTENT_ID,
    "username": CREATOR,
    "productId": PRODUCT_IDS[0],
    "deliveryId": DELIVERY_ID,
}
MINTED = re.compile(r"\^([a-z]+)_\[0-9a-f\]\{24\}\$")
# A valid value of each string query parameter: sent as it is for a required one while another
# is probed, and probed with a space before it or a separator (U+001E, which Python's trimming
# takes for white space) after it.
SAMPLES = {
    "intent": "trail running shoes",
    "channel": "my-agent",
    "region": "US",
    "product_id": PRODUCT_IDS[0],
    "status": "failed",
    "locale": "zh",
    "since": "2025-11-20T09:31:05Z",
    "cursor": None,  # any value but one the gateway issued is refused (rules.py)
}


def _probes(name: str, schema: dict[str, Any]) -> list[str]:
    """Empty and blank; for a bounded string one character too long, its last a space (DRF
    trims strings before it measures them); for a string, a valid one padded (DRF trims it
    before it matches a pattern)."""
    probes = ["", " "]
    longest = schema.get("maxLength")
    if longest:
        probes.append(f"{'x' * longest} ")
    if schema.get("type") not in ("integer", "boolean"):
        assert name in SAMPLES, f"no valid value of the query parameter {name}: add it to SAMPLES"
        if SAMPLES[name] is not None:
            probes += [f" {SAMPLES[name]}", f"{SAMPLES[name]}\x1e"]
    return probes


def _operations(location: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, operation) of every operation with a parameter in `location`."""
    return [
        (method, path, operation)
        for path, operations in contract["paths"].items()
        for method, operation in operations.items()
        if any(parameter["in"] == location for parameter in operation.get("parameters", []))
    ]


def _valid(schema: dict[str, Any], raw: str) -> bool:
    """Whether the query value `raw` is one the parameter's schema allows, read as OpenAPI
    reads a query value of that type."""
    value: Any = raw
    if schema.get("type") == "integer":
        if not re.fullmatch(r"-?[0-9]+", raw):
            return False
        value = int(raw)
    elif schema.get("type") == "boolean":
        if raw not in ("true", "false"):
            return False
        value = raw == "true"
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return validator.is_valid(value)


def _allowed_by_rules(operation_id: str, name: str, value: str) -> bool:
    return all(
        rule(value)
        for location, field, rule in NOT_IN_SCHEMA.get(operation_id, [])
        if (location, field) == ("query", name)
    )


def _path(path: str, operation: dict[str, Any]) -> str:
    for parameter in operation.get("parameters", []):
        if parameter["in"] != "path":
            continue
        name = parameter["name"]
        minted = MINTED.fullmatch(parameter["schema"].get("pattern", ""))
        value = PATH_VALUES.get(name) or (new_id(minted.group(1)) if minted else None)
        assert value is not None, f"no value for the path parameter {name}: add it to PATH_VALUES"
        path = path.replace(f"{{{name}}}", value)
    return path


@pytest.mark.parametrize(
    ("method", "path", "operation"),
    _operations("query"),
    ids=[f"{method.upper()} {path}" for method, path, _ in _operations("query")],
)
def test_a_query_value_given_empty_or_blank_is_refused_exactly_where_the_contract_refuses_it(
    gateway, client, method, path, operation
):
    parameters = [parameter for parameter in operation["parameters"] if parameter["in"] == "query"]
    required = {
        parameter["name"]: SAMPLES[parameter["name"]]
        for parameter in parameters
        if parameter.get("required")
    }
    url = _path(path, operation)
    answers = []
    for parameter in parameters:
        name = parameter["name"]
        for probe in _probes(name, parameter["schema"]):
            response = client.generic(
                method.upper(),
                url,
                QUERY_STRING=urlencode({**required, name: probe}, quote_via=quote),
                headers=credentials(operation),
            )
            body = response.json() if response["Content-Type"] == "application/json" else {}
            refused = response.status_code == 400 and name in body.get("fields", {})
            if not _valid(parameter["schema"], probe):
                expected = "refused"
                met = refused and body["error"] == "invalid_parameter"
            elif _allowed_by_rules(operation["operationId"], name, probe):
                expected, met = "accepted", response.status_code != 400
            else:
                continue  # a value the schema allows and a rule refuses: no expectation
            answers.append((name, probe, expected, met, response.status_code, body))
    wrong = [answer for answer in answers if not answer[3]]
    assert answers
    assert not wrong, "\n".join(
        f"{name}={probe!r}: expected {expected}, got {status} {body}"
        for name, probe, expected, _, status, body in wrong
    )


def _request_examples() -> list[tuple[str, str, Any]]:
    return [
        (operation["operationId"], name, example["value"])
        for operations in contract["paths"].values()
        for operation in operations.values()
        for media in operation.get("requestBody", {}).get("content", {}).values()
        for name, example in media.get("examples", {}).items()
        if operation["operationId"] in NOT_IN_SCHEMA
    ]


@pytest.mark.parametrize(
    ("operation_id", "name", "value"),
    _request_examples(),
    ids=[f"{operation_id}: {name}" for operation_id, name, _ in _request_examples()],
)
def test_a_request_example_obeys_the_rules_no_schema_states(operation_id, name, value):
    broken = [
        field
        for location, field, rule in NOT_IN_SCHEMA[operation_id]
        if location == "body" and isinstance(value, dict) and field in value
        if not rule(value[field])
    ]
    assert not broken, f"the example {name!r} of {operation_id} breaks the rule of {broken}"


def test_every_cursor_parameter_has_its_rule():
    cursors = {
        operation["operationId"]
        for _, _, operation in _operations("query")
        for parameter in operation["parameters"]
        if (parameter["in"], parameter["name"]) == ("query", "cursor")
    }
    ruled = {
        operation_id
        for operation_id, rules in NOT_IN_SCHEMA.items()
        if any(location == "query" and field == "cursor" for location, field, _ in rules)
    }

    assert cursors
    assert cursors <= ruled, sorted(cursors - ruled)


def test_constraints_at_the_contracts_bounds_are_accepted_and_beyond_refused(gateway, client):
    schema = contract["components"]["schemas"]["IntentCreateRequest"]["properties"]
    array, members, text = schema["constraints"]["oneOf"]
    most, longest = array["maxItems"], array["items"]["maxLength"]
    assert (members["maxProperties"], text["maxLength"]) == (most, longest)

    def answer(constraints: Any) -> int:
        body = {"raw_query": "trail running shoes", "constraints": constraints}
        return client.post("/v1/intents", body, content_type="application/json").status_code

    assert answer([f"{n:03}".ljust(longest, "x") for n in range(most)]) == 201
    assert answer(["vegan"] * most) == 201
    assert answer({f"k{n:03}": True for n in range(most)}) == 201
    assert answer("x" * longest) == 201
    assert answer(["vegan"] * (most + 1)) == 400  # counted as sent, repeats and all
    assert answer(["x" * (longest + 1)]) == 400
    assert answer({f"k{n:03}": True for n in range(most + 1)}) == 400
    assert answer(" " * (longest + 1)) == 400
