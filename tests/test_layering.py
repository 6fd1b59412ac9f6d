"""The import directions of the layers, and no import cycles between project modules.

Layers, from the bottom: ``sim/`` (worlds and the core), ``agents/``, ``study/`` (the human
study's data model), ``ui/``, then ``experiments/`` and ``main.py``; beside ``ui/``,
``generators/`` (the scenario generators). A layer imports only layers below it:

* nothing in ``sim/`` imports ``agents/``, ``study/``, ``ui/``, ``generators/``, ``experiments/`` or ``main``;
* nothing in ``agents/`` imports ``study/``, ``ui/``, ``generators/``, ``experiments/`` or ``main``;
* nothing in ``study/`` imports ``ui/``, ``generators/``, ``experiments/`` or ``main``;
* nothing in ``ui/`` imports ``main``, ``generators/`` or ``experiments/``;
* nothing in ``generators/`` imports ``study/``, ``ui/``, ``experiments/`` or ``main``;
* nothing in ``experiments/`` imports ``ui/`` (an experiment runs without the app).

Every import counts, at any depth (also inside functions and ``if TYPE_CHECKING:``), and so
does ``importlib.import_module("...")`` with a literal name. Modules named in plug-in
declarations as ``"module:attribute"`` strings are not imports: the layer above resolves them.

Cycles: the graph of module-level imports between project modules (one node per file) has
no strongly connected component of more than one module. Imports inside functions and under
``if TYPE_CHECKING:`` run later or never, so they may close a loop (but keep the directions).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "agents", "study", "ui", "generators", "experiments")
SCRIPTS = ("main.py",)
FORBIDDEN = {
    "sim": ("agents", "study", "ui", "generators", "experiments", "main"),
    "agents": ("study", "ui", "generators", "experiments", "main"),
    "study": ("ui", "generators", "experiments", "main"),
    "ui": ("main", "generators", "experiments"),
    "generators": ("study", "ui", "experiments", "main"),
    "experiments": ("ui",),
}

#: Layer violations in the tree when this test was written, each (importing file, imported
#: module) -> why it is still there. Remove an entry when its import goes; the test fails on
#: an entry that no longer matches anything.
KNOWN_LAYER_VIOLATIONS: dict[tuple[str, str], str] = {}

#: Import cycles in the tree when this test was written (the modules of each), -> why.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Import:
    source: str  # the importing file, relative to the repository
    line: int
    target: str  # the imported project module
    module_level: bool  # runs when the importing module is imported


def project_modules() -> dict[str, Path]:
    """Every project module by dotted name (a package by its ``__init__.py``)."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    for script in SCRIPTS:
        if (ROOT / script).is_file():
            modules[Path(script).stem] = ROOT / script
    return modules


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` (or its longest module prefix) is, or None outside the project."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        candidate = ".".join(parts[:k])
        if candidate in modules:
            return candidate
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Imports(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, source: str, modules: dict[str, Path]) -> None:
        self.module, self.is_package, self.source, self.modules = module, is_package, source, modules
        self.found: list[Import] = []
        self.deferred = 0  # > 0 inside a function body or an ``if TYPE_CHECKING:`` block

    def _add(self, name: str, line: int) -> None:
        target = _resolve(name, self.modules)
        imp = Import(self.source, line, target or "", self.deferred == 0)
        if target is not None and target != self.module and imp not in self.found:
            self.found.append(imp)

    def _deferred(self, nodes: list[ast.AST]) -> None:
        self.deferred += 1
        for node in nodes:
            self.visit(node)
        self.deferred -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for decorator in node.decorator_list:  # decorators and defaults run at definition
            self.visit(decorator)
        self.visit(node.args)
        self._deferred(node.body)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.args)
        self._deferred([node.body])

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self._deferred(node.body)
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
            package = package[:len(package) - (node.level - 1)]
            base = ".".join(package + ([node.module] if node.module else []))
        for alias in node.names:
            full = f"{base}.{alias.name}" if base else alias.name
            self._add(full if full in self.modules else base, node.lineno)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if (name == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            self._add(node.args[0].value, node.lineno)
        self.generic_visit(node)


def all_imports() -> Iterator[Import]:
    modules = project_modules()
    for module, path in modules.items():
        source = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=source)
        visitor = _Imports(module, path.name == "__init__.py", source, modules)
        visitor.visit(tree)
        yield from visitor.found


def layer_violations() -> dict[tuple[str, str], list[Import]]:
    found: dict[tuple[str, str], list[Import]] = {}
    for imp in all_imports():
        layer, target_layer = imp.source.split("/")[0].removesuffix(".py"), imp.target.split(".")[0]
        if target_layer in FORBIDDEN.get(layer, ()):
            found.setdefault((imp.source, imp.target), []).append(imp)
    return found


def import_cycles() -> list[frozenset[str]]:
    """The strongly connected components (more than one module) of the module-level import graph."""
    graph: dict[str, set[str]] = {m: set() for m in project_modules()}
    modules = project_modules()
    by_path = {p.relative_to(ROOT).as_posix(): m for m, p in modules.items()}
    for imp in all_imports():
        if imp.module_level:
            graph[by_path[imp.source]].add(imp.target)
    # Tarjan's algorithm, iterative (the graph is small, but recursion depth is not ours to pick)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(frozenset(component))
    return components


# ------------------------------------------------------------------------------ tests

def test_the_scan_sees_imports_at_every_depth():
    """Known answers from this very scanner on small sources (so a broken scan cannot pass)."""
    modules = {"sim": ROOT / "sim/__init__.py", "sim.world": ROOT / "sim/world.py",
               "sim.dkg": ROOT / "sim/dkg/__init__.py", "sim.dkg.world": ROOT / "sim/dkg/world.py",
               "agents": ROOT / "agents/__init__.py", "agents.registry": ROOT / "agents/registry.py",
               "ui": ROOT / "ui/__init__.py", "main": ROOT / "main.py"}
    source = (
        "import os\n"
        "from sim.world import World\n"
        "from . import world\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ui import app\n"
        "def f():\n"
        "    import agents.registry\n"
        "    importlib.import_module('main')\n"
        "class C:\n"
        "    from agents import registry\n")
    visitor = _Imports("sim.dkg.plugin", False, "sim/dkg/plugin.py", modules)
    visitor.visit(ast.parse(source))
    got = [(i.line, i.target, i.module_level) for i in visitor.found]
    assert got == [(2, "sim.world", True), (3, "sim.dkg.world", True), (6, "ui", False),
                   (8, "agents.registry", False), (9, "main", False), (11, "agents.registry", True)]


def test_layers_import_only_downwards():
    found = layer_violations()
    new = {key: imps for key, imps in found.items() if key not in KNOWN_LAYER_VIOLATIONS}
    stale = sorted(set(KNOWN_LAYER_VIOLATIONS) - set(found))
    lines = [f"{i.source}:{i.line} imports {i.target} ({i.source.split('/')[0].removesuffix('.py')}/ must not "
             f"import {i.target.split('.')[0]})" for imps in new.values() for i in imps]
    lines += [f"KNOWN_LAYER_VIOLATIONS lists {s} -> {t}, which no longer occurs: delete the entry" for s, t in stale]
    assert not lines, "\n".join(lines)


def test_no_import_cycles_at_module_level():
    cycles = import_cycles()
    new = [c for c in cycles if c not in KNOWN_CYCLES]
    stale = [c for c in KNOWN_CYCLES if c not in cycles]
    lines = [f"import cycle: {' <-> '.join(sorted(c))} (move one import into the function that needs it, "
             "or move the shared part to a lower module)" for c in new]
    lines += [f"KNOWN_CYCLES lists {sorted(c)}, which is no longer a cycle: delete the entry" for c in stale]
    assert not lines, "\n".join(lines)
