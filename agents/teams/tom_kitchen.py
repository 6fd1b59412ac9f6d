"""k-level ToM planner cooks for kitchen teams (seed 000, Eq. 1).

Each cook has a ToM level k in {0, 1, 2}. Its belief B_i^(k) is its prediction of every other
cook's next actions, built from what the others did (read off consecutive states) and its
(k - 1)-level model of them:

- **k = 0** (naive, no recursion): the other keeps doing what it did last: its last move
  repeated, ``stay`` when its last action moved it nowhere (a stay, work at a station, a bump)
  or it has not acted yet.
- **k >= 1**: the other is simulated as a level-(k - 1) cook (the policies below) for
  ``horizon`` of its actions from the current state, the other cooks staying where they are.

The policies pi_k of a team member, built on the subtask rules of the kitchen's simulated cook
(``agents/kitchen/heuristic.py``: deliver, plate, merge, chop, fetch the dish, else the chopped,
else the fresh ingredient; the nearest reachable station; a shortest path into it), without its
noise and with ties broken by station and move order, so every policy is a function of the state:

- **pi_0**: its own dish. A cook that needs an ingredient or a plate that lies only where it
  cannot walk (behind a counter) is *stuck*: it stays until someone passes it over.
- **pi_1**: models its teammates as pi_0 cooks. With empty hands, when a stuck teammate needs
  an object this cook can reach and does not use for its own dish, it fetches the object and
  leaves it on an empty counter both can reach (the cheapest such pass first), then cooks.
- **pi_2**: models its teammates as pi_1 cooks, so it leaves a pass to any teammate it expects
  to make it, and passes only to stuck teammates nobody else can serve: two level-2 cooks who
  could both serve a stuck one each wait for the other (seed 000's "overthinking" pitfall).

An idle cook (outside the team of the latest ``TeamAssignment``) stays, or where agents block
each other (``collisions: block``) walks to the nearest cell next to no station and stays, so
it blocks no counter, board or delivery; a cook that delivered does the same unless, at level 1
or 2, a stuck teammate needs what it can pass. Two team members next to one station take turns
(the one first after the tick number in the agents' order works it), so deterministic cooks
never clash on a board forever.

These cooks read the whole state the Session gives every seat (``observe_state``), positions,
hands and every station, not the fog-of-war observation: seed 000's agents predict teammates
from the history of their actions, which needs those actions seen. They follow an episode from
its start (a Session that takes over after recorded steps replays those states to them; a state
missed all the same is refused with a clear error).

After each of its actions a cook emits the ``predictions`` snapshot the team mechanism reads,
``{"about": {other: {"trajectory": [...]}}, "level": k}``, and a ``skill`` snapshot
``{"alpha": 1 or 0}``: 1 when it can finish its dish on its own from the current state.
``k="cycle"`` gives the seat the level ``index mod 3`` of its place in the scenario's agents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.teams.tom import (
    Horizon,
    Level,
    TeamPlay,
    TeamPolicies,
    TeamView,
    ToMTeamAgent,
    fields_of,
    following,
    personal_score,
)
from sim.kitchen.world import ACTIONS, BOARD, COUNTER, NOTHING, PLATE, KitchenObservation, KitchenState, KitchenWorld
from sim.seats import SeatContext
from sim.snapshots import Skill

STAY = "stay"


class KitchenTeam(TeamView):
    """What every cook knows of the team (its members, see ``TeamView``)."""

    world: KitchenWorld

    def active(self, state: KitchenState, a: int) -> bool:
        """In the team and not yet delivered."""
        return a in self.members and state.delivered[a] < 0


@dataclass(frozen=True, slots=True)
class Job:
    """What a cook's own dish asks of it now: ``verb`` at ``station`` (None: nowhere it can go).
    ``need`` jobs list the objects ``wants`` that would let it go on (it cannot reach any)."""

    verb: str  # deliver | plate | merge | chop | fetch | put_down | need | stuck | done
    station: int | None
    wants: tuple[int, ...] = ()


class KitchenTeamPolicies(TeamPolicies):
    """The policies pi_0, pi_1, pi_2 on one kitchen's layout, and the seat's side of the k-level
    agent (``TeamPolicies``): a level-0 model repeats moves; actions are read off the states."""

    idle = STAY
    team_type = KitchenTeam
    world: KitchenWorld

    def __init__(self, world: KitchenWorld) -> None:
        if not isinstance(world, KitchenWorld):  # e.g. a kitchen under overcooked_ai's rules
            raise ValueError(f"team cooks play the kitchen under its own rules, not under "
                             f"{getattr(world, 'rules', world.family)!r} rules; use overcooked-random there")
        if world.orders:
            raise ValueError("tom-cook: the level's orders are shared by all cooks (gym-cooking's rules); the "
                             "k-level ToM cooks model each cook's own goal dish; use kitchen-heuristic there")
        super().__init__(world)
        self.dish = world.goal_dish
        self.parking = tuple(c for c in range(len(world.walkable)) if world.walkable[c] and not world.is_door[c]
                             and all(world.trans[c * 5 + a] >= 0 for a in range(4)))

    # ---------------------------------------------------------------- helpers

    def reach(self, state: KitchenState, a: int, s: int) -> int:
        """Actions ``a`` needs to work station ``s`` from where it stands (-1: it cannot)."""
        return self.world.station_dist[s][state.positions[a]]

    def nearest(self, state: KitchenState, a: int, stations: Sequence[int]) -> int | None:
        best = None
        for s in stations:
            d = self.reach(state, a, s)
            if d >= 0 and (best is None or (d, s) < best):
                best = (d, s)
        return None if best is None else best[1]

    @staticmethod
    def holding(state: KitchenState, item: int) -> list[int]:
        return [s for s, content in enumerate(state.contents) if content == item]

    def empty(self, state: KitchenState, kind: int) -> list[int]:
        kinds = self.world.station_kind
        return [s for s, content in enumerate(state.contents) if content == NOTHING and kinds[s] == kind]

    def chain(self, state: KitchenState, a: int) -> frozenset[int]:
        """The objects ``a``'s own dish uses (none once it delivered)."""
        if state.delivered[a] >= 0:
            return frozenset()
        d = self.dish[a]
        return frozenset((d - 2, d - 1, d, PLATE))

    def own_job(self, state: KitchenState, a: int) -> Job:
        """The simulated cook's subtask rules for ``a``'s own dish, on the true state."""
        w = self.world
        if state.delivered[a] >= 0:
            return Job("done", None)
        held, d = state.held[a], self.dish[a]
        chopped, fresh = d - 1, d - 2
        if held == d:
            s = self.nearest(state, a, w.deliveries)
            return Job("deliver", s) if s is not None else Job("stuck", None)
        if held == chopped:
            s = self.nearest(state, a, self.holding(state, PLATE))
            return Job("plate", s) if s is not None else Job("need", None, (PLATE,))
        if held == PLATE:
            s = self.nearest(state, a, self.holding(state, chopped))
            if s is not None:
                return Job("merge", s)
        elif held == fresh:
            s = self.nearest(state, a, self.empty(state, BOARD))
            return Job("chop", s) if s is not None else Job("stuck", None)
        if held != NOTHING:
            s = self.nearest(state, a, self.empty(state, COUNTER))
            return Job("put_down", s) if s is not None else Job("stuck", None)
        for item in (d, chopped, fresh):
            s = self.nearest(state, a, self.holding(state, item))
            if s is not None:
                return Job("fetch", s)
        return Job("need", None, (d, chopped, fresh))

    def stuck(self, state: KitchenState, a: int) -> bool:
        """``a`` cannot go on with its dish: what it needs lies where it cannot walk."""
        return self.own_job(state, a).verb in ("need", "stuck")

    def _pass_counters(self, state: KitchenState, from_cell: int, m: int, exclude: int) -> list[tuple[int, int]]:
        """(actions from ``from_cell``, counter) for the empty counters stuck cook ``m`` can reach."""
        dist = self.world.station_dist
        here_m = state.positions[m]
        return [(dist[c][from_cell], c) for c in self.empty(state, COUNTER)
                if c != exclude and dist[c][from_cell] >= 0 and dist[c][here_m] >= 0]

    def help_options(self, state: KitchenState, h: int, team: KitchenTeam) -> list[tuple[int, int, int, int]]:
        """(cost, stuck teammate, station of the object, counter) for every pass ``h`` can make
        with empty hands: fetch an object a stuck teammate wants and that ``h``'s own dish does
        not use, and leave it on an empty counter the teammate can reach."""
        if h not in team.members or state.held[h] != NOTHING:
            return []
        w = self.world
        mine = self.chain(state, h)
        here = state.positions[h]
        # objects a cook is already going to fetch for its own dish are left to it
        claimed = {job.station for j in range(w.n_agents) if j != h
                   for job in (self.own_job(state, j),) if job.verb == "fetch"}
        options = []
        for m in sorted(team.members):
            if m == h or not team.active(state, m):
                continue
            job = self.own_job(state, m)
            if job.verb != "need":
                continue
            for item in job.wants:
                if item in mine:
                    continue
                for s in self.holding(state, item):
                    fetch = w.station_dist[s][here]
                    if fetch < 0 or s in claimed:
                        continue
                    # h ends the pick-up on the access cell of s nearest to it
                    stand = min((w.dist[here][c], c) for c in w.station_access[s] if w.dist[here][c] >= 0)[1]
                    counters = self._pass_counters(state, stand, m, s)
                    if counters:
                        carry, c = min(counters)
                        options.append((fetch + carry, m, s, c))
        return options

    def pass_counter(self, state: KitchenState, h: int, team: KitchenTeam) -> int | None:
        """Where ``h``, holding an object its own dish does not use, leaves it for a stuck
        teammate who wants it: the nearest empty counter both reach (None: nobody wants it)."""
        item = state.held[h]
        if item == NOTHING or item in self.chain(state, h):
            return None
        best = None
        for m in sorted(team.members):
            if m == h or not team.active(state, m):
                continue
            job = self.own_job(state, m)
            if job.verb == "need" and item in job.wants:
                for option in self._pass_counters(state, state.positions[h], m, -1):
                    if best is None or option < best:
                        best = option
        return None if best is None else best[1]

    # ---------------------------------------------------------------- moving

    def step_to(self, state: KitchenState, a: int, s: int, team: KitchenTeam | None = None) -> str:
        """The first action of a shortest way into station ``s`` (ties: move order)."""
        w = self.world
        here = state.positions[a]
        into = w.action_into(here, s)
        if into is not None:
            return into if self._my_turn_at(state, a, s, team) else STAY
        dist = w.station_dist[s]
        for i in range(4):
            n = w.trans[here * 5 + i]
            if n >= 0 and n != here and dist[n] == dist[here] - 1:
                return ACTIONS[i]
        return STAY

    def _my_turn_at(self, state: KitchenState, a: int, s: int, team: KitchenTeam | None) -> bool:
        """Of the team's cooks that have not delivered and stand next to station ``s``, the one
        first after the tick number (in the agents' order) works it this tick; the others wait."""
        w = self.world
        n = w.n_agents
        access = w.station_access[s]
        there = [j for j in range(n) if state.positions[j] in access and state.delivered[j] < 0
                 and (team is None or j in team.members)]
        if len(there) < 2 or state.delivered[a] >= 0:
            return True
        return min(there, key=lambda j: (j - state.t) % n) == a

    def aside(self, state: KitchenState, a: int) -> str:
        """Out of everyone's way: stay, or where agents block each other, walk to the nearest
        cell next to no station first."""
        w = self.world
        here = state.positions[a]
        if not w.agents_block or not self.parking or here in self.parking:
            return STAY
        reachable = [(w.dist[here][c], c) for c in self.parking if w.dist[here][c] > 0]
        if not reachable:
            return STAY
        target = min(reachable)[1]
        for i in range(4):
            n = w.trans[here * 5 + i]
            if n >= 0 and n != here and w.dist[target][n] == w.dist[target][here] - 1:
                return ACTIONS[i]
        return STAY

    # ---------------------------------------------------------------- policies

    def policy(self, level: int, state: KitchenState, a: int, team: KitchenTeam) -> str:
        """The action of cook ``a`` acting as a level-``level`` cook in ``state``."""
        if a not in team.members:
            return self.aside(state, a)
        if level >= 1:
            counter = self.pass_counter(state, a, team)
            if counter is not None:
                return self.step_to(state, a, counter, team)
            options = self.help_options(state, a, team)
            if level >= 2:
                # teammates are modelled as level-1 cooks: any who could serve m is expected to
                options = [o for o in options if not self._someone_else_serves(state, a, o[1], team)]
            if options:
                return self.step_to(state, a, min(options)[2], team)
        job = self.own_job(state, a)
        if job.verb == "done":
            return self.aside(state, a)
        return self.step_to(state, a, job.station, team) if job.station is not None else STAY

    def _someone_else_serves(self, state: KitchenState, a: int, m: int, team: KitchenTeam) -> bool:
        for g in sorted(team.members):
            if g in (a, m):
                continue
            if any(om == m for _, om, _, _ in self.help_options(state, g, team)):
                return True
        return False

    def rollout(self, level: int, state: KitchenState, a: int, team: KitchenTeam, horizon: int) -> list[str]:
        """``a``'s next ``horizon`` actions as a level-``level`` cook, the others staying."""
        w = self.world
        out = []
        for _ in range(horizon):
            if w.done(state):
                out.append(STAY)
                continue
            action = self.policy(level, state, a, team)
            out.append(action)
            joint = {name: STAY for name in w.agents}
            joint[w.agents[a]] = action
            state = w.step(state, joint).state
        return out

    def repeats(self, action: str) -> bool:
        return action in ACTIONS[:4]

    # ---------------------------------------------------------------- the seat

    def start(self, ctx: SeatContext) -> KitchenState:
        return self.world.initial_state

    def seen(self, before: KitchenState, after: KitchenState) -> list[tuple[int, str]]:
        """Every cook's action, as ``seen_action`` reads it, between consecutive states."""
        if after.t != before.t + 1:
            return []
        return [(a, seen_action(self.world, before, after, a)) for a in range(self.world.n_agents)]

    def current(self, observation: KitchenObservation, known: KitchenState, kind: str) -> KitchenState:
        following(kind, known.t, observation.t)
        return known

    def skill(self, state: KitchenState, a: int) -> Skill:
        """The cook's skill test for its own dish (seed 000 Section 5.2's alpha): 1 when it has
        delivered or can go on alone from ``state``, else 0."""
        return Skill(alpha=0.0 if self.stuck(state, a) else 1.0, test="can finish its dish on its own")


def seen_action(world: KitchenWorld, before: KitchenState, after: KitchenState, a: int) -> str:
    """What cook ``a`` was seen doing between consecutive states: its move when it changed
    cells; ``work`` when its hands or delivery changed (it worked a station); else ``stay``
    (a stay, a bump into a wall or another cook, or work that changed nothing look alike)."""
    here, there = before.positions[a], after.positions[a]
    if here != there:
        return world.action_towards(here, there) or STAY
    if before.held[a] != after.held[a] or before.delivered[a] != after.delivered[a]:
        return "work"
    return STAY


def tom_cook(k: Level = 1, horizon: Horizon = 3) -> ToMTeamAgent:
    """The ``tom-cook`` kind: a k-level ToM planner cook of a kitchen team."""
    return ToMTeamAgent("tom-cook", {"k": k, "horizon": horizon})


def team_score(outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """A kitchen team's task score: each member's dish, by the tick it was delivered."""
    when = outcome.get("delivered")
    if team and when is None:
        raise ValueError(f"the team score of a kitchen outcome reads delivered and t_max; this one has: "
                         f"{fields_of(outcome)}")
    done = {a: tick is not None for a, tick in when.items()} if isinstance(when, Mapping) else None
    return personal_score(done, when, outcome.get("t_max"), team, timed)


TEAM_PLAY = TeamPlay(agent="tom-cook:k=cycle", score=team_score, policies=KitchenTeamPolicies)
