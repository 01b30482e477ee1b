"""The layout shows the architecture: imports only go down the pipeline, and never in a circle.

Every ``import`` of every module under ``src/filterproof`` is read with ``ast`` (lazy
imports inside functions included: a cycle hidden in a function is still a cycle)
and checked against the layers below, lowest first. A module may import its own
layer and the layers under it; within a layer, imports must not form a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

from support.paths import ROOT

SRC = ROOT / "src"
PACKAGE = SRC / "filterproof"

LAYERS: list[tuple[str, ...]] = [
    ("filterproof", "filterproof.errors"),
    ("filterproof.policy",),
    ("filterproof.embedding", "filterproof.fixtures", "filterproof.servers"),
    ("filterproof.adapters",),
    ("filterproof.evaluation", "filterproof.scale"),
    ("filterproof.evaluation.truth", "filterproof.evaluation.groundtruth"),
    ("filterproof.evaluation.scoring",),
    ("filterproof.evaluation.runner", "filterproof.evaluation.isolation"),
    ("filterproof.evaluation.congruence",),
    ("filterproof.report",),
    ("filterproof.conformance", "filterproof.matrix", "filterproof.freshness", "filterproof.fuzz"),
    ("filterproof.cli",),
]
"""Pipeline order: policy -> stores -> strategies -> truth -> scoring -> runner -> report -> front ends."""


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The filterproof modules a file imports, anywhere in it."""
    found = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the file's package, one level up per extra dot
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    return {name for name in found if name in modules}


def layer(module: str) -> int:
    best = max((prefix for tier in LAYERS for prefix in tier
                if module == prefix or module.startswith(prefix + ".")), key=len)
    return next(i for i, tier in enumerate(LAYERS) if best in tier)


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports(p) - {module_name(p)} for p in PACKAGE.rglob("*.py")}


def test_every_module_has_a_layer() -> None:
    for module in graph():
        layer(module)


def test_no_upward_imports() -> None:
    upward = sorted(f"{m} (layer {layer(m)}) imports {d} (layer {layer(d)})"
                    for m, deps in graph().items() for d in deps if layer(d) > layer(m))
    assert not upward, "\n".join(upward)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    # A package's __init__ re-exporting its submodules is not a cycle: importing a submodule
    # runs the package first by Python's rules, not because the submodule asks for it.
    edges = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in graph().items()}
    assert cycles(edges) == []


def test_the_checker_sees_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_lazy_exports_are_listed_once_and_resolve() -> None:
    """A package that exports names lazily (``_WHERE``: module -> names) keeps ``__all__`` for static tools:
    both list the same names, and each resolves (a name left in one of them is an ``import *`` that fails)."""
    import importlib

    for path in sorted(PACKAGE.rglob("__init__.py")):
        if "_MODULE_OF" not in path.read_text():
            continue
        package = importlib.import_module(module_name(path))
        assert sorted(package.__all__) == sorted(package._MODULE_OF), module_name(path)
        for name in package.__all__:
            assert getattr(package, name) is not None, f"{module_name(path)}.{name}"
