"""Typed belief snapshots: one registered payload type per snapshot kind.

A seat or a mechanism describes its mind after a step as ``(kind, payload)`` pairs
(``belief_snapshots``); the Session records each as a ``BeliefEvent(owner, kind, data)``.
The kind names a payload type registered here, as event types are registered in
``sim.events``: the Session checks every snapshot against its kind when it is emitted (an
unknown kind, a missing field or a value of the wrong type is a ``SnapshotError`` naming the
owner, the kind and the field), and panels read ``BeliefEvent.data`` back through the same
type (``read_snapshot``).

A payload type is a frozen dataclass subclassing ``SnapshotPayload`` with a ``kind``. Its
fields are JSON values (str, int, float, bool, None, list, dict with text keys) and are
checked against their annotations. A field whose default is ``ABSENT`` may be left out (it is
then not written). A kind whose minds add fields of their own (``open = True``) keeps them in
``extra``. ``to_dict`` gives back the recorded dict exactly, keys in the same order, so
recordings stay byte-identical; ``from_dict`` reads one.

Plug-ins add kinds of their own with ``@register_snapshot_kind``; tests with
``with snapshot_kinds_registered(...)``, for the block only.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union

_KINDS: dict[str, type["SnapshotPayload"]] = {}
_HINTS: dict[type, dict[str, Any]] = {}
_BOOKKEEPING = ("extra", "key_order")

P = TypeVar("P", bound="SnapshotPayload")


class SnapshotError(ValueError):
    """A belief snapshot that does not fit its kind (or whose kind is not registered)."""


class _Absent:
    """The value of an optional field that the snapshot leaves out."""

    _instance: "_Absent | None" = None

    def __new__(cls) -> "_Absent":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False


#: default of an optional field: left out of the snapshot's dict
ABSENT: Any = _Absent()


def register_snapshot_kind(cls: type[P]) -> type[P]:
    """Class decorator: snapshots of kind ``cls.kind`` must fit ``cls`` (and read back as ``cls``)."""
    if not cls.kind:
        raise TypeError(f"{cls.__name__} needs a non-empty 'kind'")
    if not (isinstance(cls, type) and issubclass(cls, SnapshotPayload) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls.__name__} must be a dataclass subclassing SnapshotPayload")
    if cls.kind in _KINDS and _KINDS[cls.kind] is not cls:
        raise TypeError(f"snapshot kind {cls.kind!r} is registered twice")
    _KINDS[cls.kind] = cls
    return cls


@contextmanager
def snapshot_kinds_registered(*added: type["SnapshotPayload"]) -> Iterator[None]:
    """Register ``added`` (payload types, as ``register_snapshot_kind`` does, with its checks) for
    the block only: when it ends (however it ends) each kind is removed again unless it was
    registered before the block, so a test's kind does not outlive the test."""
    before = {cls.kind for cls in added if cls.kind in _KINDS}
    try:
        for cls in added:
            register_snapshot_kind(cls)
        yield
    finally:
        for cls in added:
            if cls.kind not in before:
                _KINDS.pop(cls.kind, None)
                _HINTS.pop(cls, None)


def snapshot_kinds() -> dict[str, type["SnapshotPayload"]]:
    """Every registered snapshot kind and its payload type."""
    return dict(_KINDS)


def snapshot_type(kind: Any) -> type["SnapshotPayload"] | None:
    """The payload type registered under ``kind``, or None."""
    return _KINDS.get(kind) if isinstance(kind, str) else None


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _type_name(tp: Any) -> str:
    if tp is Any:
        return "any JSON value"
    if tp is type(None):
        return "null"
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is list:
        return "a list"
    if origin is dict:
        return "an object"
    return {str: "text", int: "an integer", float: "a number", bool: "true or false",
            list: "a list", dict: "an object"}.get(tp, getattr(tp, "__name__", str(tp)))


#: per type: a predicate that tells whether a value fits it (``_fits``)
_FITS: dict[Any, Callable[[Any], bool]] = {}


def _fits(value: Any, tp: Any) -> bool:
    """Whether ``value`` fits ``tp``: exactly when ``_mismatch`` finds nothing, without building a
    message for every alternative of a union it tries (a predicate compiled once per type)."""
    check = _FITS.get(tp)
    if check is None:
        check = _FITS[tp] = _compile_fits(tp)
    return check(value)


def _compile_fits(tp: Any) -> Callable[[Any], bool]:
    if tp is Any:
        return lambda v: True
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        alternatives = [_compile_fits(a) for a in typing.get_args(tp)]
        return lambda v: any(fits(v) for fits in alternatives)
    if tp is type(None):
        return lambda v: v is None
    if tp is bool:
        return lambda v: isinstance(v, bool)
    if tp is int:
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if tp is float:
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if tp is str:
        return lambda v: isinstance(v, str)
    if tp is list or origin is list:
        (item,) = typing.get_args(tp) or (Any,)
        fits_item = _compile_fits(item)
        return lambda v: isinstance(v, (list, tuple)) and all(fits_item(x) for x in v)
    if tp is dict or origin is dict:
        _, item = typing.get_args(tp) or (str, Any)
        fits_value = _compile_fits(item)
        return lambda v: isinstance(v, Mapping) and all(isinstance(k, str) and fits_value(x) for k, x in v.items())

    def not_json(v: Any) -> bool:  # as ``_mismatch``: only when a value reaches the type
        raise TypeError(f"snapshot fields must be JSON types, not {tp!r}")  # pragma: no cover - a type's bug
    return not_json


def _mismatch(value: Any, tp: Any, where: str) -> str | None:
    """Why ``value`` does not fit ``tp`` (a message naming ``where``), or None when it fits."""
    if tp is Any:
        return None
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        if any(_mismatch(value, a, where) is None for a in typing.get_args(tp)):
            return None
        return f"{where} must be {_type_name(tp)}, got {_shown(value)}"
    if tp is type(None):
        return None if value is None else f"{where} must be null, got {_shown(value)}"
    if tp is bool:
        return None if isinstance(value, bool) else f"{where} must be true or false, got {_shown(value)}"
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"{where} must be an integer, got {_shown(value)}"
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return None if ok else f"{where} must be a number, got {_shown(value)}"
    if tp is str:
        return None if isinstance(value, str) else f"{where} must be text, got {_shown(value)}"
    if tp is list or origin is list:
        if not isinstance(value, (list, tuple)):
            return f"{where} must be a list, got {_shown(value)}"
        (item,) = typing.get_args(tp) or (Any,)
        for i, v in enumerate(value):
            if (why := _mismatch(v, item, f"{where}[{i}]")) is not None:
                return why
        return None
    if tp is dict or origin is dict:
        if not isinstance(value, Mapping):
            return f"{where} must be an object, got {_shown(value)}"
        _, item = typing.get_args(tp) or (str, Any)
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{where} must have text keys, got {_shown(k)}"
            if (why := _mismatch(v, item, f"{where}[{k!r}]")) is not None:
                return why
        return None
    raise TypeError(f"snapshot fields must be JSON types, not {tp!r}")  # pragma: no cover - a type's bug


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r:.60}"


@dataclass(frozen=True, kw_only=True)
class SnapshotPayload:
    """Base of the payload types. ``extra`` holds the fields an open kind's mind adds;
    ``key_order`` the key order of the dict it was read from (kept so that ``to_dict`` gives that
    dict back exactly)."""

    kind: ClassVar[str] = ""
    #: True when minds may add fields of their own beyond the declared ones
    open: ClassVar[bool] = False

    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)
    key_order: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @classmethod
    def declared(cls) -> tuple[str, ...]:
        """The declared field names, in order."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in _BOOKKEEPING)

    @classmethod
    def required(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in _BOOKKEEPING
                     and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)

    def to_dict(self) -> dict[str, Any]:
        """The snapshot as recorded: declared fields (those not ``ABSENT``), then ``extra``."""
        values = {name: getattr(self, name) for name in self.declared() if getattr(self, name) is not ABSENT}
        values.update(self.extra)
        if not self.key_order:
            return values
        out = {k: values[k] for k in self.key_order if k in values}
        out.update((k, v) for k, v in values.items() if k not in out)
        return out

    @classmethod
    def from_dict(cls: type[P], data: Any) -> P:
        """Read a snapshot's dict; a ``SnapshotError`` names the field that does not fit."""
        if not isinstance(data, Mapping):
            raise SnapshotError(f"the payload must be an object, got {_shown(data)}")
        declared = cls.declared()
        unknown = [k for k in data if k not in declared]
        if unknown and not cls.open:
            raise SnapshotError(f"field {unknown[0]!r} is not a field of this kind (fields: {', '.join(declared)})")
        missing = [k for k in cls.required() if k not in data]
        if missing:
            raise SnapshotError(f"field {missing[0]!r} is missing")
        hints = _hints(cls)
        for name in declared:
            if name in data and not _fits(data[name], hints[name]) \
                    and (why := _mismatch(data[name], hints[name], f"field {name!r}")) is not None:
                raise SnapshotError(why)
        payload = cls(**{k: data[k] for k in declared if k in data},
                      extra={k: data[k] for k in unknown}, key_order=tuple(data))
        payload.check()
        return payload

    def check(self) -> None:
        """Rules across fields; raise ``SnapshotError`` when one is broken."""


def checked_payload(owner: str, kind: Any, payload: Any) -> "SnapshotPayload":
    """``owner``'s snapshot ``(kind, payload)`` as the kind's payload type: ``payload`` is that
    type or a dict that fits it. Anything else is a ``SnapshotError`` naming the owner, the kind
    and the field."""
    cls = snapshot_type(kind)
    if cls is None:
        known = ", ".join(sorted(_KINDS))
        raise SnapshotError(f"{owner!r} emitted a snapshot of unknown kind {kind!r:.60} "
                            f"(registered kinds: {known}; a new kind is added with register_snapshot_kind)")
    if isinstance(payload, SnapshotPayload) and not isinstance(payload, cls):
        raise SnapshotError(f"{owner!r} emitted a {kind!r} snapshot as a {type(payload).__name__}; "
                            f"the kind's payload type is {cls.__name__}")
    data = payload.to_dict() if isinstance(payload, SnapshotPayload) else payload
    try:
        return cls.from_dict(data)
    except SnapshotError as exc:
        raise SnapshotError(f"{owner!r} emitted a {kind!r} snapshot that does not fit it: {exc}") from None


def checked_snapshot(owner: str, kind: Any, payload: Any) -> dict[str, Any]:
    """The dict to record for ``owner``'s snapshot ``(kind, payload)`` (``checked_payload``)."""
    return checked_payload(owner, kind, payload).to_dict()


def as_payload(cls: type[P], value: Any) -> P:
    """``value`` as ``cls``: itself when it is one, else the dict read with ``cls.from_dict``
    (a ``SnapshotError`` when it does not fit). For readers handed either form."""
    return value if isinstance(value, cls) else cls.from_dict(value)


def read_snapshot(cls: type[P], data: Any) -> P | None:
    """``data`` (a recorded ``BeliefEvent.data``) read as ``cls``, or None when it does not fit
    (a hand-edited recording): what panels show."""
    try:
        return cls.from_dict(data)
    except SnapshotError:
        return None


# ---------------------------------------------------------------------------- the shipped kinds

JSON = Any
Number = float


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class GoalPosterior(SnapshotPayload):
    """A facilitator's posterior over one agent's goals."""

    kind: ClassVar[str] = "goal_posterior"
    agent: str
    goals: dict[str, Number]


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Particles(SnapshotPayload):
    """What one agent is believed to believe about what it does not see (particle filter)."""

    kind: ClassVar[str] = "particles"
    agent: str
    particles: int
    resampled: int
    unseen: list[dict[str, JSON]]


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class FeedbackCandidates(SnapshotPayload):
    """A facilitator's feedback candidates with their utilities; ``chosen`` indexes the one sent."""

    kind: ClassVar[str] = "feedback_candidates"
    candidates: list[dict[str, JSON]]
    chosen: int | None
    phi: Number
    eps: Number
    hypotheses: int
    #: joint goal hypotheses the posteriors left, when fewer (``hypotheses``) were averaged over
    hypotheses_total: int = ABSENT
    #: ... and the share of the posteriors' probability those ``hypotheses`` hold (1 in all)
    hypotheses_mass: Number = ABSENT


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Plan(SnapshotPayload):
    """What an agent means to do next. Rule-based planners report ``rule`` and ``subgoal``;
    path planners ``task``, ``path`` (grid cells) and the feedback they follow; planners add
    fields of their own (their beliefs, their share of a team plan)."""

    kind: ClassVar[str] = "plan"
    open: ClassVar[bool] = True
    rule: str = ABSENT
    subgoal: str = ABSENT
    task: str = ABSENT
    target: list[int] | None = ABSENT
    cost: Number | None = ABSENT
    path: list[list[int]] = ABSENT
    action: str = ABSENT
    random: bool = ABSENT
    following_feedback: int | None = ABSENT

    def check(self) -> None:
        if self.rule is ABSENT and self.task is ABSENT:
            raise SnapshotError("a plan needs field 'rule' or field 'task'")


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class SymbolicBeliefs(SnapshotPayload):
    """A symbolic belief world (CoBel-World): its zero- and first-order statements and what
    changed since the last snapshot."""

    kind: ClassVar[str] = "symbolic_beliefs"
    agent: str
    zero_order: list[JSON]
    first_order: dict[str, JSON]
    changed: list[JSON]
    removed: list[JSON]
    misaligned: list[JSON] = ABSENT


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Intents(SnapshotPayload):
    """An agent's guesses at its partners' intents and its own."""

    kind: ClassVar[str] = "intents"
    about: dict[str, JSON]
    own: str | None = ABSENT
    told: int = ABSENT
    reason: str = ABSENT
    sources: dict[str, JSON] = ABSENT
    llm_calls: int = ABSENT


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Predictions(SnapshotPayload):
    """A k-level agent's predictions of the others (``about[other]``) at its level ``level``."""

    kind: ClassVar[str] = "predictions"
    about: dict[str, JSON]
    level: int = ABSENT


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Skill(SnapshotPayload):
    """An agent's skill test for its own task: ``alpha`` in [0, 1]."""

    kind: ClassVar[str] = "skill"
    alpha: Number
    test: str = ABSENT


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class SelfEvaluation(SnapshotPayload):
    """How a mind rates its alignment with each other agent (``scores``, in [-1, 1]), or the
    model's raw ``answer`` to parse."""

    kind: ClassVar[str] = "alignment_self_evaluation"
    open: ClassVar[bool] = True
    scores: dict[str, Number] = ABSENT
    answer: str = ABSENT

    def check(self) -> None:
        if self.scores is ABSENT and self.answer is ABSENT:
            raise SnapshotError("a self-evaluation needs field 'scores' or field 'answer'")


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class AlignmentMatrix(SnapshotPayload):
    """The teams mechanism's alignment matrix phi (rows and columns in ``agents`` order)."""

    kind: ClassVar[str] = "alignment_matrix"
    agents: list[str]
    phi: list[list[Number | None]]
    samples: list[list[int]]
    eps: Number
    theta: Number


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class TeamState(SnapshotPayload):
    """The teams mechanism's teams and their stability measures."""

    kind: ClassVar[str] = "team_state"
    teams: dict[str, list[str]]
    idle: list[str]
    outside: list[str]
    welfare: Number | None
    stable: bool | None
    bas: Number | None
    ftm: dict[str, Number]
    phase: str
    misaligned: Number | None
    counter: str | None
    rounds: int
    lifetimes: list[dict[str, JSON]]
    levels: dict[str, JSON]
    solver: dict[str, JSON] | None


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class ToM(SnapshotPayload):
    """An LLM agent's answer at each theory-of-mind level it reasoned at."""

    kind: ClassVar[str] = "tom"
    k: int
    role: str = ABSENT
    #: None when the model gave no usable answer (the fallback acted)
    levels: dict[str, JSON] | None
    level_names: list[str]
    action: JSON = ABSENT
    source: str
    calls: int
    following_feedback: int | None = ABSENT


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Belief(SnapshotPayload):
    """What an agent believes about the places it does not see now (a kitchen cook): ``objects``
    as [row, column, object, tick last seen] (possibly outdated), the places it has never seen
    (``unknown``: [row, column]), the objects it expected this tick that were gone
    (``surprised``: {"at", "expected", "found"}) and how often that happened (``surprises``)."""

    kind: ClassVar[str] = "belief"
    objects: list[JSON]
    unknown: list[JSON]
    surprised: list[JSON]
    surprises: int


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class Verdict(SnapshotPayload):
    """A reviewer's verdict on a submission: scores for and against and the reason."""

    kind: ClassVar[str] = "verdict"
    source: str
    affirmative: Number
    negative: Number
    reason: str


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class LLMFeedback(SnapshotPayload):
    """An LLM facilitator's inferred goals, its answer and the options it chose from."""

    kind: ClassVar[str] = "llm_feedback"
    open: ClassVar[bool] = True
    inferred_goals: dict[str, JSON]
    answer: str
    options: list[JSON]


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class LLMTrader(SnapshotPayload):
    """An LLM trader's stage, turn and whether the model or the fallback decided."""

    kind: ClassVar[str] = "llm_trader"
    open: ClassVar[bool] = True
    stage: str
    turn: int
    source: str


@register_snapshot_kind
@dataclass(frozen=True, kw_only=True)
class ToMValues(SnapshotPayload):
    """A trader's value estimates at each order up to its own (``V0``, and ``V1``, ``V2`` at
    orders 1 and 2; per item), its beliefs about the
    opponent, the utilities of its options and the action taken."""

    kind: ClassVar[str] = "tom_values"
    open: ClassVar[bool] = True
    stage: str
    turn: int
    opponent: str
    order: int
    scale: list[Number]
    items: list[str]
    V0: dict[str, Number | None]
    V1: dict[str, Number | None] = ABSENT
    V2: dict[str, Number | None] = ABSENT
    beliefs: dict[str, JSON]
    utility: dict[str, JSON]
    action: dict[str, JSON]
