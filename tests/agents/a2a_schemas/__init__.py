"""A2A's published JSON schemas as validators, offline (README.md beside this file says where
each comes from): `errors_in("1.0", "Agent Card", card)` lists every way `card` breaks the
definition "Agent Card" of A2A v1.0; empty, it is valid."""

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft7Validator, Draft202012Validator
from jsonschema.protocols import Validator
from referencing import Registry, Resource

HERE = Path(__file__).resolve().parent
# How the v1.0 bundle's definitions name each other: by their title without spaces.
V1_REFS = ("lf.a2a.v1.{name}.jsonschema.json", "google.protobuf.{name}.jsonschema.json")


@functools.cache
def _v1() -> tuple[dict[str, Any], Registry]:
    bundle = json.loads((HERE / "a2a-v1.0.json").read_text())
    definitions = bundle["definitions"]
    registry = Registry().with_resources(
        (ref.format(name=title.replace(" ", "")), Resource.from_contents(schema))
        for title, schema in definitions.items()
        for ref in V1_REFS
    )
    return definitions, registry


@functools.cache
def _v0_3() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((HERE / "a2a-v0.3.json").read_text())
    return schema


def _validator(version: str, definition: str) -> Validator:
    if version == "1.0":
        definitions, registry = _v1()
        return Draft202012Validator(definitions[definition], registry=registry)
    schema = _v0_3()
    assert definition in schema["definitions"], definition
    return Draft7Validator({**schema, "$ref": f"#/definitions/{definition}"})


def errors_in(version: str, definition: str, document: Any) -> list[str]:
    """Every way `document` breaks `definition` of A2A `version` ("1.0": a title of the v1.0
    bundle, "Agent Card"; "0.3": a definition of v0.3's, "AgentCard")."""
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in _validator(version, definition).iter_errors(document)
    ]
