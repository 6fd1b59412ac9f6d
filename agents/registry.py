"""Agents and mechanisms by name, for the command line, the GUI and recordings.

Every package of ``agents/`` that offers kinds has a ``kinds.py`` module defining
``AGENT_KINDS`` and/or ``MECHANISM_KINDS``; the registry finds them all, so adding a kind
edits no list anywhere. A ``kinds.py`` is cheap to import: its factories import the heavy
code when called.

A spec is ``kind`` or ``kind:param=value,param=value`` (values parsed as numbers where they
look like numbers, ``true``/``false`` as booleans), e.g. ``boltzmann:temperature=1.0`` or
``protom:eps=0.2``. ``none`` as a mechanism spec means no mechanism.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.seats import Agent, Mechanism

#: ``families`` of a kind that works in every world
ANY_WORLD: tuple[str, ...] = ()


@dataclass(frozen=True)
class AgentKind:
    name: str
    #: world families it plays; empty: every world
    families: tuple[str, ...]
    summary: str
    factory: Callable[..., Agent]

    def plays(self, family: str | None) -> bool:
        return family is None or not self.families or family in self.families


@dataclass(frozen=True)
class MechanismKind:
    """A kind of mechanism (a facilitator, team formation...) that watches whole episodes."""

    name: str
    #: world families it works in; empty: every world
    families: tuple[str, ...]
    summary: str
    factory: Callable[..., Mechanism]
    #: optional (family, params) -> None that raises ValueError on parameters the kind does not take
    check: Callable[[str | None, dict[str, Any]], None] | None = None
    #: what it is, for grouping in the app: "facilitator" or "team"
    role: str = "facilitator"

    def plays(self, family: str | None) -> bool:
        return family is None or not self.families or family in self.families


class AgentSpecError(ValueError):
    pass


_KINDS: tuple[dict[str, AgentKind], dict[str, MechanismKind]] | None = None


def kinds_modules() -> list[str]:
    """Every ``agents.<package>.kinds`` module, in name order."""
    import agents

    return [f"agents.{info.name}.kinds" for info in sorted(pkgutil.iter_modules(agents.__path__), key=lambda i: i.name)
            if info.ispkg and (Path(agents.__path__[0]) / info.name / "kinds.py").exists()]


def _collect() -> tuple[dict[str, AgentKind], dict[str, MechanismKind]]:
    global _KINDS
    if _KINDS is None:
        agent_kinds_: dict[str, AgentKind] = {}
        mechanism_kinds_: dict[str, MechanismKind] = {}
        for module_name in kinds_modules():
            module = importlib.import_module(module_name)
            for table, found in ((agent_kinds_, getattr(module, "AGENT_KINDS", ())),
                                 (mechanism_kinds_, getattr(module, "MECHANISM_KINDS", ()))):
                for kind in found:
                    if kind.name in table:
                        raise RuntimeError(f"kind {kind.name!r} is defined twice ({module_name})")
                    table[kind.name] = kind
        _KINDS = (agent_kinds_, mechanism_kinds_)
    return _KINDS


def agent_kinds() -> dict[str, AgentKind]:
    return dict(_collect()[0])


def mechanism_kinds(role: str | None = None) -> dict[str, MechanismKind]:
    return {n: k for n, k in _collect()[1].items() if role is None or k.role == role}


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise AgentSpecError(f"{text!r} is not a finite number")
        return value
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    kind, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        name, eq, value = part.partition("=")
        if not eq or not name.strip():
            raise AgentSpecError(f"spec {spec!r}: expected param=value, got {part!r}")
        try:
            params[name.strip()] = _value(value.strip())
        except AgentSpecError as exc:
            raise AgentSpecError(f"spec {spec!r}: parameter {name.strip()!r}: {exc}") from None
    return kind.strip(), params


def make_agent(spec: str, family: str | None = None) -> Agent:
    kind, params = parse_agent_spec(spec)
    kinds = agent_kinds()
    if kind not in kinds:
        raise AgentSpecError(f"unknown agent kind {kind!r}; known kinds: {', '.join(sorted(kinds))}")
    info = kinds[kind]
    if not info.plays(family):
        raise AgentSpecError(f"agent kind {kind!r} does not play {family!r} (it plays {', '.join(info.families)})")
    try:
        return info.factory(**params)
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"agent spec {spec!r}: {exc}") from None


def make_mechanism(spec: str, family: str | None = None, params: dict[str, Any] | None = None,
                   role: str | None = None) -> Mechanism | None:
    """A Mechanism from a spec, or None for ``none``. Raises AgentSpecError with the reason.
    ``params`` adds parameters a spec string cannot hold (e.g. a goal prior mapping);
    ``role`` restricts the kinds (``"facilitator"`` for a ``--facilitator`` option)."""
    kind, parsed = parse_agent_spec(spec)
    params = {**parsed, **(params or {})}
    what = role or "mechanism"
    if kind in ("none", ""):
        if params:
            raise AgentSpecError(f"{what} spec {spec!r}: 'none' takes no parameters")
        return None
    kinds = mechanism_kinds(role)
    if kind not in kinds:
        raise AgentSpecError(f"unknown {what} kind {kind!r}; known kinds: none, {', '.join(sorted(kinds))}")
    info = kinds[kind]
    if not info.plays(family):
        raise AgentSpecError(f"{what} kind {kind!r} does not work in {family!r} "
                             f"(it works in {', '.join(info.families)})")
    try:
        if info.check is not None:
            info.check(family, params)
        return info.factory(**params)
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"{what} spec {spec!r}: {exc}") from None


def make_mechanisms(specs: Iterable[str], family: str | None = None) -> list[Mechanism]:
    """Mechanisms from several specs (``none`` entries dropped); each gets a distinct name."""
    made = [m for m in (make_mechanism(s, family) for s in specs) if m is not None]
    seen: dict[str, int] = {}
    for m in made:
        seen[m.kind] = seen.get(m.kind, 0) + 1
        if seen[m.kind] > 1:
            m.name = f"{m.kind}{seen[m.kind]}"
    return made


def seat_specs(world_agents: Sequence[str], specs: Sequence[str]) -> dict[str, str]:
    """Map ``--agents`` items to seats: ``alice=planner`` by name, plain items in turn order;
    a single plain item fills every seat."""
    named = {}
    plain = []
    for item in specs:
        name, eq, spec = item.partition("=")
        if eq and ":" not in name:
            if name not in world_agents:
                raise AgentSpecError(f"--agents {item!r}: there is no seat named {name!r} "
                                     f"(the seats are {', '.join(world_agents)})")
            named[name] = spec
        else:
            plain.append(item)
    free = [a for a in world_agents if a not in named]
    if len(plain) == 1 and len(free) > 1:
        plain = plain * len(free)
    if len(plain) != len(free):
        raise AgentSpecError(f"--agents gives {len(plain)} unnamed spec(s) for {len(free)} free seat(s) "
                             f"({', '.join(free)}); give one per seat in turn order, or name=spec")
    return {**named, **dict(zip(free, plain))}
