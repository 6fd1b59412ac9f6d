"""The World interface that every environment of ToM Arena implements.

A World holds the static rules and layout of one scenario; a *state* is an
immutable value that the World maps to the next state. Nothing in here touches a
screen, a network or an LLM, so planners can simulate freely and replays are exact.

Turn-taking and simultaneous moves fit the same interface: ``active_agents``
names who moves in a state (one agent for turn-based worlds, several for
simultaneous ones) and ``step`` takes one action for each of them.

Agents talk through the World: ``message_action`` turns a text into an action of
the world (or says the world accepts no talk), ``step`` decides what sending it
costs (a step, frames by length, nothing) and reports the delivered messages in
``StepResult.messages``; recipients find them in their next observations. The
Session turns those into ``MessageEvent``s, so recordings and replays are exact.

Legal actions: ``legal_actions`` lists every legal action where that list is small
(grid moves). Worlds with huge action spaces (any amount, any message) set
``legal_actions_exhaustive = False`` and return a representative sample;
``why_illegal`` is then the authority, and ``is_legal`` follows it. Where the list is
exhaustive, every action on it is legal: the Session does not ask ``why_illegal`` about an
action taken from it.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

AgentId = str
S = TypeVar("S")  # state
A = TypeVar("A")  # action
O = TypeVar("O")  # noqa: E741 (observation, beside S and A)


@dataclass(frozen=True, slots=True)
class WorldEvent:
    """Something the rules made happen during a step (a door opened, a gem was taken)."""

    kind: str
    agent: AgentId | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "agent": self.agent, "data": dict(self.data)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "WorldEvent":
        return cls(kind=d["kind"], agent=d.get("agent"), data=dict(d.get("data", {})))


@dataclass(frozen=True, slots=True)
class Message:
    """A message the World delivered during a step.

    ``recipients`` are the agents that receive it in their observations; ``cost`` is what
    sending it cost in the world's own unit (steps, frames), 0 where talk is free.
    """

    sender: AgentId
    recipients: tuple[AgentId, ...]
    text: str
    cost: float = 0.0


@dataclass(frozen=True, slots=True)
class StepResult(Generic[S]):
    state: S
    events: tuple[WorldEvent, ...] = ()
    messages: tuple[Message, ...] = ()


def stable_digest(value: Any, size: int = 8) -> str:
    """A hash of a value built from ints, strings, bools, None and tuples.

    ``repr`` of those types is identical across runs and platforms (unlike
    ``hash()``, which is salted per process), so the digest can be stored in a
    recording and checked on replay.
    """
    return hashlib.blake2b(repr(value).encode("utf-8"), digest_size=size).hexdigest()


class World(ABC, Generic[S, A, O]):
    """The pure rules of one environment instance (one scenario)."""

    #: short name of the environment family, e.g. ``"dkg"``
    family: str = ""
    #: True when every active agent moves at once in each step (PettingZoo's Parallel API)
    simultaneous: bool = False
    #: False when ``legal_actions`` is only a sample and ``why_illegal`` decides legality
    legal_actions_exhaustive: bool = True

    @property
    @abstractmethod
    def agents(self) -> tuple[AgentId, ...]:
        """Every seat of this world, in a fixed order."""

    @abstractmethod
    def reset(self, seed: int) -> S:
        """The initial state. Worlds with random layouts draw them from ``seed``."""

    @abstractmethod
    def active_agents(self, state: S) -> tuple[AgentId, ...]:
        """Who acts in ``state``: one agent in turn-based worlds, several in simultaneous ones."""

    @abstractmethod
    def legal_actions(self, state: S, agent: AgentId) -> tuple[A, ...]:
        """The actions ``agent`` may take in ``state`` (empty when it is not its turn)."""

    @abstractmethod
    def step(self, state: S, joint_action: Mapping[AgentId, A]) -> StepResult[S]:
        """Apply one action per active agent. Raises ``IllegalAction`` on a bad action."""

    @abstractmethod
    def observe(self, state: S, agent: AgentId) -> O:
        """What ``agent`` perceives in ``state`` (may hide parts of it)."""

    @abstractmethod
    def done(self, state: S) -> bool:
        """True when the episode is over."""

    @abstractmethod
    def state_key(self, state: S) -> tuple:
        """A tuple of primitive values that identifies the state exactly."""

    @abstractmethod
    def outcome(self, state: S) -> dict[str, Any]:
        """JSON-ready result of the episode so far (success, per-agent results...)."""

    @abstractmethod
    def render_text(self, state: S) -> str:
        """A human-readable picture of the state for terminals and logs."""

    # Defaults that most worlds keep.

    def state_hash(self, state: S) -> str:
        return stable_digest(self.state_key(state))

    def observation_digest(self, observation: O) -> str:
        key = getattr(observation, "key", None)
        return stable_digest(key() if callable(key) else repr(observation))

    def tick_of(self, state: S) -> int:
        """The number of steps taken to reach ``state``."""
        return int(getattr(state, "t"))  # noqa: B009 (S is unbound: mypy cannot see the attribute)

    def encode_action(self, action: A) -> Any:
        """A JSON value for ``action`` (actions are plain strings by default)."""
        return action

    def decode_action(self, data: Any) -> A:
        return data

    def why_illegal(self, state: S, agent: AgentId, action: A) -> str | None:
        """None when ``agent`` may take ``action`` in ``state``, else the reason in words."""
        if action in self.legal_actions(state, agent):
            return None
        if agent not in self.active_agents(state):
            return f"it is not {agent}'s turn"
        return f"not one of {agent}'s legal actions now"

    def is_legal(self, state: S, agent: AgentId, action: A) -> bool:
        return self.why_illegal(state, agent, action) is None

    def message_action(self, state: S, agent: AgentId, text: str,
                       recipients: Sequence[AgentId] = ()) -> A | None:
        """The action by which ``agent`` sends ``text`` to ``recipients`` (everyone else when
        empty), or None when this world accepts no messages (the default)."""
        return None

    def fallback_action(self, state: S, agent: AgentId) -> A:
        """The action taken for an agent that fails to produce a legal one."""
        legal = self.legal_actions(state, agent)
        if not legal:
            raise IllegalAction(f"{agent} has no legal action")
        return legal[0]

    def spec(self) -> dict[str, Any]:
        """The scenario data this world was built from, for recordings to embed."""
        return {}

    def names(self) -> frozenset[str] | None:
        """The names of this world's things (rooms, places, objects, items, doors) that teaching
        questions (``sim/questions.py``) may refer to; the loader refuses a question naming
        anything else. None: this world does not say (a question's names are then not checked)."""
        return None

    def locate(self, state: S, thing: str) -> str | None:
        """Where ``thing`` (an object's id, or a class only one object has) is in ``state``: the
        name of its place, as scenario files name places; None when this world cannot say.
        Teaching questions (``sim/questions.py``) take it as what a mind without a model of
        other minds predicts."""
        return None

    def cannot_run_here(self) -> str | None:
        """Why this world cannot be played on this machine, in words a person can act on, or
        None. A Session refuses to start where it is not None (the team room, for example,
        runs submitted code only inside a sandbox the machine must be able to start)."""
        return None


class IllegalAction(ValueError):
    """An action that the rules do not allow in the given state."""


def require_joint(world: World, state: Any, joint_action: Mapping[AgentId, Any]) -> Sequence[AgentId]:
    """Check that ``joint_action`` names exactly the active agents; return them."""
    active = world.active_agents(state)
    if set(joint_action) != set(active):
        raise IllegalAction(
            f"joint action names {sorted(joint_action)} but the active agents are {sorted(active)}"
        )
    return active
