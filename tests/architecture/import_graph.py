"""The project's modules as a graph of their imports, at any depth (an import inside a function
runs too, only later), and the two things it must not hold: a cycle, and a private name taken
from another module.

A cycle is a set of modules that each reach the others through their imports (a strongly
connected component of more than one module): none of them can be read, changed or tested
without the rest, and a deferred import that keeps the cycle from failing at start only hides
it."""

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path


def module_name(root: Path, path: Path) -> str:
    """`a/b/c.py` -> `a.b.c`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module of these top-level packages (migrations aside), by dotted name."""
    return {
        module_name(root, path): path
        for package in packages
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def _imports(name: str, is_package: bool, source: str) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import in a module's source, at any depth; a relative
    import is made absolute from `name`."""
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".")
                package = package[: len(package) - node.level + (1 if is_package else 0)]
                base = ".".join(filter(None, [*package, base]))
            found.append((node.lineno, base, [alias.name for alias in node.names]))
    return found


def _within(module: str, known: Mapping[str, Path]) -> str | None:
    """The project module that `module` names, or the nearest package of it that is one."""
    while module and module not in known:
        module = module.rpartition(".")[0]
    return module or None


def import_graph(known: Mapping[str, Path]) -> dict[str, set[str]]:
    """Which project modules each project module imports. `from a import b` imports `a.b` when
    that is a module, else `a` (b is one of its names)."""
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for _, module, names in _imports(name, is_package, path.read_text()):
            targets = [f"{module}.{item}" for item in names if f"{module}.{item}" in known]
            if len(targets) < len(names) or not names:
                targets.append(module)
            for target in targets:
                found = _within(target, known)
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(known: Mapping[str, Path], root: Path) -> list[str]:
    """Every import of a name private to another project module (`from a import _b`, or
    `import a._b`), one line each."""
    problems = []
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        for line, module, names in _imports(name, is_package, path.read_text()):
            if _within(module, known) is None:
                continue
            taken = [item for item in names if _private(item)]
            taken += [part for part in module.split(".") if _private(part)]
            where = f"{path.relative_to(root)}:{line}"
            problems += [f"{where} imports {item} from {module}" for item in taken]
    return problems


def report(found: list[list[str]]) -> str:
    """One line per cycle, for a failing assertion's message."""
    return "\n".join(f"import cycle of {len(c)} modules: {', '.join(c)}" for c in found)
