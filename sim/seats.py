"""What the Session needs from the minds it runs: seats (agents) and mechanisms (facilitators,
team formation) with the interventions they make.

Implementations live in ``agents/``; this module only fixes the contract so that
``sim/`` never depends on a particular kind of mind.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sim.events import Event, FeedbackEvent, FeedbackStatusEvent, TeamEvent
from sim.snapshots import P, SnapshotPayload, as_payload
from sim.world import AgentId, Message, World, WorldEvent

if TYPE_CHECKING:
    import numpy as np


class _Pending:
    """Returned by ``Agent.act`` when the seat has no action yet (a human thinking)."""

    _instance: "_Pending | None" = None

    def __new__(cls) -> "_Pending":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "PENDING"


PENDING = _Pending()


@dataclass
class SeatContext:
    """What a mind gets from the Session: its world, its name, its own random stream, and a way
    to emit Events (LLM calls, messages, belief snapshots) into the episode's stream."""

    world: World
    agent_id: AgentId
    seed: int
    rng: np.random.Generator
    emit: Callable[[Event], None]
    clock: Callable[[], int]
    #: the kind of every seat of the episode (``Agent.kind``, e.g. ``{"human": "cooperative",
    #: "robot": "planner"}``), as the scenario or ``--agents`` declares them: what a mind may know
    #: of how the others are played (a DKG helper predicts a ``cooperative`` human as one)
    seat_kinds: Mapping[AgentId, str] = field(default_factory=dict)

    @property
    def tick(self) -> int:
        return self.clock()


class Intervention:
    """What a mechanism hands the Session to route to agents and record (feedback, a team
    assignment, ...). Subclasses are frozen dataclasses with an ``intervention_id`` (a field or a
    property) that the Session fills in through ``with_id``."""

    def recipients(self) -> tuple[AgentId, ...]:
        """The seats that receive this intervention."""
        raise NotImplementedError

    def with_id(self, intervention_id: int) -> "Intervention":
        return dataclasses.replace(self, intervention_id=intervention_id)  # type: ignore[type-var]

    def to_event(self, tick: int, source: str) -> Event:
        """The Event that records this intervention."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Feedback(Intervention):
    """A suggestion from a facilitator to one agent (ProToM's f with its explanation e)."""

    feedback_id: int
    target: AgentId
    payload: Mapping[str, Any]
    text: str
    explanation: str
    utility: float | None = None

    @property
    def intervention_id(self) -> int:
        return self.feedback_id

    def recipients(self) -> tuple[AgentId, ...]:
        return (self.target,)

    def with_id(self, intervention_id: int) -> "Feedback":
        return dataclasses.replace(self, feedback_id=intervention_id)

    def to_event(self, tick: int, source: str) -> Event:
        return FeedbackEvent(tick=tick, feedback_id=self.feedback_id, facilitator=source, target=self.target,
                             feedback=dict(self.payload), text=self.text, explanation=self.explanation,
                             utility=self.utility)


@dataclass(frozen=True, slots=True)
class TeamAssignment(Intervention):
    """A team mechanism's grouping of agents: ``teams`` maps a team name to its members;
    agents in no team are idle. ``reason`` says why the teams (re)formed."""

    intervention_id: int
    teams: Mapping[str, tuple[AgentId, ...]]
    reason: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def recipients(self) -> tuple[AgentId, ...]:
        return tuple(sorted({a for members in self.teams.values() for a in members}))

    def team_of(self, agent: AgentId) -> str | None:
        return next((name for name, members in self.teams.items() if agent in members), None)

    def to_event(self, tick: int, source: str) -> Event:
        return TeamEvent(tick=tick, assignment_id=self.intervention_id, mechanism=source,
                         teams={k: list(v) for k, v in self.teams.items()}, reason=self.reason,
                         data=dict(self.data))


class Agent(ABC):
    """Anything that chooses actions for one seat."""

    #: registry name of the kind of agent, e.g. "planner"
    kind: str = ""
    #: True for seats (people) whose illegal action is refused and asked again rather than
    #: replaced by the world's fallback; the refusal reaches ``action_refused``
    retry_illegal: bool = False

    def reset(self, ctx: SeatContext) -> None:
        self.ctx = ctx

    @abstractmethod
    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """Choose an action, or return ``PENDING`` to be asked again later."""

    def receive(self, intervention: Intervention) -> None:
        """An intervention of a mechanism addressed to this seat."""
        if isinstance(intervention, Feedback):
            self.receive_feedback(intervention)
        elif isinstance(intervention, TeamAssignment):
            self.receive_team(intervention)

    def receive_feedback(self, feedback: Feedback) -> None:
        """A facilitator's suggestion. Report what becomes of it with FeedbackStatusEvents."""

    def receive_team(self, assignment: TeamAssignment) -> None:
        """The seat's new team (``assignment.team_of(self.ctx.agent_id)``; None: idle)."""

    def wait(self, timeout: float | None = None) -> bool:
        """Block until an answer may be ready (at most ``timeout`` seconds) after ``act`` returned
        ``PENDING``. False for seats that answer only when something outside acts (a person at
        the keyboard): ``Session.run`` cannot wait for those."""
        return False

    def action_refused(self, action: Any, reason: str) -> None:
        """For ``retry_illegal`` seats: ``action`` was not legal, for ``reason``."""

    def observe_state(self, state: Any) -> None:
        """Every new state, for seats that follow the episode between their turns."""

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        """``(kind, data)`` pairs describing the agent's mind after the latest step."""
        return ()

    def describe(self) -> dict[str, Any]:
        """JSON-ready parameters of this agent, written into recording headers."""
        return {"kind": self.kind}

    def counters(self) -> dict[str, int]:
        """Counts this agent kept over the episode (e.g. messages whose reading changed its plan);
        ``Session.metrics()`` adds them up over the seats."""
        return {}

    def close(self) -> None:
        """Release resources (servers, threads)."""


@dataclass(frozen=True, slots=True)
class StepView:
    """One step as a mechanism sees it: the state before, the joint action, the state after,
    what the rules reported, and every mind's belief snapshots after the step as their
    registered payload types (``beliefs[owner][kind]``, e.g. a ``Predictions``; read one with
    ``snapshot(owner, Predictions)``)."""

    tick: int
    before: Any
    joint_action: Mapping[AgentId, Any]
    after: Any
    world_events: tuple[WorldEvent, ...] = ()
    messages: tuple[Message, ...] = ()
    beliefs: Mapping[str, Mapping[str, SnapshotPayload]] = field(default_factory=dict)
    #: the step ended a task round (``Session(rounds=...)``), the last one included; play goes on
    #: from the starting layout when another round follows
    round_end: bool = False

    def snapshot(self, owner: str, cls: type[P]) -> P | None:
        """``owner``'s snapshot of ``cls.kind`` after this step, or None when it gave none."""
        payload = self.beliefs.get(owner, {}).get(cls.kind)
        return None if payload is None else as_payload(cls, payload)


class Mechanism(ABC):
    """Anything that watches the whole episode and intervenes: a facilitator, team formation.

    Before the first step the Session calls ``start``, and each step ``after_step`` with a
    ``StepView``; it routes the returned interventions to their recipients, recording each as
    an Event. ``on_event`` sees every
    Event of the stream (to learn, say, what became of a feedback). Several mechanisms can
    run in one Session; each emits its belief snapshots under its own ``name``.
    """

    kind: str = ""

    @property
    def name(self) -> str:
        """The owner name of this mechanism's events (its kind unless set)."""
        return getattr(self, "_name", None) or self.kind

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        self.world = world
        self.ctx = ctx

    def on_event(self, event: Event) -> None:
        """Every Event of the episode, as it is emitted."""

    def start(self, state: Any) -> Sequence[Intervention]:
        """Interventions to make before anyone acts (a team told before its first step), given
        the state the seats start from; none by default."""
        return ()

    @abstractmethod
    def after_step(self, step: StepView) -> Sequence[Intervention]:
        """Update with a step; return interventions to make now (possibly none)."""

    def round_start(self, state: Any) -> None:
        """A new task round starts from ``state`` (``Session(rounds=R)``: the scenario's layout again,
        the same seats). Called after the ``after_step`` of the step that ended the round, so that
        beliefs about the ended round's world (where things are, who holds what) can start again;
        nothing by default."""

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return ()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


#: statuses after which an agent is free to receive new feedback
FEEDBACK_CLOSED = frozenset({"completed", "ignored", "not_executable"})


class Facilitator(Mechanism):
    """A mechanism that suggests feedback to agents and keeps the busy rule's bookkeeping:
    ``busy`` maps agents still carrying out one of its feedbacks to that feedback's id."""

    #: the busy rule: no new feedback while an agent still carries one out
    respect_busy: bool = True

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        super().reset(world, state, ctx)
        self.busy: dict[AgentId, int] = {}
        self._mine: set[int] = set()

    def on_event(self, event: Event) -> None:
        if isinstance(event, FeedbackEvent) and event.facilitator == self.name:
            self._mine.add(event.feedback_id)
            self.busy[event.target] = event.feedback_id
        elif (isinstance(event, FeedbackStatusEvent) and event.status in FEEDBACK_CLOSED
              and self.busy.get(event.agent) == event.feedback_id):
            del self.busy[event.agent]

    def after_step(self, step: StepView) -> Sequence[Intervention]:
        return tuple(self.suggest(step, dict(self.busy)))

    @abstractmethod
    def suggest(self, step: StepView, busy: Mapping[AgentId, int]) -> Sequence[Feedback]:
        """Update beliefs with a step; return feedback to send now (possibly none)."""
