"""UCP's published JSON schemas (tests/agents/ucp_schemas/, UCP 2026-04-08, laid out as the
release's `source/` directory) as validators, offline.

Each schema is registered under its `$id`, and also where UCP's relative references find it:
the release's discovery profile has the `$id` .../schemas/discovery/profile.json but refers to
`../schemas/ucp.json` as its file sits in `source/discovery/`, which resolves to
https://ucp.dev/schemas/schemas/ucp.json; the second name makes that resolve to the file."""

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

HERE = Path(__file__).resolve().parent / "ucp_schemas"


@functools.cache
def registry() -> Registry:
    resources = []
    for path in sorted(HERE.rglob("*.json")):
        schema = json.loads(path.read_text())
        resource = Resource.from_contents(schema)
        resources.append((schema["$id"], resource))
        resources.append((f"https://ucp.dev/schemas/{path.relative_to(HERE).as_posix()}", resource))
    return Registry().with_resources(resources)


def validator(ref: str) -> Draft202012Validator:
    """A validator of the schema at `ref` (an `$id`, with a fragment for a `$defs` entry)."""
    return Draft202012Validator({"$ref": ref}, registry=registry(), format_checker=FormatChecker())


def errors(ref: str, document: Any) -> list[str]:
    """Every way `document` breaks the schema at `ref`: empty when it is valid."""
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator(ref).iter_errors(document)
    ]


SCHEMAS = "https://ucp.dev/schemas"
BUSINESS_PROFILE = f"{SCHEMAS}/discovery/profile.json#/$defs/business_profile"
PROFILE = f"{SCHEMAS}/discovery/profile.json"
SEARCH_REQUEST = f"{SCHEMAS}/shopping/catalog_search.json#/$defs/search_request"
SEARCH_RESPONSE = f"{SCHEMAS}/shopping/catalog_search.json#/$defs/search_response"
LOOKUP_REQUEST = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/lookup_request"
LOOKUP_RESPONSE = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/lookup_response"
PRODUCT_REQUEST = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/get_product_request"
PRODUCT_RESPONSE = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/get_product_response"
ERROR_RESPONSE = f"{SCHEMAS}/shopping/types/error_response.json"
