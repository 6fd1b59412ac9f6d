"""Agents by name, for the command line, the GUI and recordings.

An agent spec is ``kind`` or ``kind:param=value,param=value`` (values parsed as
numbers where they look like numbers), e.g. ``boltzmann:temperature=1.0``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sim.seats import Agent


@dataclass(frozen=True)
class AgentKind:
    name: str
    families: tuple[str, ...]
    summary: str
    factory: Callable[..., Agent]


#: modules that define ``AGENT_KINDS: list[AgentKind]``; add a line to plug in new agents
AGENT_MODULES = [
    "agents.dkg.agents",
    "agents.human",
    "agents.llm.dkg",
    "agents.tradecraft.trader",
    "agents.tradecraft.llm_trader",
]


def _kinds() -> dict[str, AgentKind]:
    kinds: dict[str, AgentKind] = {}
    for module in AGENT_MODULES:
        for kind in importlib.import_module(module).AGENT_KINDS:
            if kind.name in kinds:
                raise RuntimeError(f"agent kind {kind.name!r} is defined twice ({module})")
            kinds[kind.name] = kind
    return kinds


def agent_kinds() -> dict[str, AgentKind]:
    return _kinds()


class AgentSpecError(ValueError):
    pass


def _value(text: str) -> Any:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_agent_spec(spec: str) -> tuple[str, dict[str, Any]]:
    kind, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        name, eq, value = part.partition("=")
        if not eq or not name:
            raise AgentSpecError(f"agent spec {spec!r}: expected param=value, got {part!r}")
        params[name.strip()] = _value(value.strip())
    return kind, params


def make_agent(spec: str, family: str | None = None) -> Agent:
    kind, params = parse_agent_spec(spec)
    kinds = _kinds()
    if kind not in kinds:
        raise AgentSpecError(f"unknown agent kind {kind!r}; known kinds: {', '.join(sorted(kinds))}")
    info = kinds[kind]
    if family is not None and family not in info.families:
        raise AgentSpecError(f"agent kind {kind!r} does not play {family!r} (it plays {', '.join(info.families)})")
    try:
        return info.factory(**params)
    except TypeError as exc:
        raise AgentSpecError(f"agent spec {spec!r}: {exc}") from None
    except ValueError as exc:
        raise AgentSpecError(f"agent spec {spec!r}: {exc}") from None


# ------------------------------------------------------------------ facilitators
# A facilitator spec works like an agent spec: ``kind`` or ``kind:param=value,...``,
# e.g. ``protom:eps=0.2,temperature=0.5``; ``none`` means no facilitator.


@dataclass(frozen=True)
class FacilitatorKind:
    name: str
    families: tuple[str, ...]
    summary: str
    factory: Callable[..., Any]
    #: optional (family, params) -> None that raises ValueError on parameters the kind does not take
    check: Callable[[str | None, dict[str, Any]], None] | None = None


#: modules that define ``FACILITATOR_KINDS: list[FacilitatorKind]``; add a line to plug in new ones
FACILITATOR_MODULES = [
    "agents.protom.facilitators",
    "agents.llm.facilitator",
]


def facilitator_kinds() -> dict[str, FacilitatorKind]:
    kinds: dict[str, FacilitatorKind] = {}
    for module in FACILITATOR_MODULES:
        for kind in importlib.import_module(module).FACILITATOR_KINDS:
            if kind.name in kinds:
                raise RuntimeError(f"facilitator kind {kind.name!r} is defined twice ({module})")
            kinds[kind.name] = kind
    return kinds


def make_facilitator(spec: str, family: str | None = None, params: dict[str, Any] | None = None) -> Any:
    """A Facilitator from a spec, or None for ``none``. Raises AgentSpecError with the reason.
    ``params`` adds parameters a spec string cannot hold (e.g. a goal prior mapping)."""
    kind, parsed = parse_agent_spec(spec)
    params = {**parsed, **(params or {})}
    if kind in ("none", ""):
        if params:
            raise AgentSpecError(f"facilitator spec {spec!r}: 'none' takes no parameters")
        return None
    kinds = facilitator_kinds()
    if kind not in kinds:
        raise AgentSpecError(f"unknown facilitator kind {kind!r}; known kinds: none, {', '.join(sorted(kinds))}")
    info = kinds[kind]
    if family is not None and family not in info.families:
        raise AgentSpecError(f"facilitator kind {kind!r} does not work in {family!r} "
                             f"(it works in {', '.join(info.families)})")
    try:
        if info.check is not None:
            info.check(family, params)
        return info.factory(**params)
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"facilitator spec {spec!r}: {exc}") from None
