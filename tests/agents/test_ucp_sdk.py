"""Every kind of UCP answer the gateway gives, in both releases, read by UCP's official Python
models (pydantic, one per schema, `Model.model_validate`): release 2026-08-25's by ucp-sdk 0.5.0,
the virtualenv's, release 2026-04-08's by ucp-sdk 0.4.6 in its sidecar (tests/support/sidecars.py),
and each by its own release's JSON schemas as well.

The answers are the REST binding's, for a platform whose profile (on loopback) declares the
release; the MCP tools answer the same documents (tests/agents/test_ucp_mcp.py)."""

import json
from typing import Any

import pytest
from ucp_sdk.models.schemas.common.types.error_response import (  # type: ignore[import-untyped]
    ErrorResponse,
)
from ucp_sdk.models.schemas.profile import BusinessSchema  # type: ignore[import-untyped]
from ucp_sdk.models.schemas.shopping.catalog_lookup import (  # type: ignore[import-untyped]
    GetProductResponse,
    LookupResponse,
)
from ucp_sdk.models.schemas.shopping.catalog_search import (  # type: ignore[import-untyped]
    SearchResponse,
)

from tests.agents.test_ucp import SHOES, post
from tests.agents.test_ucp_releases import agent
from tests.agents.ucp_validation import RELEASES
from tests.support.sidecars import run_json
from tests.support.ucp_platforms import PlatformProfiles

pytestmark = pytest.mark.django_db

Answers = dict[str, tuple[str, Any]]  # name -> (its kind: the schema it answers to, the answer)

MODELS_0_5 = {
    "profile": BusinessSchema,
    "search": SearchResponse,
    "lookup": LookupResponse,
    "product": GetProductResponse,
    "error": ErrorResponse,
}

# Run in the sidecar: reads {name: [kind, answer]} on stdin, prints what ucp-sdk 0.4.6's models
# say of each, and where its models were read from (the sidecar's directory alone).
SIDECAR = """
import json, os, sys
from importlib.metadata import distributions

home = os.environ["PYTHONPATH"].split(os.pathsep)[0]

from ucp_sdk.models.schemas import ucp
from ucp_sdk.models.schemas.shopping import catalog_lookup, catalog_search
from ucp_sdk.models.schemas.shopping.types import error_response

models = {
    "profile": lambda answer: ucp.BusinessSchema.model_validate(answer["ucp"]),
    "search": catalog_search.SearchResponse.model_validate,
    "lookup": catalog_lookup.LookupResponse.model_validate,
    "product": catalog_lookup.GetProductResponse.model_validate,
    "error": error_response.ErrorResponse.model_validate,
}
answers = json.load(sys.stdin)
problems = {}
for name, (kind, answer) in answers.items():
    try:
        models[kind](answer)
    except Exception as exc:
        problems[name] = str(exc)
read_from = {module.__file__.startswith(home) for module in (ucp, catalog_search, error_response)}
release = [d.version for d in distributions(path=[home]) if d.metadata["Name"] == "ucp-sdk"]
print(json.dumps({"sdk": release, "from_sidecar": sorted(read_from), "problems": problems}))
"""


def collected(client, engine, platforms: PlatformProfiles, version: str) -> Answers:
    """One answer of each kind the gateway gives a platform of `version`."""
    url = platforms.platform(version)
    engine.answer("running shoes", **SHOES)
    asked: dict[str, Any] = {"query": "running shoes", "pagination": {"limit": 2}}

    def answer(path: str, body: Any, status: int = 200, **headers: str) -> Any:
        response = post(client, path, body, **(headers or agent(url)))
        assert response.status_code == status, response.content
        return response.json()

    profile_path = "/.well-known/ucp" if version == "2026-08-25" else f"/.well-known/ucp/{version}"
    first = answer("/ucp/catalog/search", asked)
    following = {**asked, "pagination": {"limit": 2, "cursor": first["pagination"]["cursor"]}}
    answers: Answers = {
        "profile": ("profile", client.get(profile_path).json()),
        "search": ("search", first),
        "next page": ("search", answer("/ucp/catalog/search", following)),
        "lookup": ("lookup", answer("/ucp/catalog/lookup", {"ids": ["2001", "2001-default", "0"]})),
        "product": ("product", answer("/ucp/catalog/product", {"id": "2001"})),
        "product not found": ("error", answer("/ucp/catalog/product", {"id": "4242"})),
        "invalid body": ("error", answer("/ucp/catalog/search", {"query": 7}, 400)),
        "invalid cursor": (
            "error",
            answer("/ucp/catalog/search", {**asked, "pagination": {"cursor": "x"}}, 400),
        ),
        "too many ids": (
            "error",
            answer("/ucp/catalog/lookup", {"ids": [str(n) for n in range(51)]}, 400),
        ),
    }
    if version == "2026-08-25":  # the negotiation's errors are answered in the current release
        unspoken = agent(platforms.platform("2026-01-23"))
        unreachable = agent(platforms.serve(b"", 404))
        lookup = {"ids": ["2001"]}
        answers |= {
            "version unsupported": (
                "error",
                answer("/ucp/catalog/lookup", lookup, 422, **unspoken),
            ),
            "profile unreachable": (
                "error",
                answer("/ucp/catalog/lookup", lookup, 424, **unreachable),
            ),
            "invalid profile url": (
                "error",
                answer("/ucp/catalog/lookup", lookup, 400, **{"UCP-Agent": "profile=x"}),
            ),
        }
    for name, (_kind, body) in answers.items():
        assert body.get("ucp", {}).get("version") == version or name.startswith(
            ("version", "profile ", "invalid profile")
        ), name
    return answers


SCHEMA_OF = {
    "profile": "BUSINESS_PROFILE",
    "search": "SEARCH_RESPONSE",
    "lookup": "LOOKUP_RESPONSE",
    "product": "PRODUCT_RESPONSE",
    "error": "ERROR_RESPONSE",
}


def schema_problems(version: str, answers: Answers) -> dict[str, list[str]]:
    release = RELEASES[version]
    found = {
        name: release.errors(getattr(release, SCHEMA_OF[kind]), body)
        for name, (kind, body) in answers.items()
    }
    return {name: problems for name, problems in found.items() if problems}


def test_ucp_sdk_0_5_reads_every_answer_of_2026_08_25(client, shelf, engine, platforms):
    answers = collected(client, engine, platforms, "2026-08-25")

    problems = {}
    for name, (kind, body) in answers.items():
        try:
            MODELS_0_5[kind].model_validate(body)
        except ValueError as error:  # pydantic's ValidationError
            problems[name] = str(error)

    assert problems == {}
    assert schema_problems("2026-08-25", answers) == {}
    assert {kind for kind, _body in answers.values()} == set(MODELS_0_5)
    # The models refuse what UCP does not allow: the check is no formality.
    with pytest.raises(ValueError, match="products"):
        SearchResponse.model_validate({**answers["search"][1], "products": "none"})


def test_ucp_sdk_0_4_reads_every_answer_of_2026_04_08(client, shelf, engine, platforms):
    answers = collected(client, engine, platforms, "2026-04-08")
    broken = {"ucp": answers["search"][1]["ucp"], "products": "none"}

    read = run_json("ucp-sdk-0.4", SIDECAR, stdin={**answers, "broken": ("search", broken)})

    assert isinstance(read, dict)
    assert read["sdk"] == ["0.4.6"]
    assert read["from_sidecar"] == [True]
    assert set(read["problems"]) == {"broken"}, json.dumps(read["problems"], indent=1)
    assert schema_problems("2026-04-08", answers) == {}
    assert {kind for kind, _body in answers.values()} == set(MODELS_0_5)
