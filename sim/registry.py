"""Where worlds and scenarios are found by name.

Each world family registers a builder (scenario data -> World) and a loader
(file -> validated scenario data). Scenarios are files under ``scenarios/<family>/``.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.world import World

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "scenarios"


class ScenarioError(ValueError):
    """A scenario file that does not follow its schema; the message names file, field and fix."""


@dataclass(frozen=True)
class Family:
    name: str
    title: str
    validate: Callable[[dict[str, Any], str], dict[str, Any]]  # (data, source) -> normalized spec
    build: Callable[[dict[str, Any]], World]


_FAMILIES: dict[str, Family] = {}


def register_family(family: Family) -> None:
    _FAMILIES[family.name] = family


def families() -> dict[str, Family]:
    _load_builtin()
    return dict(_FAMILIES)


#: world packages; importing one registers its family. Add a line to plug in a new world.
WORLD_PACKAGES = [
    "sim.dkg",
    "sim.tradecraft",
]


def _load_builtin() -> None:
    for package in WORLD_PACKAGES:
        importlib.import_module(package)


def build_world(family: str, spec: dict[str, Any]) -> World:
    _load_builtin()
    if family not in _FAMILIES:
        raise ScenarioError(f"unknown world {family!r}; known worlds: {', '.join(sorted(_FAMILIES))}")
    return _FAMILIES[family].build(spec)


@dataclass(frozen=True)
class ScenarioInfo:
    name: str
    family: str
    path: Path
    title: str
    category: str | None
    agents: tuple[str, ...]


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})") from None


def load_spec(path: str | Path) -> tuple[str, dict[str, Any]]:
    """Read and validate a scenario file; return (family, normalized spec)."""
    _load_builtin()
    path = Path(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a JSON object at the top level")
    family = data.get("world")
    if family not in _FAMILIES:
        raise ScenarioError(f"{path}: field 'world': expected one of {sorted(_FAMILIES)}, got {family!r}")
    return family, _FAMILIES[family].validate(data, str(path))


def scenario_paths() -> list[Path]:
    # scenarios/<family>/<name>.json, or one folder deeper for families with scenario sets
    # (scenarios/tradecraft/minecraft-1v1/<name>.json); deeper files are data (rule sets).
    found = [*SCENARIO_DIR.glob("*/*.json"), *SCENARIO_DIR.glob("*/*/*.json")]
    return sorted(p for p in found if not p.name.endswith(".schema.json")
                  and p.relative_to(SCENARIO_DIR).parts[0] != "experiments")  # experiment configs, not scenarios


def find_scenario(name: str) -> Path:
    """A scenario by file path, or by name (``corridor`` or ``dkg/corridor``)."""
    path = Path(name)
    if path.suffix == ".json" and path.exists():
        return path
    candidates = [p for p in scenario_paths()
                  if p.stem == name or f"{p.parent.name}/{p.stem}" == name]
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        raise ScenarioError(f"scenario {name!r} is ambiguous: "
                            + ", ".join(f"{p.parent.name}/{p.stem}" for p in candidates))
    raise ScenarioError(f"no scenario named {name!r}; 'python main.py list' shows them")


def load_scenario(name: str) -> tuple[World, str]:
    """(World, scenario name) from a name or a path."""
    path = find_scenario(name)
    family, spec = load_spec(path)
    return build_world(family, spec), spec["name"]


def list_scenarios() -> list[ScenarioInfo]:
    infos = []
    for path in scenario_paths():
        family, spec = load_spec(path)
        world = build_world(family, spec)
        infos.append(ScenarioInfo(name=spec["name"], family=family, path=path,
                                  title=spec.get("title", ""), category=spec.get("category"),
                                  agents=tuple(world.agents)))
    return infos
