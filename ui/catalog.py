"""What the app offers to choose from: scenarios by world and category, agent kinds per world,
facilitator kinds; and how a choice becomes seats and a facilitator."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.registry import agent_kinds, make_agent
from sim.events import Event
from sim.registry import ScenarioError, ScenarioInfo, build_world, load_spec, scenario_paths
from sim.seats import Agent, Facilitator
from sim.world import World

NO_FACILITATOR = "none"


_SCENARIO_CACHE: dict[tuple[str, float], ScenarioInfo | str] = {}


def scan_scenarios() -> tuple[list[ScenarioInfo], list[str]]:
    """Every scenario file the app can show (its world has a view), and the problems of the
    files it could not read. One bad file never hides the others. Results are cached per file
    and modification time (building some worlds takes a while)."""
    from ui.render import has_renderer

    infos: list[ScenarioInfo] = []
    problems: list[str] = []
    for path in scenario_paths():
        try:
            key = (str(path), path.stat().st_mtime)
        except OSError:
            continue
        entry = _SCENARIO_CACHE.get(key)
        if entry is None:
            try:
                family, spec = load_spec(path)
                world = build_world(family, spec)
                entry = ScenarioInfo(name=spec["name"], family=family, path=path, title=spec.get("title", ""),
                                     category=spec.get("category"), agents=tuple(world.agents))
            except (ScenarioError, KeyError, TypeError, ValueError) as exc:
                entry = str(exc)
            _SCENARIO_CACHE[key] = entry
        if isinstance(entry, str):
            problems.append(entry)
        elif has_renderer(entry.family):
            infos.append(entry)
    return infos, problems


def scenarios() -> list[ScenarioInfo]:
    return scan_scenarios()[0]


def default_scenario(infos: list[ScenarioInfo], preferred: str = "") -> ScenarioInfo | None:
    """The preferred one, else the first where feedback is necessary (the facilitator has
    something to do), else the first."""
    if not infos:
        return None
    for info in infos:
        if preferred and preferred in (info.name, f"{info.family}/{info.name}"):
            return info
    return next((i for i in infos if i.category == "necessary"), infos[0])


def agent_choices(family: str) -> list[tuple[str, str]]:
    """(kind, summary) of the agents that can take a seat in ``family``."""
    return [(k.name, k.summary) for k in agent_kinds().values() if family in k.families]


def default_agent(family: str) -> str:
    names = [k for k, _ in agent_choices(family) if k != "human"]  # a seat plays by itself unless asked
    return "boltzmann" if "boltzmann" in names else (names[0] if names else "human")


def facilitator_choices() -> list[str]:
    """Facilitator kinds known to agents/registry.py (none while the ProToM layer is absent)."""
    import agents.registry as registry

    kinds = getattr(registry, "facilitator_kinds", None)
    if callable(kinds):
        try:
            found = kinds()
        except ImportError:  # the facilitator package is not installed (yet)
            return []
        names = list(found) if not isinstance(found, Mapping) else list(found.keys())
        return [str(getattr(n, "name", n)) for n in names]
    if hasattr(registry, "make_facilitator"):
        return ["protom", "oracle", "random"]
    return []


def default_facilitator(family: str | None = None) -> str:
    """ProToM when installed and it works in ``family`` (any family when None), else none."""
    choices = facilitator_choices()
    if "protom" not in choices:
        return NO_FACILITATOR
    if family is not None:
        import agents.registry as registry

        kind = registry.facilitator_kinds().get("protom")
        if kind is not None and family not in kind.families:
            return NO_FACILITATOR
    return "protom"


def facilitator_works(spec: str, family: str) -> bool:
    """False when ``spec`` names a facilitator kind that does not work in ``family``."""
    kind = (spec or NO_FACILITATOR).split(":", 1)[0].strip()
    if kind == NO_FACILITATOR:
        return True
    import agents.registry as registry

    kinds = registry.facilitator_kinds() if hasattr(registry, "facilitator_kinds") else {}
    return kind not in kinds or family in kinds[kind].families


def make_facilitator(spec: str, world: World) -> Facilitator | None:
    if not spec or spec == NO_FACILITATOR:
        return None
    import agents.registry as registry

    maker = getattr(registry, "make_facilitator", None)
    if maker is None:
        raise ValueError("no facilitator is available in this installation (agents/registry.py has no "
                         "make_facilitator)")
    try:
        return maker(spec, world.family)
    except TypeError:
        return maker(spec)


@dataclass(frozen=True)
class SessionPlan:
    """Everything needed to start a live session (a new one, or a take-over)."""

    world: World
    scenario: str
    seats: Mapping[str, str]            # agent -> agent spec ("planner", "human", ...)
    facilitator: str = NO_FACILITATOR
    seed: int = 0
    prefix: tuple[dict[str, Any], ...] = ()
    earlier_events: tuple[Event, ...] = field(default=(), repr=False)

    def build_seats(self) -> dict[str, Agent]:
        return {agent: make_agent(spec, self.world.family) for agent, spec in self.seats.items()}
