"""Pre-checks of an experiment's scenarios, and the cache of their results.

A pre-check hook (``checks`` in a design) is a pure function of the scenario and of the code it
runs, so its results are kept in a cache file (``prechecks-*.json`` beside the scenario index)
for the hooks and their parameters, the scenario (its path, family and data), and a stamp of
what the check can read:

- the source of every module of ``sim/``, ``agents/`` and ``experiments/`` the check may import:
  the closure of the imports (at any depth in a module, ``TYPE_CHECKING`` ones too) and of the
  module names written as strings (``"sim.dkg.world:DKGWorld"``, the lazy names of plug-ins and
  hook registries) from the hook modules, the hook registry (``experiments.design``), the
  scenario registry and the plug-ins of the scenarios' worlds, with every package's
  ``__init__``; and this module's own file (not the process pool it hands the scenarios to,
  which only passes them and their results);
- every world's ``sim/<family>/plugin.py`` (the registry imports them all);
- the data files under ``scenarios/`` that are not scenarios or designs (maps, rule sets a
  scenario may refer to);
- the program's version.

The project modules each source file names are kept in ``source-imports-*.json`` (by the
file's path, modification time and size), so a file is parsed again only when it changed.
Each file counts by path, modification time and size, so an edit to a module the check cannot
import (a renderer, an agent of another method, the runner, the report) keeps the cached
results, and an edit to any module it can import computes them again.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from experiments.design import Design, ExperimentError, fingerprint, resolve_hook
from sim.registry import load_spec

CHECKS_CACHE = "tom-arena-prechecks"
#: the names each source file holds (``source_closure``), kept beside the pre-check results
IMPORTS_CACHE = "tom-arena-source-imports"
IMPORTS_VERSION = "1"
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("sim", "agents", "experiments")
#: a project module named in a string: "sim.dkg.world" or "sim.dkg.world:DKGWorld"
_NAMED = re.compile(r"^((?:sim|agents|experiments)(?:\.\w+)*)(?::[\w.]+)?$")


def _module_file(name: str, root: Path) -> Path | None:
    base = root.joinpath(*name.split("."))
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def _names_in(path: Path, package: str) -> list[str]:
    """The project modules the source at ``path`` (a module of ``package``) names: its imports,
    relative ones resolved, and module names in string constants."""
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, *([base] if base else [])])
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = _NAMED.match(node.value)
            if named:
                names.append(named.group(1))
    return sorted({n for n in names if n.split(".")[0] in PACKAGES})


def source_closure(modules: Iterable[str], root: Path = ROOT,
                   known: dict[str, Any] | None = None) -> list[Path]:
    """The source files of ``modules`` and of every project module they may import (read from
    the source, not by importing it): imports anywhere in a module, relative ones resolved,
    module names in string constants, and the packages' ``__init__`` files. ``known`` (updated)
    keeps the names each file was found to hold, by path, with its modification time and size:
    a file that did not change is not parsed again."""
    known = {} if known is None else known
    todo = list(modules)
    seen: set[str] = set()
    files: set[Path] = set()
    while todo:
        name = todo.pop()
        if name in seen or name.split(".")[0] not in PACKAGES:
            continue
        seen.add(name)
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]
        path = _module_file(name, root)
        if path is None:  # an attribute imported from a module (``from sim import registry`` is both)
            continue
        files.add(path)
        st = path.stat()
        entry = known.get(str(path))
        if not (isinstance(entry, dict) and entry.get("stat") == [st.st_mtime_ns, st.st_size]
                and isinstance(entry.get("names"), list) and all(isinstance(n, str) for n in entry["names"])):
            package = name if path.name == "__init__.py" else name.rpartition(".")[0]
            entry = known[str(path)] = {"stat": [st.st_mtime_ns, st.st_size], "names": _names_in(path, package)}
        todo += entry["names"]
    return sorted(files)


def check_stamp(hook_modules: Iterable[str], families: Iterable[str], root: Path = ROOT) -> str:
    """What the cached results of checks by ``hook_modules`` on scenarios of ``families`` are
    valid for (the module's docstring lists it)."""
    import sim
    from sim import scenario_index
    from sim.registry import SCENARIO_DIR, scenario_paths

    # what ``_check_scenario`` calls (the process pool that runs it on the scenarios only hands
    # it its items and its results back, so ``experiments.backends`` is not followed)
    seeds = [*hook_modules, "experiments.design", "sim.registry", "sim.plugins", *(f"sim.{f}.plugin" for f in families)]
    names_file = scenario_index.cache_path("source-imports")
    known = scenario_index.read_cache(names_file, IMPORTS_VERSION, IMPORTS_CACHE)
    before = json.dumps(known, sort_keys=True)
    code = ({*source_closure(seeds, root, known), root.joinpath(*__name__.split(".")).with_suffix(".py")}
            | set((root / "sim").glob("*/plugin.py")))
    scenarios = {str(p) for p in scenario_paths()}
    designs = str(SCENARIO_DIR / "experiments") + "/"
    data = [entry for entry in scenario_index._walk(SCENARIO_DIR)
            if entry[0] not in scenarios and not entry[0].startswith(designs)]
    if json.dumps(known, sort_keys=True) != before:
        scenario_index.write_cache(names_file, IMPORTS_VERSION, known, IMPORTS_CACHE)
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{scenario_index.INDEX_VERSION} {sim.__version__}".encode())
    for source in sorted(code):
        st = source.stat()
        digest.update(f"{source}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    for name, mtime, size in sorted(data):
        digest.update(f"{name}\0{mtime}\0{size}\n".encode())
    return digest.hexdigest()


def _check_scenario(item: tuple[str, str, list[tuple[str, dict[str, Any]]], int | None]
                    ) -> tuple[str, dict[str, Any], list[str]]:
    from sim.registry import build_world

    name, path, hooks, cooks = item
    family, spec = load_spec(path, None, {"cooks": cooks})
    world = build_world(family, spec)
    attrs: dict[str, Any] = {}
    problems = []
    for hook, params in hooks:
        try:
            attrs.update(resolve_hook(hook, "check").function(path, world, spec, **params) or {})
        except ExperimentError as exc:
            problems.append(str(exc))
    return name, attrs, problems


def _cached_check(entry: Any) -> bool:
    """``entry`` is a cached check result: [attributes, problems]."""
    return (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], dict)
            and isinstance(entry[1], list) and all(isinstance(p, str) for p in entry[1]))


def _reads_back(value: Any) -> bool:
    """``value`` is JSON that reads back equal (no tuples, no NaN): only such results are cached."""
    try:
        return bool(json.loads(json.dumps(value, allow_nan=False)) == value)
    except (TypeError, ValueError):
        return False


def run_checks(design: Design, scenarios: Sequence[Any], jobs: int = 1) -> dict[str, dict[str, Any]]:
    """Scenario attributes (``scenarios`` are the runner's ``ScenarioRef``): the file's
    ``category`` (if any) updated by every check hook; one ExperimentError listing every
    scenario a check refused. Results come from the cache when it holds them; the others are
    computed on ``jobs`` processes, one scenario each."""
    from experiments.backends import LocalBackend
    from sim import scenario_index

    attrs = {r.name: {"world": r.family, **({"category": r.spec_category} if r.spec_category is not None else {})}
             for r in scenarios}
    if not design.checks:
        return attrs
    hooks = [(h.hook, dict(h.params)) for h in design.checks]
    cache_file = scenario_index.cache_path("prechecks")
    stamp = check_stamp(sorted({h.partition(":")[0] for h, _ in hooks}), sorted({r.family for r in scenarios}))
    cached = scenario_index.read_cache(cache_file, stamp, CHECKS_CACHE)
    keys = {r.name: fingerprint({"hooks": hooks, "spec": r.spec_hash, "family": r.family, "path": r.path})
            for r in scenarios}
    items = [(r.name, r.path, hooks, design.cooks) for r in scenarios if not _cached_check(cached.get(keys[r.name]))]
    results = [(r.name, *cached[keys[r.name]]) for r in scenarios if _cached_check(cached.get(keys[r.name]))]
    if items:
        results += LocalBackend(max(1, min(jobs, len(items)))).run(_check_scenario, items)
    problems: list[str] = []
    entries = {}
    order = list(attrs)
    for name, found, wrong in sorted(results, key=lambda r: order.index(r[0])):
        attrs[name].update(found)
        problems += wrong
        if _reads_back([found, wrong]):
            entries[keys[name]] = [found, wrong]
    if items:
        scenario_index.write_cache(cache_file, stamp, {**cached, **entries}, CHECKS_CACHE)
    if problems:
        raise ExperimentError("pre-checks failed: " + "; ".join(problems))
    return attrs
