"""One door per concern, enforced: each agent protocol's code lives in its package under
`agents/` (agents/a2a/, agents/mcp/, agents/ucp/: its SDK, its paths, its error codes, its
modules), and the tables every app shares are the kernel's (kernel/models.py: no app imports
another app for its Idempotency-Keys). docs/development.md's "Add a protocol" walks the homes."""

import ast
from pathlib import Path

import pytest

from tests.architecture.test_layout import ROOT, imported, modules

# Every package of agents/ is a protocol's: a new one is checked as soon as it exists.
PROTOCOLS = tuple(sorted(path.parent.name for path in (ROOT / "agents").glob("*/__init__.py")))
# The protocols' SDKs (import names): only a protocol's package imports one. UCP's MCP binding
# (agents/ucp/tools.py) speaks MCP, so the packages share the SDKs among themselves. A new
# protocol adds its SDK's here (docs/development.md, "Add a protocol").
SDKS = ("a2a", "mcp", "mcp_types", "ucp", "ucp_sdk")
# Where protocol code may live: the protocols' packages. The rest of agents/ (admission, the
# router, the in-process dispatch of operations) is what the protocols share.
HOMES = tuple(f"agents/{protocol}/" for protocol in PROTOCOLS)
# The packages that are no protocol's: no protocol's SDK, module or name in them. The project's
# settings modules name settings (A2A_TASK_TTL_S) and loggers (the A2A SDK's): they may.
NOT_A_PROTOCOL = ("kernel", "catalog", "matching", "merchants", "reporting", "agents", "gateway")
APPS = ("catalog", "merchants", "matching", "reporting", "agents")


def protocol_violations(path: str, source: str) -> list[str]:
    """What a module at `path` holds of a protocol outside the protocol's package."""
    if path.startswith(HOMES) or path.split("/", 1)[0] not in NOT_A_PROTOCOL:
        return []
    if path.startswith("gateway/") and Path(path).stem.endswith("settings"):
        return []
    problems = []
    stem = Path(path).stem
    if any(stem == protocol or stem.startswith(f"{protocol}_") for protocol in PROTOCOLS):
        problems.append(f"{path}: a protocol's module outside agents/<protocol>/")
    for line, module in imported(source):
        if module.split(".", 1)[0] in SDKS:
            problems.append(f"{path}:{line} imports {module}: a protocol's SDK outside its package")
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            name = target.id if isinstance(target, ast.Name) else ""
            if name.split("_", 1)[0] in {protocol.upper() for protocol in PROTOCOLS}:
                problems.append(f"{path}:{node.lineno} defines {name}: a protocol's name")
    return problems


def idempotency_violations(path: str, source: str) -> list[str]:
    """An app importing another app for Idempotency-Keys or token digests: every app's, they
    are the kernel's (kernel/models.py, kernel/digests.py)."""
    package = path.split("/", 1)[0]
    if package not in (*APPS, "kernel"):
        return []
    return [
        f"{path}:{line} imports {module}: Idempotency-Keys and token digests are the kernel's"
        for line, module in imported(source)
        if module.split(".", 1)[0] in APPS
        and module.split(".", 1)[0] != package
        and ("idempot" in module.lower() or module.endswith(".token_digest"))
    ]


def test_the_protocols_are_the_packages_of_agents():
    assert set(PROTOCOLS) >= {"a2a", "mcp", "ucp"}


def test_each_protocols_code_lives_in_its_package():
    problems = [
        problem
        for path in modules()
        for problem in protocol_violations(str(path.relative_to(ROOT)), path.read_text())
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("path", "source", "problem"),
    [
        ("kernel/wellknown.py", "from a2a.types import AgentCard", "a protocol's SDK"),
        ("matching/recommend/options.py", "def f():\n    import mcp_types", "a protocol's SDK"),
        ("agents/operations.py", "from a2a.utils.errors import X", "a protocol's SDK"),
        ("kernel/errors.py", "UCP_BAD_CURSOR = Error(400, 'x', 'y')", "a protocol's name"),
        ("catalog/search.py", "A2A_PATH: str = '/a2a'", "a protocol's name"),
        ("agents/ucp_views.py", "", "a protocol's module"),
        ("kernel/a2a_card.py", "", "a protocol's module"),
        ("gateway/urls.py", "from mcp.server import Server", "a protocol's SDK"),
    ],
)
def test_the_protocol_check_catches_a_protocols_code_out_of_its_home(path, source, problem):
    found = protocol_violations(path, source)

    assert len(found) == 1, found
    assert problem in found[0]


def test_the_protocol_check_lets_the_homes_and_the_shared_code_through():
    assert protocol_violations("agents/a2a/card.py", "from a2a.types import AgentCard") == []
    assert protocol_violations("agents/ucp/tools.py", "import mcp_types as types") == []
    assert protocol_violations("agents/ucp/errors.py", "UCP_BAD_CURSOR = 1") == []
    assert protocol_violations("agents/asgi.py", "from agents.a2a import A2A_JSONRPC_PATH") == []
    assert protocol_violations("gateway/urls.py", "from agents.a2a.card import AgentCardView") == []


def test_no_app_imports_another_for_idempotency_keys():
    problems = [
        problem
        for path in modules()
        for problem in idempotency_violations(str(path.relative_to(ROOT)), path.read_text())
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("matching/views/intents.py", "from merchants.idempotency import Idempotent"),
        ("reporting/views.py", "from merchants.models import IdempotencyKey"),
        ("agents/ucp/views.py", "def f():\n    import matching.idempotency_keys"),
        ("matching/demand.py", "from merchants.credentials import token_digest"),
    ],
)
def test_the_idempotency_check_catches_an_app_importing_another_for_keys(path, source):
    found = idempotency_violations(path, source)

    assert len(found) == 1, found
    assert "the kernel's" in found[0]


def test_the_idempotency_check_lets_the_kernels_keys_through():
    source = (
        "from kernel.idempotency_keys import Idempotent\nfrom kernel.models import IdempotencyKey"
    )
    assert idempotency_violations("matching/views/intents.py", source) == []
