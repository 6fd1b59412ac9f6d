"""Typed Events: the one record of everything that happens in a Session.

Views, metrics, recordings and replays all read this stream and nothing else.
Every Event is a small frozen dataclass whose fields are JSON values, tagged with
a ``type`` name so that a recording line maps back to its class.

Later worlds and mechanisms add their own Event types with ``@register_event``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

_EVENT_TYPES: dict[str, type["Event"]] = {}


def register_event(cls: type["Event"]) -> type["Event"]:
    """Class decorator: make ``cls`` loadable from recordings under ``cls.type``."""
    if not cls.type:
        raise TypeError(f"{cls.__name__} needs a non-empty 'type'")
    if cls.type in _EVENT_TYPES and _EVENT_TYPES[cls.type] is not cls:
        raise TypeError(f"event type {cls.type!r} is registered twice")
    _EVENT_TYPES[cls.type] = cls
    return cls


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events. ``tick`` is the world step at which it happened."""

    type: ClassVar[str] = ""
    tick: int

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        for name in _layout(type(self))[0]:
            d[name] = getattr(self, name)
        return d


class EventFormatError(ValueError):
    """A recorded event that cannot be turned back into an Event."""


_LAYOUTS: dict[type, tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]] = {}


def _layout(cls: type) -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """(field names in order, the same as a set, the required ones) of an event class: read
    once per class (``dataclasses.fields`` is slow next to the rest of a recording line)."""
    found = _LAYOUTS.get(cls)
    if found is None:
        fields = dataclasses.fields(cls)
        required = tuple(f.name for f in fields
                         if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        found = _LAYOUTS[cls] = (tuple(f.name for f in fields), frozenset(f.name for f in fields), required)
    return found


def event_type(kind: Any) -> type[Event] | None:
    """The Event class registered under ``kind``, or None (also for a kind that is not text)."""
    return _EVENT_TYPES.get(kind) if isinstance(kind, str) else None


def event_from_dict(d: Mapping[str, Any]) -> Event:
    if not isinstance(d, Mapping):
        raise EventFormatError(f"expected a JSON object, got {type(d).__name__}")
    kind = d.get("type")
    cls = event_type(kind)
    if cls is None:
        raise EventFormatError(f"unknown event type {kind!r:.80}")
    _, names, required = _layout(cls)
    missing = [name for name in required if name not in d]
    if missing:
        raise EventFormatError(f"{kind} event lacks field(s) {', '.join(missing)}")
    try:
        return cls(**{k: v for k, v in d.items() if k in names})
    except TypeError as exc:  # pragma: no cover - defensive
        raise EventFormatError(f"{kind} event: {exc}") from exc


@register_event
@dataclass(frozen=True, slots=True)
class StepEvent(Event):
    """The world advanced from state ``tick`` to state ``tick + 1``."""

    type: ClassVar[str] = "step"
    joint_action: dict[str, Any]
    state_hash: str
    world_events: list[dict[str, Any]] = field(default_factory=list)


@register_event
@dataclass(frozen=True, slots=True)
class ObservationEvent(Event):
    """Digest of what ``agent`` saw before acting at ``tick``."""

    type: ClassVar[str] = "observation"
    agent: str
    digest: str


@register_event
@dataclass(frozen=True, slots=True)
class BeliefEvent(Event):
    """A snapshot of a mind (an agent's or the facilitator's) after ``tick``.

    ``kind`` names the snapshot's shape, e.g. ``goal_posterior`` with
    ``data = {"agent": "alice", "goals": {...}}``.
    """

    type: ClassVar[str] = "belief"
    owner: str
    kind: str
    data: dict[str, Any]


@register_event
@dataclass(frozen=True, slots=True)
class MessageEvent(Event):
    """``sender`` sent ``text`` during step ``tick``; the World delivered it to ``recipients``.

    ``chars``, ``words`` and ``tokens`` measure the communication (tokens as counted by
    ``sim.text.count_tokens``); ``cost`` is what sending cost in the world's unit."""

    type: ClassVar[str] = "message"
    sender: str
    recipients: list[str]
    text: str
    chars: int = 0
    words: int = 0
    tokens: int = 0
    cost: float = 0.0


@register_event
@dataclass(frozen=True, slots=True)
class FeedbackEvent(Event):
    """A facilitator suggested ``feedback`` to ``target``."""

    type: ClassVar[str] = "feedback"
    feedback_id: int
    facilitator: str
    target: str
    feedback: dict[str, Any]
    text: str
    explanation: str
    utility: float | None = None


@register_event
@dataclass(frozen=True, slots=True)
class FeedbackStatusEvent(Event):
    """What became of a feedback: accepted, ignored, completed or not_executable."""

    type: ClassVar[str] = "feedback_status"
    feedback_id: int
    agent: str
    status: str


@register_event
@dataclass(frozen=True, slots=True)
class TeamEvent(Event):
    """A team mechanism (re)formed teams after step ``tick``: ``teams`` maps a team name to
    its members, ``reason`` says why (formation, alignment drop, ...)."""

    type: ClassVar[str] = "team"
    assignment_id: int
    mechanism: str
    teams: dict[str, list[str]]
    reason: str
    data: dict[str, Any] = field(default_factory=dict)


@register_event
@dataclass(frozen=True, slots=True)
class LLMCallEvent(Event):
    """One model call with its request, its answer and the tokens it cost."""

    type: ClassVar[str] = "llm_call"
    agent: str
    module: str
    request: dict[str, Any]
    response: dict[str, Any] | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    error: str | None = None


@register_event
@dataclass(frozen=True, slots=True)
class ErrorEvent(Event):
    """A fault the Session recovered from (illegal action, agent crash, model failure)."""

    type: ClassVar[str] = "error"
    source: str
    kind: str
    message: str


@register_event
@dataclass(frozen=True, slots=True)
class RoundEvent(Event):
    """Task round ``round`` (1-based) ended after step ``tick - 1`` with ``outcome`` (the world's),
    and round ``round + 1`` starts at ``tick`` from the scenario's starting layout."""

    type: ClassVar[str] = "round"
    round: int
    outcome: dict[str, Any]


@register_event
@dataclass(frozen=True, slots=True)
class OutcomeEvent(Event):
    """The episode ended at ``tick``."""

    type: ClassVar[str] = "outcome"
    outcome: dict[str, Any]
    metrics: dict[str, Any]


@register_event
@dataclass(frozen=True, slots=True)
class PredictionEvent(Event):
    """The viewer answered the teaching question ``question`` (``sim/questions.py``) before step
    ``tick`` was played: ``choice`` (its id) and the words both were shown in."""

    type: ClassVar[str] = "prediction"
    question: str
    choice: str
    text: str = ""
    choice_text: str = ""
    viewer: str = "viewer"
