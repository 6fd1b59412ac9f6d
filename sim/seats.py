"""What the Session needs from the minds it runs: seats (agents), a facilitator, a team mechanism.

Implementations live in ``agents/``; this module only fixes the contract so that
``sim/`` never depends on a particular kind of mind.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.events import Event
from sim.world import AgentId, World


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

    @property
    def tick(self) -> int:
        return self.clock()


@dataclass(frozen=True, slots=True)
class Feedback:
    """A suggestion from a facilitator to one agent (ProToM's f with its explanation e)."""

    feedback_id: int
    target: AgentId
    payload: Mapping[str, Any]
    text: str
    explanation: str
    utility: float | None = None


class Agent(ABC):
    """Anything that chooses actions for one seat."""

    #: registry name of the kind of agent, e.g. "planner"
    kind: str = ""

    def reset(self, ctx: SeatContext) -> None:
        self.ctx = ctx

    @abstractmethod
    def act(self, observation: Any, legal_actions: Sequence[Any]) -> Any:
        """Choose an action, or return ``PENDING`` to be asked again later."""

    def receive_feedback(self, feedback: Feedback) -> None:
        """A facilitator's suggestion. Report what becomes of it with FeedbackStatusEvents."""

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        """``(kind, data)`` pairs describing the agent's mind after the latest step."""
        return ()

    def describe(self) -> dict[str, Any]:
        """JSON-ready parameters of this agent, written into recording headers."""
        return {"kind": self.kind}

    def close(self) -> None:
        """Release resources (servers, threads)."""


class Facilitator(ABC):
    """Watches the whole state, infers goals, and may send feedback."""

    kind: str = ""

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        self.world = world
        self.ctx = ctx

    @abstractmethod
    def after_step(self, before: Any, joint_action: Mapping[AgentId, Any], after: Any,
                   busy: Mapping[AgentId, int]) -> Sequence[Feedback]:
        """Update beliefs with a step; return feedback to send now (possibly none).

        ``busy`` maps agents still executing a feedback to that feedback's id.
        """

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return ()

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


class TeamMechanism(ABC):
    """Forms and re-forms teams from observed behaviour (belief-action alignment)."""

    kind: str = ""

    def reset(self, world: World, state: Any, ctx: SeatContext) -> None:
        self.world = world
        self.ctx = ctx

    @abstractmethod
    def after_step(self, before: Any, joint_action: Mapping[AgentId, Any], after: Any) -> None:
        """Update alignment and teams; emit team events through ``ctx.emit``."""

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass
class SeatSpec:
    """How a seat was filled, as written into a recording header."""

    agent: AgentId
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
