"""The k-level ToM team agents (seed 000, Eq. 1): one generic agent, ``ToMTeamAgent``, over
each world's ``TeamPolicies``.

The agent keeps what every world shares: the level of a seat (``k``, or ``"cycle"``: its
turn-order index mod 3), its checked parameters, the team as a set of member indices, the history
of every agent's actions read off the states it is told, the level-k recursion of ``predict``
(level 0: the last action repeated; above: a level-(k - 1) simulation of the other), the
``predictions`` snapshot the team mechanism reads, the ``skill`` snapshot, and ``noise``. A
world's ``TeamPolicies`` brings only what is its own: its policies pi_k, how another agent's next
actions are simulated, which actions a level-0 model repeats, how actions are read off
consecutive states, and its skill test (``tom_dkg``, ``tom_kitchen``, ``tom_household``).

A world's team tasks are declared by its plug-in's ``methods["teams"]``, a ``TeamPlay``: the
agent spec of its default team seats (the team diagnosis and the team designs play them when no
seats are named), the task score of a team from the world's episode outcome (the team
experiments' ``score`` metric), optionally who is locked in at the start (the team scenarios'
pre-check) and the ``TeamPolicies`` class its k-level agents play with. ``team_play(family)``
finds it. Each world's agent kind (``tom-planner``, ``tom-cook``, ``tom-helper``) is a small
factory that names its parameters and makes a ``ToMTeamAgent``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from sim.seats import Agent, SeatContext, TeamAssignment
from sim.snapshots import Predictions, Skill
from sim.world import World

LEVELS = (0, 1, 2)
#: longest predicted trajectory (steps); each step of each prediction is planned
MAX_HORIZON = 20
#: a seat's ToM level, or ``"cycle"``: its turn-order index mod 3
Level = Literal[0, 1, 2, "cycle"]
#: actions predicted ahead (each prediction simulates that many steps)
Horizon = Annotated[int, Field(ge=1, le=MAX_HORIZON)]


def check_level(k: Any, horizon: Any) -> None:
    """Refuse a level or a horizon out of range (the registry checks specs the same way)."""
    if k != "cycle" and k not in LEVELS:
        raise ValueError(f"k must be 0, 1, 2 or 'cycle', got {k!r}")
    if not isinstance(horizon, int) or not 1 <= horizon <= MAX_HORIZON:
        raise ValueError(f"horizon must be a whole number in [1, {MAX_HORIZON}], got {horizon!r}")


def level_for_seat(k: int | str, world: World, agent: str) -> int:
    """The ToM level of ``agent``: ``k`` itself, or with ``k="cycle"`` its turn-order index mod 3."""
    if k == "cycle":
        return world.agents.index(agent) % 3
    return int(k)


def member_indices(world: World, members: Sequence[str] | None) -> frozenset[int]:
    """The members' indices; None: every agent (before any assignment, as Algorithm 1 starts
    from T = N)."""
    return frozenset(range(len(world.agents)) if members is None else (world.agents.index(a) for a in members))


class TeamView:
    """What every agent knows of the team: its members (None: every agent, before any
    assignment, as Algorithm 1 starts from T = N)."""

    def __init__(self, world: World, members: Sequence[str] | None = None) -> None:
        self.world = world
        self.members = member_indices(world, members)

    def active(self, state: Any, a: int) -> bool:
        """``a`` still has work in the team (a world says when its task is done)."""
        return a in self.members


class TeamPolicies:
    """The world-specific half of the k-level ToM team agents, one instance per seat and episode
    (a world's ``TeamPlay.policies``): the policies pi_k (``policy``), how another agent's next
    actions are simulated (``rollout``), what a level-0 model repeats, how actions are read off
    consecutive states (``seen``), the state a seat acts on (``current``), its own action
    (``own_action``) and its skill test (``skill``). ``predict`` is the k-level recursion."""

    #: the action of an agent doing nothing (predicted before it acted; played when a policy's
    #: action is not legal)
    idle: str = "wait"
    #: the team view of this world
    team_type: type[TeamView] = TeamView

    def __init__(self, world: Any) -> None:
        self.world = world

    def team(self, members: Sequence[str] | None = None) -> TeamView:
        return self.team_type(self.world, members)

    # ---------------------------------------------------------------- the k-level model

    def policy(self, level: int, state: Any, a: int, team: Any) -> str:
        """The action of agent ``a`` acting as a level-``level`` agent in ``state``."""
        raise NotImplementedError

    def rollout(self, level: int, state: Any, a: int, team: Any, horizon: int) -> list[str]:
        """``a``'s next ``horizon`` actions as a level-``level`` agent, the others held still."""
        raise NotImplementedError

    def repeats(self, action: str) -> bool:
        """Whether a level-0 model expects an agent to repeat ``action`` (else: ``idle``)."""
        return True

    def predict(self, level: int, state: Any, a: int, team: Any, history: Sequence[str], horizon: int) -> list[str]:
        """A level-``level`` agent's prediction of ``a``'s next ``horizon`` actions: at level 0
        its last action repeated (``idle`` when ``repeats`` says no, or before it acted), above
        it ``a`` simulated as a level-(``level`` - 1) agent."""
        if level == 0:
            last = history[-1] if history else self.idle
            return [last if self.repeats(last) else self.idle] * horizon
        return self.rollout(level - 1, state, a, team, horizon)

    # ---------------------------------------------------------------- the seat

    def start(self, ctx: SeatContext) -> Any:
        """A new episode for the seat ``ctx.agent_id``: the state it starts from (None: the first
        one it is shown)."""
        return None

    def seen(self, before: Any, after: Any) -> list[tuple[int, str]]:
        """(agent index, action) for what the agents were seen doing from ``before`` to ``after``."""
        raise NotImplementedError

    def current(self, observation: Any, known: Any, kind: str) -> Any:
        """The state the seat acts on, given its ``observation`` and the latest state it was told."""
        return known

    def own_action(self, level: int, state: Any, a: int, team: Any, observation: Any,
                   legal_actions: Sequence[str]) -> str:
        """The seat's own action: its level's policy, ``idle`` when that is not legal."""
        action = self.policy(level, state, a, team)
        return action if action in legal_actions else self.idle

    def snapshots(self) -> list[tuple[str, Any]]:
        """Snapshots the seat emits after every step, besides its predictions."""
        return []

    def skill(self, state: Any, a: int) -> Skill | None:
        """``a``'s skill test for its own task (seed 000 Section 5.2's alpha), None: no test."""
        return None


def following(kind: str, told: int, shown: int, what: str = "tick") -> None:
    """Refuse to act at ``shown`` when the seat was told states only up to ``told`` (a take-over
    after recorded steps)."""
    if shown != told:
        raise RuntimeError(f"{kind} follows an episode from its start; it was not told the states "
                           f"before {what} {shown} (a take-over after recorded steps)")


class ToMTeamAgent(Agent):
    """A k-level ToM team agent in any world whose ``TeamPlay`` declares its ``policies``: the
    seat's level (``k``, or ``"cycle"``), the history of every agent's actions read off the states
    it is told, its action, and after each of its actions the ``predictions`` snapshot
    (B_i^(k): every other agent's next ``horizon`` actions under its level-(k-1) model) and the
    world's ``skill`` snapshot. ``noise``: the share of its actions, while its task is not done,
    taken at random among the legal ones. ``params`` are the kind's parameters in the order it
    describes them: ``k``, ``horizon`` and ``noise`` are the agent's, the rest go to the world's
    policies."""

    def __init__(self, kind: str, params: Mapping[str, Any]) -> None:
        self.kind = kind
        self.params = dict(params)
        self.k, self.horizon = self.params.get("k", 1), self.params.get("horizon", 3)
        check_level(self.k, self.horizon)
        self.noise = float(self.params.get("noise", 0.0))
        if not 0.0 <= self.noise <= 1.0:
            raise ValueError(f"noise must be in [0, 1], got {self.params.get('noise')}")
        self.world_params = {name: v for name, v in self.params.items() if name not in ("k", "horizon", "noise")}

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        world = ctx.world
        play = team_play(world.family)
        if play.policies is None or play.agent.partition(":")[0] != self.kind:
            raise TypeError(f"{self.kind} agents do not play {world.family}")
        self.world = world
        self.index = world.agents.index(ctx.agent_id)
        self.level = level_for_seat(self.k, world, ctx.agent_id)
        self.policies: TeamPolicies = play.policies(world, **self.world_params)
        self.team = self.policies.team()
        self.history: dict[int, list[str]] = {a: [] for a in range(len(world.agents))}
        self.state = self.policies.start(ctx)
        self._acted = False

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.params}

    def receive_team(self, assignment: TeamAssignment) -> None:
        members = [a for team in assignment.teams.values() for a in team]
        self.team = self.policies.team(members)

    def observe_state(self, state: Any) -> None:
        if self.state is not None:
            for a, action in self.policies.seen(self.state, state):
                self.history[a].append(action)
        self.state = state

    def act(self, observation: Any, legal_actions: Sequence[str]) -> str:
        state = self.policies.current(observation, self.state, self.kind)
        if self.state is None:
            self.state = state
        self._acted = True
        if self.noise and self.team.active(state, self.index) and self.ctx.rng.random() < self.noise:
            return legal_actions[int(self.ctx.rng.integers(len(legal_actions)))]
        return self.policies.own_action(self.level, state, self.index, self.team, observation, legal_actions)

    def predictions(self, state: Any) -> Predictions:
        """B_i^(k): every other agent's next ``horizon`` actions under this seat's level-(k-1) model."""
        about = {}
        for a, name in enumerate(self.world.agents):
            if a != self.index:
                about[name] = {"trajectory": self.policies.predict(self.level, state, a, self.team,
                                                                   self.history[a], self.horizon)}
        return Predictions(about=about, level=self.level)

    def belief_snapshots(self) -> Sequence[tuple[str, Any]]:
        """The world's standing snapshots, and the predictions and the skill test once after each
        of this seat's own actions."""
        out = self.policies.snapshots()
        if self._acted and self.state is not None and not self.world.done(self.state):
            self._acted = False
            out.append(("predictions", self.predictions(self.state)))
            skill = self.policies.skill(self.state, self.index)
            if skill is not None:
                out.append(("skill", skill))
        return tuple(out)


@dataclass(frozen=True)
class TeamPlay:
    """What team formation's tools need from one world (its plug-in's ``methods["teams"]``)."""

    #: agent spec of the world's default team seats: agents that emit ``predictions`` snapshots
    agent: str
    #: (outcome, team members, timed) -> the team's task score in [0, 1] from the world's episode
    #: outcome: the share of the time limit left when the task was done, 0 when it was not
    #: (``timed=False``: 1 when done); raises ValueError naming what the outcome lacks
    score: Callable[[Mapping[str, Any], Sequence[str], bool], float]
    #: optional (world, state) -> the agents that cannot finish their task alone from ``state``
    locked_in: Callable[[World, Any], list[str]] | None = None
    #: the world's half of the k-level ToM team agents (``ToMTeamAgent``): a ``TeamPolicies``
    #: class, made with (world, the kind's world parameters) for each seat and episode
    policies: type[TeamPolicies] | None = None


def team_play(family: str) -> TeamPlay:
    """The TeamPlay ``family``'s plug-in declares; a ValueError naming the world when it has none."""
    from agents.methods import world_part

    found = world_part(family, "teams", "no k-level ToM team agents or team score are declared")
    if not isinstance(found, TeamPlay):
        raise ValueError(f"the world {family!r} declares methods['teams'] = {found!r}, not a TeamPlay")
    return found


def personal_score(done: Any, when: Any, t_max: Any, team: Sequence[str], timed: bool) -> float:
    """The score of a team whose members each have their own task: the mean over the members of
    ``1 - tick / t_max`` for a member done at the end (``when[agent]`` its finishing tick), 0 for
    one not done (``timed=False``: 1 when done)."""
    if not team:
        return 0.0
    if not isinstance(done, Mapping) or not isinstance(when, Mapping) or not t_max:
        raise ValueError("the team score needs each member's finishing tick and the scenario's 't_max' "
                         "(recorded by an older version without 't_max'? run the episodes again)")
    values = []
    for agent in team:
        if not done.get(agent):
            values.append(0.0)
        else:
            values.append(1.0 - float(when[agent]) / float(t_max) if timed else 1.0)
    return sum(values) / len(values)


def fields_of(outcome: Mapping[str, Any]) -> str:
    return ", ".join(sorted(outcome)) or "no fields"
