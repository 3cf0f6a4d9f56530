"""The gateway's public operations as agents call them: one name, one input schema, one JSON
result, whichever protocol carries the call (A2A messages, MCP tools).

An operation is a REST operation of the contract, called by its operationId. Its input schema
is read off the contract (/openapi.json), which drf-spectacular generates from the REST API's
own serializers: path and query parameters and the body's fields side by side, as one object.
Path parameters take their snake_case names (`rec_id` for `{recId}`), as the bodies name ids.
A call runs through the REST API itself, in process (agents/dispatch.py): the same validation,
services, throttles, errors and JSON, so the protocols can never drift from the API.
"""

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.dispatch import Dispatcher, Reply, filled
from kernel.errors import (
    MISSING_ARGUMENTS,
    NOT_A_PATH_VALUE,
    NOT_ARGUMENTS,
    UNKNOWN_ARGUMENTS,
    UNKNOWN_OPERATION,
    ApiError,
)
from kernel.handlers import error_body
from kernel.schema import english_schema

BUY_LINK = (
    " Each card's cta.primary.url is the buy link: hand it to the user verbatim, never "
    "shortened or rewritten (it carries the rec_id that attributes the sale)."
)

# Tool name -> (operationId, what an assistant should know beyond the contract's summary).
OPERATIONS: dict[str, tuple[str, str]] = {
    "recommend": ("recommend", BUY_LINK),
    "get_card": ("getCard", BUY_LINK),
    "product_card": ("getProductCard", BUY_LINK),
    "creator_showcase": ("getCreatorShowcase", BUY_LINK),
    "create_intent": ("createIntent", ""),
    "get_intent": ("getIntent", ""),
    "list_proposals": ("listIntentProposals", ""),
    "create_match": ("createMatch", ""),
    "get_match": ("getMatch", ""),
    "accept": ("acceptMatch", ""),
    "get_match_token": ("getMatchToken", ""),
}

_COMPONENT = "#/components/schemas/"


@dataclass(frozen=True)
class Operation:
    name: str
    method: str
    path: str  # the contract's template: /v1/cards/{recId}
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    path_parameters: dict[str, str]  # snake_case argument -> template name
    query_parameters: frozenset[str]
    body_fields: frozenset[str]


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"][len(_COMPONENT) :]} if "$ref" in node else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(item) for item in node))
    return set()


def _local(node: Any) -> Any:
    """`node` with its references into the contract's components pointed at `$defs`."""
    if isinstance(node, dict):
        return {
            key: value.replace(_COMPONENT, "#/$defs/") if key == "$ref" else _local(value)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_local(item) for item in node]
    return node


def _self_contained(schema: dict[str, Any], components: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with every component it reaches copied into its own `$defs`."""
    needed: set[str] = set()
    pending = _refs(schema)
    while pending:
        name = pending.pop()
        if name not in needed:
            needed.add(name)
            pending |= _refs(components[name]) - needed
    result = _local(schema)
    if needed:
        result["$defs"] = {name: _local(components[name]) for name in sorted(needed)}
    return result


def build(name: str, operation_id: str, advice: str, contract: dict[str, Any]) -> Operation:
    components = contract.get("components", {}).get("schemas", {})
    found = [
        (method, path, spec)
        for path, methods in contract["paths"].items()
        for method, spec in methods.items()
        if spec.get("operationId") == operation_id
    ]
    if len(found) != 1:
        raise LookupError(f"the contract has no single operation {operation_id}")
    method, path, spec = found[0]
    properties: dict[str, Any] = {}
    required: list[str] = []
    path_parameters: dict[str, str] = {}
    query: set[str] = set()
    for parameter in spec.get("parameters", []):
        if parameter["in"] == "path":
            argument = snake_case(parameter["name"])
            path_parameters[argument] = parameter["name"]
        elif parameter["in"] == "query":
            argument = parameter["name"]
            query.add(argument)
        else:
            continue
        properties[argument] = {
            **parameter["schema"],
            **({"description": parameter["description"]} if "description" in parameter else {}),
        }
        if parameter.get("required"):
            required.append(argument)
    body: dict[str, Any] = {}
    content = spec.get("requestBody", {}).get("content", {}).get("application/json")
    if content:
        body = content["schema"]
        if "$ref" in body:
            body = components[body["$ref"][len(_COMPONENT) :]]
        properties.update(body.get("properties", {}))
        required += body.get("required", [])
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if "anyOf" in body:
        schema["anyOf"] = body["anyOf"]
    answer = spec["responses"].get("200", spec["responses"].get("201", {}))
    output = answer.get("content", {}).get("application/json", {}).get("schema")
    if output and "$ref" in output:  # MCP wants the object itself at the top
        output = components[output["$ref"][len(_COMPONENT) :]]
    summary = spec.get("summary", "")
    details = spec.get("description", "")
    return Operation(
        name=name,
        method=method.upper(),
        path=path,
        description=f"{summary}. {details}{advice}".strip(),
        input_schema=_self_contained(schema, components),
        output_schema=_self_contained(output, components) if output else None,
        path_parameters=path_parameters,
        query_parameters=frozenset(query),
        body_fields=frozenset(body.get("properties", {})),
    )


@functools.cache
def catalog() -> dict[str, Operation]:
    """Every operation agents may call, by name, built once per process from the contract."""
    contract = english_schema()
    return {
        name: build(name, operation_id, advice, contract)
        for name, (operation_id, advice) in OPERATIONS.items()
    }


async def call(dispatcher: Dispatcher, name: str, arguments: Any) -> Reply:
    """Run the operation `name` with `arguments` through the REST API. A call the REST API could
    not even be asked (an unknown operation or argument, a missing id) answers the error the API
    would give a request that wrong, without asking."""
    operations = catalog()
    operation = operations.get(name)
    if operation is None:
        return _refused(UNKNOWN_OPERATION(name=name, names=", ".join(operations)))
    if not isinstance(arguments, dict):
        return _refused(NOT_ARGUMENTS(operation=name))
    known = operation.path_parameters.keys() | operation.query_parameters | operation.body_fields
    if unknown := sorted(set(arguments) - known):
        return _refused(UNKNOWN_ARGUMENTS(operation=name, names=", ".join(unknown)))
    if missing := [key for key in operation.path_parameters if key not in arguments]:
        return _refused(MISSING_ARGUMENTS(names=", ".join(missing)))
    ids = {key: arguments[key] for key in operation.path_parameters}
    if wrong := [key for key, value in ids.items() if not isinstance(value, str) or not value]:
        return _refused(NOT_A_PATH_VALUE(names=", ".join(wrong)))
    path = filled(operation.path, {operation.path_parameters[key]: ids[key] for key in ids})
    query = {key: arguments[key] for key in operation.query_parameters if key in arguments}
    body = {key: arguments[key] for key in operation.body_fields if key in arguments}
    return await dispatcher.call(
        operation.method, path, query=query, body=body if operation.method != "GET" else None
    )


def _refused(error: ApiError) -> Reply:
    return Reply(error.status_code, error_body(error.code, error.message), {})
