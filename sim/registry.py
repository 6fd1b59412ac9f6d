"""Where worlds and scenarios are found by name.

Each world family declares a builder (scenario data -> World) and a validator (file ->
normalized scenario data) in its plug-in (``sim/plugins.py``). Scenarios are files under
``scenarios/<family>/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sim.inputs import InputError, read_json, read_text, validate_model
from sim.plugins import WorldPlugin, plugins
from sim.questions import Question, check_questions, split_questions
from sim.world import World

ROOT = Path(__file__).resolve().parent.parent
SCENARIO_DIR = ROOT / "scenarios"


class ScenarioError(InputError):
    """A scenario file that does not follow its schema; the message names file, field and fix."""


def families() -> dict[str, WorldPlugin]:
    """Every world family (its plug-in), by name."""
    return plugins()


def build_world(family: str, spec: dict[str, Any]) -> World:
    known = plugins()
    if family not in known:
        raise ScenarioError(f"unknown world {family!r}; known worlds: {', '.join(sorted(known))}")
    return known[family].build(spec)


#: a seat or mechanism spec as the command line takes it ("tom-planner:k=cycle", "ben=human")
Spec = Annotated[str, Field(min_length=1, max_length=200)]


class StartModel(BaseModel):
    """The scenario-level field ``start`` of any world's scenario file: the seats and mechanisms
    the app starts the scenario with, written as ``run --agents``, ``--mechanism`` and ``--rounds``
    take them."""

    model_config = ConfigDict(extra="forbid", strict=True)
    agents: list[Spec] = Field(default_factory=list, max_length=16, description=(
        "seat specs as --agents takes them: one spec for every seat, one per seat in turn order, or name=spec"))
    mechanisms: list[Spec] = Field(default_factory=list, max_length=8, description=(
        "mechanism specs as --mechanism takes them (facilitator, teams), e.g. teams:round_steps=6"))
    rounds: int | None = Field(None, ge=1, le=1000, description="task rounds, as --rounds takes them")

    @field_validator("agents", "mechanisms")
    @classmethod
    def _one_word(cls, specs: list[str]) -> list[str]:
        for spec in specs:
            if spec != "".join(spec.split()):
                raise ValueError(f"expected specs without spaces, e.g. 'tom-planner:k=cycle,horizon=3', got {spec!r}")
        return specs


class _StartField(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    start: StartModel


@dataclass(frozen=True)
class Start:
    """What a scenario file's ``start`` field asks for (empty: the world's defaults)."""

    agents: tuple[str, ...] = ()
    mechanisms: tuple[str, ...] = ()
    rounds: int | None = None

    def __bool__(self) -> bool:
        return bool(self.agents or self.mechanisms or self.rounds)


#: the field of every scenario file that is read here, not by the world's validator
START_FIELD = "start"


@dataclass(frozen=True)
class ScenarioInfo:
    name: str
    family: str
    path: Path
    title: str
    category: str | None
    agents: tuple[str, ...]
    description: str = ""
    #: the seats and mechanisms the app starts it with (the file's ``start``; empty: defaults)
    start: Start = Start()


def _read_json(path: Path) -> Any:
    """A scenario file's data, read strictly (sim/inputs.py): one ScenarioError naming the file
    and the line or field for undecodable bytes, duplicate keys, NaN, deep nesting..."""
    return read_json(path, ScenarioError)


def file_formats() -> dict[str, Callable[[Path], Any]]:
    """Every scenario file format by name (``json`` and the plug-ins' ``formats``), for ``--format``."""
    found: dict[str, Callable[[Path], Any]] = {"json": _read_json}
    for p in plugins().values():
        found.update(p.formats)
    return found


def _format_of(path: Path, fmt: str | None) -> tuple[str, Callable[..., Any]]:
    """The format ``path`` is read in and its reader: the one named ``fmt``; else by the file's
    suffix (``.json``, a plug-in's ``readers``; a reader no format names goes by its suffix);
    else by its content (a plug-in that ``recognise``s it, or JSON)."""
    known = plugins()
    formats = file_formats()
    if fmt is not None:
        if fmt not in formats:
            raise ScenarioError(f"unknown format {fmt!r:.60}; expected one of {', '.join(sorted(formats))}")
        return fmt, formats[fmt]
    if path.name.endswith(".json"):
        return "json", _read_json
    for p in known.values():
        for suffix, reader in p.readers.items():
            if path.name.endswith(suffix):
                return next((name for name, r in p.formats.items() if r is reader), suffix), reader
    text = read_text(path, ScenarioError, kind="scenario file")
    if text.lstrip().startswith(("{", "[")):
        return "json", _read_json
    for p in known.values():
        name = p.recognise(text) if p.recognise is not None else None
        if name is not None:
            return name, p.formats[name]
    raise ScenarioError(f"{path}: neither JSON nor a level format this program recognises; name its format "
                        f"with --format ({', '.join(sorted(file_formats()))})")


def _check_options(path: Path, name: str, options: dict[str, Any]) -> None:
    """Refuse, in one line, a reading option the format ``name`` does not take."""
    for option in options:
        takers = [o for p in plugins().values() for o in p.read_options if o.name == option]
        if not takers:
            raise ScenarioError(f"unknown reading option {option!r}")
        if not any(name in o.formats for o in takers):
            raise ScenarioError(f"{path}: --{option} {takers[0].what}; this file is a {name!r} level, "
                                f"which {takers[0].refusal}")


def load_spec(path: str | Path, fmt: str | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """Read and validate a scenario file; return (family, normalized spec). ``fmt``: the file's
    format by name (``file_formats``); None: by its suffix, else by its content. ``options``:
    reading options (``{"cooks": 3}``) for the formats that take them (a plug-in's
    ``read_options``); None values are left out; another format refuses them."""
    family, spec, _start = read_scenario(path, fmt, options)
    return family, spec


def read_scenario(path: str | Path, fmt: str | None = None,
                  options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any], Start]:
    """``load_spec``, and the file's ``start`` (every world's files may have it; it is checked
    here, strictly, and kept out of the world's spec). Its ``questions`` are checked too
    (``load_questions`` returns them)."""
    family, spec, start, _questions = _read(path, fmt, options)
    return family, spec, start


def _read(path: str | Path, fmt: str | None = None,
          options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any], Start, tuple[Question, ...]]:
    """``read_scenario`` and the file's teaching ``questions`` (``sim/questions.py``: every
    world's files may have them; checked here, strictly, against the scenario's names and agents,
    and kept out of the world's spec)."""
    known = plugins()
    path = Path(path)
    given = {k: v for k, v in (options or {}).items() if v is not None}
    name, reader = _format_of(path, fmt)
    if given:
        _check_options(path, name, given)
        data = reader(path, **given)
    else:
        data = reader(path)
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a JSON object at the top level")
    family = data.get("world")
    if not isinstance(family, str) or family not in known:
        raise ScenarioError(f"{path}: field 'world': expected one of {sorted(known)}, got {family!r}")
    data, start = split_start(data, str(path))
    data, asked = split_questions(data, str(path), ScenarioError)
    spec = known[family].validate(data, str(path))
    questions: tuple[Question, ...] = ()
    if asked:
        world = build_world(family, spec)
        questions = check_questions(asked, world.names(), world.agents, str(path), ScenarioError)
    return family, spec, start, questions


def load_questions(name: str, fmt: str | None = None,
                   options: dict[str, Any] | None = None) -> tuple[Question, ...]:
    """The teaching questions of a scenario (by name or path; see ``find_scenario``; ``fmt``,
    ``options``: see ``load_spec``)."""
    return _read(find_scenario(name), fmt, options)[3]


def peek_scenario(path: str | Path) -> dict[str, Any]:
    """A scenario file's data as its format's reader gives it, not checked (a quick look at a
    field, e.g. the category of the file the app opens first); raises ScenarioError when the
    file cannot be read. ``read_scenario`` reads a file to use it."""
    path = Path(path)
    data = _format_of(path, None)[1](path)
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: expected a JSON object at the top level")
    return data


def split_start(data: dict[str, Any], source: str) -> tuple[dict[str, Any], Start]:
    """Scenario data without its ``start`` field (for the world's validator), and that field,
    checked strictly (a ScenarioError names ``source`` and the field)."""
    if START_FIELD not in data:
        return data, Start()
    rest = dict(data)
    found = validate_model(_StartField, {START_FIELD: rest.pop(START_FIELD)}, source, ScenarioError).start
    return rest, Start(tuple(found.agents), tuple(found.mechanisms), found.rounds)


def scenario_paths() -> list[Path]:
    # scenarios/<family>/<name>.json, or one folder deeper for families with scenario sets
    # (scenarios/tradecraft/minecraft-1v1/<name>.json); deeper files are data (rule sets).
    suffixes = (".json", *(suffix for p in plugins().values() for suffix in p.readers))
    found = [p for pattern in ("*/*", "*/*/*") for p in SCENARIO_DIR.glob(pattern)
             if p.is_file() and p.name.endswith(suffixes)]
    return sorted(p for p in found if not p.name.endswith(".schema.json")
                  and p.relative_to(SCENARIO_DIR).parts[0] not in NOT_SCENARIOS)


#: folders of ``scenarios/`` that hold other configurations: experiment designs, human studies
NOT_SCENARIOS = ("experiments", "studies")


def scenario_stem(path: Path) -> str:
    """A scenario file's name without its format's suffix (``two-kitchens.kitchen.txt`` ->
    ``two-kitchens``)."""
    suffixes = sorted((".json", *(suffix for p in plugins().values() for suffix in p.readers)), key=len, reverse=True)
    return next((path.name[: -len(s)] for s in suffixes if path.name.endswith(s)), path.stem)


def find_scenario(name: str) -> Path:
    """A scenario by file path, or by name (``corridor`` or ``dkg/corridor``)."""
    path = Path(name)
    try:
        kind = "file" if path.is_file() else "folder" if path.is_dir() else None
    except (OSError, ValueError):  # a NUL byte or a name too long for a file: only a name can match
        kind = None
    if kind == "file":
        return path
    if kind == "folder":
        raise ScenarioError(f"{path}: is a folder; expected a scenario file or a scenario name "
                            "('python main.py list' shows them)")
    candidates = [p for p in scenario_paths()
                  if scenario_stem(p) == name or f"{p.parent.name}/{scenario_stem(p)}" == name]
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        raise ScenarioError(f"scenario {name!r} is ambiguous: "
                            + ", ".join(f"{p.parent.name}/{scenario_stem(p)}" for p in candidates))
    raise ScenarioError(f"no scenario named {name!r:.120}; 'python main.py list' shows them")


def load_scenario(name: str, fmt: str | None = None,
                  options: dict[str, Any] | None = None) -> tuple[World, str]:
    """(World, scenario name) from a name or a path (``fmt``, ``options``: see ``load_spec``)."""
    world, scenario, _start = load_scenario_start(name, fmt, options)
    return world, scenario


def load_scenario_start(name: str, fmt: str | None = None,
                        options: dict[str, Any] | None = None) -> tuple[World, str, Start]:
    """``load_scenario`` and the file's ``start`` (the seats and mechanisms the app starts it with)."""
    path = find_scenario(name)
    family, spec, start = read_scenario(path, fmt, options)
    return build_world(family, spec), spec["name"], start


def list_scenarios() -> list[ScenarioInfo]:
    infos = []
    for path in scenario_paths():
        family, spec, start = read_scenario(path)
        world = build_world(family, spec)
        infos.append(ScenarioInfo(name=spec["name"], family=family, path=path,
                                  title=spec.get("title", ""), category=spec.get("category"),
                                  agents=tuple(world.agents), description=str(spec.get("description", "")),
                                  start=start))
    return infos
