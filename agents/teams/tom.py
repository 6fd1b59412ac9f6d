"""What the k-level ToM team agents of every world share (seed 000, Eq. 1): the level of a
seat, their checked parameters, the team as a set of member indices, and the ``predictions``
snapshot the team mechanism reads. The worlds' agents (``tom_dkg``, ``tom_kitchen``,
``tom_household``) bring their own policies pi_k, team views and ways of reading actions off
states.

A world's team tasks are declared by its plug-in's ``methods["teams"]``, a ``TeamPlay``: the
agent spec of its default team seats (the team diagnosis and the team designs play them when no
seats are named) and the task score of a team from the world's episode outcome (the team
experiments' ``score`` metric), optionally who is locked in at the start (the team scenarios'
pre-check). ``team_play(family)`` finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from sim.seats import TeamAssignment
from sim.snapshots import Predictions
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


class ToMTeamMember:
    """The team side of a k-level ToM seat. Its ``reset`` sets ``world``, ``index``, ``level``,
    ``policies`` (with ``predict(level, state, other, team, history, horizon)``), ``team``,
    ``history`` (each agent's actions so far) and ``horizon``; ``team_type(world, members)``
    builds the world's team view."""

    team_type: Callable[[Any, Sequence[str] | None], Any]

    def receive_team(self, assignment: TeamAssignment) -> None:
        members = [a for team in assignment.teams.values() for a in team]
        self.team = self.team_type(self.world, members)

    def predictions(self, state: Any) -> Predictions:
        """B_i^(k): every other agent's next ``horizon`` actions under this seat's level-(k-1) model."""
        about = {}
        for a, name in enumerate(self.world.agents):
            if a != self.index:
                about[name] = {"trajectory": self.policies.predict(self.level, state, a, self.team,
                                                                   self.history[a], self.horizon)}
        return Predictions(about=about, level=self.level)


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
