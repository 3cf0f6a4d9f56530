"""UCP's published JSON schemas as validators, offline: one directory per release under
tests/agents/ucp_schemas/ (2026-04-08 and 2026-08-25, each with its README and licence), each
laid out as its release's source directory and loaded into a registry of its own (both releases
name their schemas `https://ucp.dev/schemas/...`).

Each schema is registered under its `$id`, and also where UCP's relative references find it:
release 2026-04-08's discovery profile has the `$id` .../schemas/discovery/profile.json but
refers to `../schemas/ucp.json` as its file sits in `source/discovery/`, which resolves to
https://ucp.dev/schemas/schemas/ucp.json; the second name makes that resolve to the file.

`Release` names the schemas of one release that the gateway's answers are checked against:
`RELEASES["2026-08-25"].SEARCH_RESPONSE` and so on."""

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

HERE = Path(__file__).resolve().parent / "ucp_schemas"
SCHEMAS = "https://ucp.dev/schemas"


@functools.cache
def registry(release: str) -> Registry:
    resources = []
    root = HERE / release
    for path in sorted(root.rglob("*.json")):
        schema = json.loads(path.read_text())
        resource = Resource.from_contents(schema)
        resources.append((schema["$id"], resource))
        resources.append((f"{SCHEMAS}/{path.relative_to(root).as_posix()}", resource))
    return Registry().with_resources(resources)


def errors_in(release: str, ref: str, document: Any) -> list[str]:
    """Every way `document` breaks the schema at `ref` (an `$id`, with a fragment for a `$defs`
    entry) of `release`: empty when it is valid."""
    validator = Draft202012Validator(
        {"$ref": ref}, registry=registry(release), format_checker=FormatChecker()
    )
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


@dataclass(frozen=True)
class Release:
    """The schemas of one release that UCP's answers and requests are checked against."""

    version: str
    BUSINESS_PROFILE: str
    PROFILE: str
    ERROR_RESPONSE: str
    SEARCH_REQUEST: str = f"{SCHEMAS}/shopping/catalog_search.json#/$defs/search_request"
    SEARCH_RESPONSE: str = f"{SCHEMAS}/shopping/catalog_search.json#/$defs/search_response"
    LOOKUP_REQUEST: str = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/lookup_request"
    LOOKUP_RESPONSE: str = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/lookup_response"
    PRODUCT_REQUEST: str = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/get_product_request"
    PRODUCT_RESPONSE: str = f"{SCHEMAS}/shopping/catalog_lookup.json#/$defs/get_product_response"

    def errors(self, ref: str, document: Any) -> list[str]:
        return errors_in(self.version, ref, document)


APRIL = Release(
    "2026-04-08",
    BUSINESS_PROFILE=f"{SCHEMAS}/discovery/profile.json#/$defs/business_profile",
    PROFILE=f"{SCHEMAS}/discovery/profile.json",
    ERROR_RESPONSE=f"{SCHEMAS}/shopping/types/error_response.json",
)
AUGUST = Release(
    "2026-08-25",
    BUSINESS_PROFILE=f"{SCHEMAS}/profile.json#/$defs/business_schema",
    PROFILE=f"{SCHEMAS}/profile.json",
    ERROR_RESPONSE=f"{SCHEMAS}/common/types/error_response.json",
)
RELEASES = {release.version: release for release in (APRIL, AUGUST)}

# Release 2026-04-08's, as the tests written for it name them.
BUSINESS_PROFILE = APRIL.BUSINESS_PROFILE
PROFILE = APRIL.PROFILE
SEARCH_REQUEST = APRIL.SEARCH_REQUEST
SEARCH_RESPONSE = APRIL.SEARCH_RESPONSE
LOOKUP_REQUEST = APRIL.LOOKUP_REQUEST
LOOKUP_RESPONSE = APRIL.LOOKUP_RESPONSE
PRODUCT_REQUEST = APRIL.PRODUCT_REQUEST
PRODUCT_RESPONSE = APRIL.PRODUCT_RESPONSE
ERROR_RESPONSE = APRIL.ERROR_RESPONSE


def errors(ref: str, document: Any) -> list[str]:
    """Every way `document` breaks release 2026-04-08's schema at `ref`: empty when valid."""
    return APRIL.errors(ref, document)
