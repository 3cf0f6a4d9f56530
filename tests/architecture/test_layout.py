"""The layout of ../shared/DESIGN.md section 2, enforced: imports flow one way between the apps,
no app reaches into another's views or admin, the apps build on the kernel (`kernel/`) and never
on the project package (`gateway/`, which only assembles them), the kernel imports no app, no
modules import each other (not even inside functions), no module takes another's private
names, and no module grows past what a newcomer reads in one sitting."""

import ast
from pathlib import Path

import pytest

from tests.architecture.import_graph import (
    cycles,
    import_graph,
    private_imports,
    project_modules,
    report,
)

ROOT = Path(__file__).resolve().parents[2]
APPS = ("catalog", "merchants", "matching", "reporting", "agents")
# Which apps each app may import (its own code aside).
ALLOWED = {
    "catalog": set(),
    "merchants": set(),
    "matching": {"catalog", "merchants"},
    "reporting": {"catalog", "matching", "merchants"},
    "agents": {"catalog", "matching", "merchants"},
    # What every app builds on: it imports none of them.
    "kernel": set(),
    # The project package: only its URLconf and its served application gather the apps.
    "gateway": set(),
}
# The URLconf gathers the apps' views; the ASGI application mounts the agents' servers.
GATHERS_THE_APPS = {"gateway/urls.py", "gateway/asgi.py"}
PRIVATE_TO_AN_APP = ("views", "admin", "urls")
# The project package (settings, URLs, served applications, admin site) assembles the apps and
# the kernel; nothing they hold may lean on it.
PROJECT = "gateway"
MAX_LINES = 400
# The recommend pipeline's stages in their order (matching/recommend/): a stage imports only the
# stages before it. A stage's helpers belong to it (the shopper guide is composed).
PIPELINE = "matching/recommend"
STAGES = (
    ("resolve", "exclusions"),
    ("retrieve",),
    ("rank",),
    ("compose", "guide"),
    ("record",),
    ("announce",),
)
MAX_FUNCTION_LINES = 60


def imported(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import in a module's source, at any depth; `from a.b import c`
    counts as a.b.c, which may be a module or a name of a.b."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def violations(path: str, source: str) -> list[str]:
    """What a module at `path` (relative to the repository) imports against the layout, one
    line per imported module or name."""
    package = path.split("/", 1)[0]
    if package not in ALLOWED:
        return []
    problems = []
    for line, module in imported(source):
        top, _, rest = module.partition(".")
        where = f"{path}:{line} imports {module}"
        if top in APPS and top != package and path not in GATHERS_THE_APPS:
            if top not in ALLOWED[package]:
                problems.append(f"{where}: {package} may not import {top}")
            elif rest.split(".", 1)[0] in PRIVATE_TO_AN_APP:
                problems.append(f"{where}: another app's views, admin or urls")
        if package != PROJECT and top == PROJECT:
            problems.append(f"{where}: apps and the kernel do not import the project package")
    return problems


PACKAGES = (*APPS, "kernel", "gateway", "tests", "bench", "relevance")


def modules() -> list[Path]:
    return list(project_modules(ROOT, PACKAGES).values())


def test_imports_flow_the_one_way_the_design_draws():
    problems = [
        problem
        for path in modules()
        for problem in violations(str(path.relative_to(ROOT)), path.read_text())
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("path", "source", "problem"),
    [
        ("catalog/cards.py", "from matching import ranking", "catalog may not import matching"),
        ("merchants/tasks.py", "import reporting.models", "merchants may not import reporting"),
        ("matching/services.py", "from reporting.services import x", "matching may not import"),
        ("matching/views.py", "from merchants.views import X", "another app's views"),
        ("reporting/admin.py", "from matching.admin import X", "another app's views"),
        ("catalog/views.py", "from gateway.urls import urlpatterns", "the project package"),
        ("matching/tasks.py", "from gateway.celery import app", "the project package"),
        ("kernel/dispatch.py", "def f():\n    from gateway import celery", "the project package"),
        ("kernel/schema.py", "from catalog.models import Product", "kernel may not import"),
        ("merchants/delivery.py", "def f():\n    from matching import services", "merchants may"),
    ],
)
def test_the_check_catches_an_upward_or_sideways_import(path, source, problem):
    found = violations(path, source)

    assert len(found) == 1, found
    assert problem in found[0]


def test_the_check_lets_the_allowed_imports_through():
    allowed = "from catalog.models import Product\nfrom merchants.services import merchant_get"
    assert violations("matching/recommend/retrieve.py", allowed) == []
    assert violations("gateway/urls.py", "from matching.urls import urlpatterns") == []
    assert violations("catalog/search.py", "from kernel.cache import cached") == []
    assert violations("gateway/settings.py", "from kernel.signing import key_of") == []
    assert violations("kernel/handlers.py", "from kernel.errors import ApiError") == []


def stage_violations(path: str, source: str) -> list[str]:
    """What a module of the recommend pipeline imports from a stage after its own."""
    folder, _, name = path.rpartition("/")
    order = {module: number for number, stage in enumerate(STAGES) for module in stage}
    if folder != PIPELINE or name.removesuffix(".py") not in order:
        return []
    own = order[name.removesuffix(".py")]
    package = PIPELINE.replace("/", ".")
    problems = []
    for line, module in imported(source):
        if not module.startswith(package + "."):
            continue
        imported_name = module.removeprefix(package + ".").split(".")[0]
        if order.get(imported_name, -1) > own:
            problems.append(f"{path}:{line} imports {module}: a later stage of the pipeline")
    return problems


def test_each_stage_of_the_pipeline_imports_only_the_stages_before_it():
    problems = [
        problem
        for path in modules()
        for problem in stage_violations(str(path.relative_to(ROOT)), path.read_text())
    ]
    assert problems == []


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("matching/recommend/retrieve.py", "from matching.recommend.rank import scored"),
        ("matching/recommend/rank.py", "from matching.recommend import compose"),
        ("matching/recommend/guide.py", "def f():\n    from matching.recommend import record"),
        ("matching/recommend/resolve.py", "import matching.recommend.announce"),
    ],
)
def test_the_stage_check_catches_a_stage_importing_a_later_one(path, source):
    found = stage_violations(path, source)

    assert len(found) == 1, found
    assert "a later stage of the pipeline" in found[0]


def test_the_stage_check_lets_earlier_stages_and_shared_values_through():
    source = "from matching.recommend.offer import Offer\nfrom matching.recommend import retrieve"
    assert stage_violations("matching/recommend/rank.py", source) == []
    assert (
        stage_violations("matching/recommend/pipeline.py", "from matching.recommend import record")
        == []
    )


def test_no_function_of_the_pipeline_is_longer_than_a_screen():
    long = []
    for path in (ROOT / PIPELINE).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {lines}")
    assert long == []


def test_no_module_is_longer_than_a_sitting():
    long = [
        f"{path.relative_to(ROOT)}: {lines} lines"
        for path in modules()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    ]
    assert long == []


def plant(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(source)


def test_no_modules_import_each_other_even_inside_functions():
    found = cycles(import_graph(project_modules(ROOT, PACKAGES)))

    assert found == [], report(found)


def test_the_cycle_check_finds_modules_that_import_each_other_inside_functions(tmp_path):
    planted = {
        "shop/__init__.py": "",
        "shop/orders.py": "def place():\n    from shop.payments import charge\n    charge()\n",
        "shop/payments.py": "def charge():\n    from shop import orders\n    orders.place()\n",
        "shop/refunds.py": "from shop.payments import charge\n",
        "shop/lone.py": "from . import refunds\n",
    }
    plant(tmp_path, planted)

    found = cycles(import_graph(project_modules(tmp_path, ["shop"])))

    assert found == [["shop.orders", "shop.payments"]]
    assert report(found) == "import cycle of 2 modules: shop.orders, shop.payments"


def test_no_module_takes_another_modules_private_names():
    assert private_imports(project_modules(ROOT, PACKAGES), ROOT) == []


def test_the_private_name_check_finds_one_taken_from_another_module(tmp_path):
    planted = {
        "shop/__init__.py": "",
        "shop/orders.py": "def _total():\n    return 1\n\n\ndef total():\n    return _total()\n",
        "shop/payments.py": "def f():\n    from shop.orders import __doc__, _total, total\n",
        "shop/refunds.py": "from .orders import _total\nimport json._private\n",
    }
    plant(tmp_path, planted)

    found = private_imports(project_modules(tmp_path, ["shop"]), tmp_path)

    assert found == [
        "shop/payments.py:2 imports _total from shop.orders",
        "shop/refunds.py:1 imports _total from shop.orders",
    ]
