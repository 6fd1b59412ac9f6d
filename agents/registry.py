"""Agents and mechanisms by name, for the command line, the GUI and recordings.

Every package of ``agents/`` that offers kinds has a ``kinds.py`` module defining
``AGENT_KINDS`` and/or ``MECHANISM_KINDS``; the registry finds them all (and the kinds an
installed package offers by an entry point in the group ``tom_arena.agents``: an AgentKind, a
MechanismKind or a list of them), so adding a kind edits no list anywhere. Tests and scripts may
also call ``register_agent_kind`` / ``register_mechanism_kind``, or ``kinds_registered(...)`` to
add kinds for a block only (the registry is put back as it was when the block ends). A
``kinds.py`` is cheap to import: its factories import the heavy code when called.

A kind plays the world families it lists, every world (``ANY_WORLD``), or, with ``needs``, the
worlds whose plug-in declares every method it names (``agents.methods``): the ``llm`` agent
plays every world that declares ``methods["llm"]``.

A kind ``for_tests`` (the ``held`` agent) is made by name like any other but left out of the
lists people choose from (``agent_kinds(listed=True)``: the app's seat combos, ``main.py list
--agents``).

A spec is ``kind`` or ``kind:param=value,param=value`` (values parsed as numbers where they
look like numbers, ``true``/``false`` as booleans), e.g. ``boltzmann:temperature=1.0`` or
``protom:eps=0.2``. ``none`` as a mechanism spec means no mechanism.

A kind's ``factory`` is a callable or a ``"module:attribute"`` reference imported when the kind
is first made. Parameters are checked against the factory's signature before it is called:
unknown names are refused with the list of known ones, and values are checked against the
annotations (``Annotated[float, Field(gt=0)]`` for ranges), so a bad spec is one clear line.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import math
import pkgutil
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from sim.seats import Agent, Mechanism

#: ``families`` of a kind that works in every world
ANY_WORLD: tuple[str, ...] = ()
#: installed packages offer agent and mechanism kinds under this entry-point group
ENTRY_POINT_GROUP = "tom_arena.agents"


def _plays(families: tuple[str, ...], needs: tuple[str, ...], family: str | None) -> bool:
    if family is None:
        return True
    if needs:
        from agents.methods import declares

        return all(declares(family, method) for method in needs)
    return not families or family in families


def _worlds(families: tuple[str, ...], needs: tuple[str, ...]) -> tuple[str, ...]:
    if needs:
        from agents.methods import families_with

        return families_with(*needs)
    return families


@dataclass(frozen=True)
class AgentKind:
    name: str
    #: world families it plays; empty: every world
    families: tuple[str, ...]
    summary: str
    #: a callable or a ``"module:attribute"`` reference to one
    factory: Callable[..., Agent] | str
    #: the plug-in methods it needs: it plays the worlds that declare them all (``families`` unused)
    needs: tuple[str, ...] = ()
    #: a kind for the project's tests: made by name, never offered in a list to choose from
    for_tests: bool = False

    def plays(self, family: str | None) -> bool:
        return _plays(self.families, self.needs, family)

    def worlds(self) -> tuple[str, ...]:
        """The families it plays (empty: every world)."""
        return _worlds(self.families, self.needs)

    def target(self) -> Callable[..., Agent]:
        return _target(self.factory)

    def make(self, **params: Any) -> Agent:
        return self.target()(**params)


@dataclass(frozen=True)
class MechanismKind:
    """A kind of mechanism (a facilitator, team formation...) that watches whole episodes."""

    name: str
    #: world families it works in; empty: every world
    families: tuple[str, ...]
    summary: str
    #: a callable or a ``"module:attribute"`` reference to one
    factory: Callable[..., Mechanism] | str
    #: optional (family) -> callables whose parameters the factory passes on through ``**params``
    #: (e.g. the world's ProToM adapter), checked like the factory's own
    passes_on: Callable[[str | None], Sequence[Callable[..., Any]]] | None = None
    #: what it is, for grouping in the app: "facilitator" or "team"
    role: str = "facilitator"
    #: the plug-in methods it needs: it works in the worlds that declare them all (``families`` unused)
    needs: tuple[str, ...] = ()
    #: a kind for the project's tests: made by name, never offered in a list to choose from
    for_tests: bool = False

    def plays(self, family: str | None) -> bool:
        return _plays(self.families, self.needs, family)

    def worlds(self) -> tuple[str, ...]:
        """The families it works in (empty: every world)."""
        return _worlds(self.families, self.needs)

    def target(self) -> Callable[..., Mechanism]:
        return _target(self.factory)

    def make(self, **params: Any) -> Mechanism:
        return self.target()(**params)


def _target(factory: Callable[..., Any] | str) -> Callable[..., Any]:
    if isinstance(factory, str):
        from sim.plugins import resolve

        return resolve(factory)
    return factory


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
        for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
            _load_entry(entry)
    return _KINDS


_PROBLEMS: list[str] = []


def _load_entry(entry: metadata.EntryPoint) -> None:
    """Register the kinds an installed package offers; a broken one is reported, never fatal."""
    try:
        found = entry.load()
        for kind in found if isinstance(found, (list, tuple)) else [found]:
            if isinstance(kind, AgentKind):
                register_agent_kind(kind)
            elif isinstance(kind, MechanismKind):
                register_mechanism_kind(kind)
            else:
                raise TypeError(f"expected an AgentKind or a MechanismKind, got {type(kind).__name__}")
    except Exception as exc:  # noqa: BLE001 - reported, never fatal for the other kinds
        _PROBLEMS.append(f"agent kinds of entry point {entry.name} cannot be loaded: {type(exc).__name__}: {exc}")


def kind_problems() -> list[str]:
    """Why kinds offered by installed packages could not be loaded (empty when all loaded)."""
    _collect()
    return list(_PROBLEMS)


def register_agent_kind(kind: AgentKind) -> AgentKind:
    """Add an agent kind (replacing one of the same name: tests re-register freely)."""
    _collect()[0][kind.name] = kind
    return kind


def register_mechanism_kind(kind: MechanismKind) -> MechanismKind:
    """Add a mechanism kind (replacing one of the same name)."""
    _collect()[1][kind.name] = kind
    return kind


@contextmanager
def kinds_registered(*added: AgentKind | MechanismKind) -> Iterator[None]:
    """Register ``added`` (agent and mechanism kinds) for the block only: when it ends (however it
    ends) each name is bound again to the kind it had before or removed."""
    agents_, mechanisms_ = _collect()
    agents_before = {k.name: agents_.get(k.name) for k in added if isinstance(k, AgentKind)}
    mechanisms_before = {k.name: mechanisms_.get(k.name) for k in added if isinstance(k, MechanismKind)}
    for kind in added:
        if isinstance(kind, AgentKind):
            register_agent_kind(kind)
        else:
            register_mechanism_kind(kind)
    try:
        yield
    finally:
        for name, agent_kind in agents_before.items():
            if agent_kind is None:
                agents_.pop(name, None)
            else:
                agents_[name] = agent_kind
        for name, mechanism_kind in mechanisms_before.items():
            if mechanism_kind is None:
                mechanisms_.pop(name, None)
            else:
                mechanisms_[name] = mechanism_kind


def agent_kinds(*, listed: bool = False) -> dict[str, AgentKind]:
    """Every agent kind by name (``listed``: only those offered to choose from, not ``for_tests``)."""
    return {n: k for n, k in _collect()[0].items() if not (listed and k.for_tests)}


def mechanism_kinds(role: str | None = None, *, listed: bool = False) -> dict[str, MechanismKind]:
    """Every mechanism kind of ``role`` (any when None) by name (``listed``: not ``for_tests``)."""
    return {n: k for n, k in _collect()[1].items()
            if (role is None or k.role == role) and not (listed and k.for_tests)}


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
    kind, colon, rest = spec.strip().partition(":")
    if colon and not rest.strip():
        raise AgentSpecError(f"spec {spec!r}: nothing after ':'; write {kind.strip()!r} alone, "
                             f"or {kind.strip()}:param=value,...")
    params: dict[str, Any] = {}
    for part in filter(None, rest.split(",")):
        name, eq, value = part.partition("=")
        if not eq or not name.strip():
            raise AgentSpecError(f"spec {spec!r}: expected param=value, got {part!r}")
        if name.strip() in params:
            raise AgentSpecError(f"spec {spec!r}: parameter {name.strip()!r} is given twice; expected each "
                                 "parameter once")
        try:
            params[name.strip()] = _value(value.strip())
        except AgentSpecError as exc:
            raise AgentSpecError(f"spec {spec!r}: parameter {name.strip()!r}: {exc}") from None
    return kind.strip(), params


_SKIPPED = ("self", "world")


def _parameters(target: Callable[..., Any]) -> tuple[dict[str, tuple[Any, Any]], bool]:
    """The named parameters of a callable as pydantic fields (annotation, default), and whether
    it also takes ``**params`` that nothing here can check. A class's ``**params`` that go on to
    its bases' ``__init__`` are followed along the MRO."""
    functions = [c.__dict__["__init__"] for c in target.__mro__ if "__init__" in c.__dict__ and c is not object] \
        if inspect.isclass(target) else [target]
    fields: dict[str, tuple[Any, Any]] = {}
    for function in functions:
        try:
            hints = typing.get_type_hints(function, include_extras=True)
        except Exception:  # an annotation that names something not importable here: check names only
            hints = {}
        takes_more = False
        for name, p in inspect.signature(function).parameters.items():
            if name in _SKIPPED or name in fields or p.kind is inspect.Parameter.VAR_POSITIONAL:
                continue
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                takes_more = True
                continue
            fields[name] = (hints.get(name, Any), ... if p.default is inspect.Parameter.empty else p.default)
        if not takes_more:
            return fields, False
    return fields, True


_BOUNDS = (("greater than or equal to", "at least"), ("less than or equal to", "at most"),
           ("greater than", "above"), ("less than", "below"))


def _plain(value: Any) -> str:
    return "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


@functools.lru_cache(maxsize=None)
def _signature(target: Callable[..., Any], passes_on: tuple[Callable[..., Any], ...]
               ) -> tuple[dict[str, tuple[Any, Any]], bool]:
    """The fields of ``target`` and of what it passes ``**params`` on to (read once per kind)."""
    fields, open_ = _parameters(target)
    if passes_on:
        open_ = False
        for other in passes_on:
            more, other_open = _parameters(other)
            fields.update({k: v for k, v in more.items() if k not in fields})
            open_ = open_ or other_open
    return fields, open_


@functools.lru_cache(maxsize=None)
def _model(target: Callable[..., Any], passes_on: tuple[Callable[..., Any], ...], names: tuple[str, ...]) -> Any:
    """The pydantic model checking ``names`` of that signature (built once per set of names)."""
    from pydantic import ConfigDict, create_model  # here: most starts check no parameters

    fields = _signature(target, passes_on)[0]
    return create_model("Params", __config__=ConfigDict(arbitrary_types_allowed=True),
                        **{name: fields[name] for name in names})


def check_params(label: str, params: dict[str, Any], target: Callable[..., Any],
                 passes_on: Sequence[Callable[..., Any]] = ()) -> dict[str, Any]:
    """``params`` checked against the signatures of ``target`` and of the callables it passes its
    ``**params`` on to; returns them converted to the annotated types. Raises AgentSpecError
    naming the parameter, what it takes and what it got."""
    fields, open_ = _signature(target, tuple(passes_on))
    if not open_:
        unknown = [name for name in params if name not in fields]
        if unknown:
            known = ", ".join(f"{n}" + ("" if d is ... else f" (default {_plain(d)})") for n, (_, d) in fields.items())
            raise AgentSpecError(f"{label}: unknown parameter {unknown[0]!r}; "
                                 + (f"it takes {known}" if known else "it takes no parameters"))
    checked = tuple(name for name in params if name in fields)
    model = _model(target, tuple(passes_on), checked)
    from pydantic import ValidationError

    try:
        values = model.model_validate({name: params[name] for name in checked})
    except ValidationError as exc:
        err = exc.errors()[0]
        name = err["loc"][0] if err["loc"] else "?"
        msg = err["msg"].removeprefix("Value error, ").replace("Input should be", "expected")
        for words, plain in _BOUNDS:
            msg = msg.replace(words, plain)
        raise AgentSpecError(f"{label}: parameter {name!r}: {msg[:1].lower()}{msg[1:]}, "
                             f"got {_plain(err.get('input'))[:80]}") from None
    return {**params, **{name: getattr(values, name) for name in checked}}


def kind_parameters(kind: str, family: str | None = None) -> dict[str, Any] | None:
    """The parameters an agent or mechanism kind takes, with their defaults (``...``: required),
    including those it passes on for ``family``; None for a kind not known here."""
    agent, mechanism = agent_kinds().get(kind), mechanism_kinds().get(kind)
    if agent is not None:
        fields = _signature(agent.target(), ())[0]
    elif mechanism is not None:
        try:
            passes_on = tuple(mechanism.passes_on(family)) if mechanism.passes_on is not None else ()
        except ValueError:
            passes_on = ()
        fields = _signature(mechanism.target(), passes_on)[0]
    else:
        return None
    return {name: default for name, (_hint, default) in fields.items()}


def make_agent(spec: str, family: str | None = None) -> Agent:
    kind, params = parse_agent_spec(spec)
    kinds = agent_kinds()
    if kind not in kinds:
        raise AgentSpecError(f"unknown agent kind {kind!r}; known kinds: {', '.join(sorted(kinds))}")
    info = kinds[kind]
    if not info.plays(family):
        raise AgentSpecError(f"agent kind {kind!r} does not play {family!r} (it plays {', '.join(info.worlds())})")
    target = info.target()
    params = check_params(f"agent spec {spec!r}", params, target)
    try:
        return target(**params)
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
                             f"(it works in {', '.join(info.worlds())})")
    target = info.target()
    try:
        passes_on = info.passes_on(family) if info.passes_on is not None else ()
    except ValueError as exc:
        raise AgentSpecError(f"{what} spec {spec!r}: {exc}") from None
    params = check_params(f"{what} spec {spec!r}", params, target, passes_on)
    try:
        return target(**params)
    except (TypeError, ValueError) as exc:
        raise AgentSpecError(f"{what} spec {spec!r}: {exc}") from None


def make_mechanisms(specs: Iterable[str], family: str | None = None) -> list[Mechanism]:
    """Mechanisms from several specs (``none`` entries dropped); each gets a distinct name."""
    return name_apart([m for m in (make_mechanism(s, family) for s in specs) if m is not None])


def name_apart(mechanisms: list[Mechanism]) -> list[Mechanism]:
    """Distinct names for mechanisms of one kind: ``teams``, ``teams2``, ``teams3``..."""
    seen: dict[str, int] = {}
    for m in mechanisms:
        seen[m.kind] = seen.get(m.kind, 0) + 1
        if seen[m.kind] > 1:
            m.name = f"{m.kind}{seen[m.kind]}"
    return mechanisms


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
            if name in named:
                raise AgentSpecError(f"--agents {item!r}: the seat {name!r} is given twice; expected each seat once")
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
