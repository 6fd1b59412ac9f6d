"""What the k-level ToM team agents of every world share (seed 000, Eq. 1): the level of a
seat, their checked parameters, the team as a set of member indices, and the ``predictions``
snapshot the team mechanism reads. The worlds' agents (``tom_dkg``, ``tom_kitchen``,
``tom_household``) bring their own policies pi_k, team views and ways of reading actions off
states."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from sim.seats import TeamAssignment
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

    def predictions(self, state: Any) -> dict[str, Any]:
        """B_i^(k): every other agent's next ``horizon`` actions under this seat's level-(k-1) model."""
        about = {}
        for a, name in enumerate(self.world.agents):
            if a != self.index:
                about[name] = {"trajectory": self.policies.predict(self.level, state, a, self.team,
                                                                   self.history[a], self.horizon)}
        return {"about": about, "level": self.level}
