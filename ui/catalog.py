"""What the app offers to choose from: scenarios by world and category, agent kinds and
mechanism kinds per world; and how a choice becomes seats and mechanisms. Every default comes
from the world's plug-in (``sim/plugins.py``); nothing here names a world."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.registry import agent_kinds, make_agent, make_mechanism, mechanism_kinds
from sim.events import Event
from sim.plugins import plugins
from sim.registry import ScenarioError, ScenarioInfo, build_world, load_spec, scenario_paths
from sim.seats import Agent, Mechanism
from sim.world import World

NONE = "none"
#: the roles of mechanisms the app offers a choice for, with their labels
ROLES = (("facilitator", "Facilitator"), ("team", "Teams"))

_SCENARIO_CACHE: dict[tuple[str, float], ScenarioInfo | str] = {}


def has_view(family: str) -> bool:
    found = plugins().get(family)
    return found is not None and found.renderer is not None


def scan_scenarios() -> tuple[list[ScenarioInfo], list[str]]:
    """Every scenario file the app can show (its world has a view), and the problems of the
    files it could not read. One bad file never hides the others. Results are cached per file
    and modification time (building some worlds takes a while)."""
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
        elif has_view(entry.family):
            infos.append(entry)
    return infos, problems


def scenarios() -> list[ScenarioInfo]:
    return scan_scenarios()[0]


def category_title(family: str, category: str | None) -> str:
    titles = dict(plugins()[family].categories) if family in plugins() else {}
    return titles.get(category, category or "other")


def default_scenario(infos: list[ScenarioInfo], preferred: str = "") -> ScenarioInfo | None:
    """The preferred one, else the first of a world's default category (the first world that
    has one), else the first."""
    if not infos:
        return None
    for info in infos:
        if preferred and preferred in (info.name, f"{info.family}/{info.name}"):
            return info
    known = plugins()
    return next((i for i in infos if i.family in known and known[i.family].default_category is not None
                 and i.category == known[i.family].default_category), infos[0])


def agent_choices(family: str) -> list[tuple[str, str]]:
    """(kind, summary) of the agents that can take a seat in ``family``."""
    return [(k.name, k.summary) for k in agent_kinds().values() if k.plays(family)]


def default_agent(family: str) -> str:
    """The seat the app fills for ``family`` when nobody chose (it plays by itself)."""
    plugin = plugins().get(family)
    if plugin is None:
        return "human"
    return plugin.app_agent or plugin.default_agent


def mechanism_choices(role: str, family: str | None = None) -> list[tuple[str, str]]:
    """(kind, summary) of the mechanisms of ``role`` that work in ``family`` (any world when None)."""
    return [(k.name, k.summary) for k in mechanism_kinds(role).values() if k.plays(family)]


def default_mechanism(role: str, family: str | None) -> str:
    """The world's default mechanism of ``role`` when it is available, else none."""
    plugin = plugins().get(family) if family else None
    available = {k for k, _ in mechanism_choices(role, family)}
    for spec in (plugin.default_mechanisms if plugin else ()):
        if spec.split(":", 1)[0] in available:
            return spec
    return NONE


def mechanism_works(spec: str, family: str) -> bool:
    """False when ``spec`` names a mechanism kind that does not work in ``family``."""
    kind = (spec or NONE).split(":", 1)[0].strip()
    if kind == NONE:
        return True
    kinds = mechanism_kinds()
    return kind not in kinds or kinds[kind].plays(family)


def make_mechanisms(specs: Sequence[str], world: World) -> list[Mechanism]:
    """Mechanisms for ``specs`` (``none`` and empty entries left out); each gets a distinct name."""
    from agents.registry import make_mechanisms as make

    return make([s for s in specs if s and s.strip() != NONE], world.family)


@dataclass(frozen=True)
class SessionPlan:
    """Everything needed to start a live session (a new one, or a take-over)."""

    world: World
    scenario: str
    seats: Mapping[str, str]            # agent -> agent spec ("planner", "human", ...)
    mechanisms: tuple[str, ...] = ()    # mechanism specs ("protom", "teams:theta=0.3", ...)
    seed: int = 0
    prefix: tuple[dict[str, Any], ...] = ()
    earlier_events: tuple[Event, ...] = field(default=(), repr=False)

    def build_seats(self) -> dict[str, Agent]:
        return {agent: make_agent(spec, self.world.family) for agent, spec in self.seats.items()}


__all__ = ["NONE", "ROLES", "SessionPlan", "agent_choices", "category_title", "default_agent",
           "default_mechanism", "default_scenario", "has_view", "make_mechanism", "make_mechanisms",
           "mechanism_choices", "mechanism_works", "scan_scenarios", "scenarios"]
