"""k-level ToM planner agents for Doors, Keys and Gems teams (seed 000, Eq. 1).

Each agent has a ToM level k in {0, 1, 2}. Its belief B_i^(k) is its prediction of every other
agent's next actions, built from the history of what the others did (reconstructed from the
states it observes: mDKG is fully observable) and its (k - 1)-level model of them:

- **k = 0** (the base case, naive behaviour modelling without recursion): the other keeps doing
  what it did last: its last move repeated, ``wait`` when its last action was not a move or it
  has not acted yet.
- **k >= 1**: the other is simulated as a level-(k - 1) agent (the policies below) for
  ``horizon`` of its own actions from the current state (the rest of the world held still, as
  the planner does).

The policies pi_k of a team member (an idle agent, one outside the team of the latest
``TeamAssignment``, stands aside: it waits):

- **pi_0**: the first action of an optimal plan for its own gem; when the gem cannot be reached
  alone (a locked door whose key it cannot get), the move that brings it closest, or wait;
  wait once it holds its gem.
- **pi_1**: models its teammates as pi_0 agents. A teammate that cannot reach its gem alone is
  *stuck*; when this agent can unlock a door that would free a stuck teammate, it does so first
  (the cheapest such door; its own gem held or not), then goes for its own gem.
- **pi_2**: models its teammates as pi_1 agents, so it expects every teammate able to free a
  stuck one to do it, and leaves such a job to them (it frees only teammates no one else can
  free). Two level-2 agents thus each wait for the other: the "overthinking" pitfall of seed 000
  Section 3 that belief-aligned team formation is meant to avoid.

After each of its own actions the agent emits the ``predictions`` snapshot the team mechanism
reads: ``{"about": {other: {"trajectory": [...]}}, "level": k}``, and a ``skill`` snapshot
``{"alpha": 1 or 0}``: the result of a skill test for its own task (can it get its gem on its
own?), seed 000 Section 5.2's specialization score, used by ``teams:alpha=self``.

``k="cycle"`` gives the seat the level ``index mod 3`` of its place in the turn order, so one
spec sets mixed levels and a scenario's turn order says who has which level.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from agents.dkg.agents import planner_for
from agents.dkg.planner import INF, DKGPlanner, Plan, Task
from agents.params import Probability
from agents.teams.tom import (
    Horizon,
    Level,
    TeamPlay,
    TeamPolicies,
    TeamView,
    ToMTeamAgent,
    fields_of,
    personal_score,
)
from sim.dkg.world import CONSUMED, MOVES, DKGObservation, DKGState, DKGWorld
from sim.snapshots import Skill


class DKGTeam(TeamView):
    """What every agent knows of the team (its members, see ``TeamView``)."""

    world: DKGWorld

    def active(self, state: DKGState, a: int) -> bool:
        """In the team and still without its gem."""
        return a in self.members and not self.world.holds_goal(state, a)


class DKGTeamPolicies(TeamPolicies):
    """The policies pi_0, pi_1, pi_2 on one world's planner, and the seat's side of the k-level
    agent (``TeamPolicies``): a level-0 model repeats moves; actions are read off the states."""

    idle = "wait"
    team_type = DKGTeam
    world: DKGWorld

    def __init__(self, world: DKGWorld, planner: DKGPlanner | None = None) -> None:
        super().__init__(world)
        self.planner = planner or planner_for(world)
        self.goal_tasks = tuple(Task.hold(world.goal_item[a]) for a in range(len(world.agents)))

    # ---------------------------------------------------------------- helpers

    def stuck(self, state: DKGState, a: int) -> bool:
        """``a`` cannot get its gem on its own from ``state`` (a helper without a gem never is)."""
        if self.world.goal_item[a] is None:
            return False
        return self.planner.plan(state, a, self.goal_tasks[a]).cost == INF

    def freeing_doors(self, state: DKGState, m: int) -> list[int]:
        """Locked doors whose opening (alone) lets stuck agent ``m`` reach its gem."""
        out = []
        for d in range(len(self.world.doors)):
            if state.open_doors >> d & 1:
                continue
            opened = dataclasses.replace(state, open_doors=state.open_doors | 1 << d)
            if self.planner.plan(opened, m, self.goal_tasks[m]).cost != INF:
                out.append(d)
        return out

    def help_options(self, state: DKGState, h: int, team: DKGTeam) -> list[tuple[float, int, int]]:
        """(cost, stuck teammate, door) for every stuck teammate ``h`` can free by unlocking a door."""
        options = []
        for m in sorted(team.members):
            if m == h or not team.active(state, m) or not self.stuck(state, m):
                continue
            for d in self.freeing_doors(state, m):
                cost = self.planner.plan(state, h, Task.open(d)).cost
                if cost != INF:
                    options.append((cost, m, d))
        return options

    def goal_plan(self, level: int, state: DKGState, a: int, team: DKGTeam) -> tuple[Plan, DKGState]:
        """``a``'s plan for its own gem as a level-``level`` agent, and the state it was planned in.

        Level 0 takes the optimal plan. Level k >= 1 models its active teammates as level-(k - 1)
        agents and leaves them the floor keys those would pick up: it plans as if those keys were
        gone, and takes the optimal plan only when no other plan gets its gem."""
        task = self.goal_tasks[a]
        if level >= 1:
            claimed = set()
            for m in sorted(team.members):
                if m != a and team.active(state, m):
                    key = self.target_key(level - 1, state, m, team)
                    if key is not None:
                        claimed.add(key)
            if claimed:
                left = dataclasses.replace(state, item_locs=tuple(
                    CONSUMED if i in claimed else loc for i, loc in enumerate(state.item_locs)))
                plan = self.planner.plan(left, a, task)
                if plan.cost != INF:
                    return plan, left
        return self.planner.plan(state, a, task), state

    def target_key(self, level: int, state: DKGState, a: int, team: DKGTeam) -> int | None:
        """The floor key ``a`` would pick up next for its gem as a level-``level`` agent (None: none)."""
        plan, _ = self.goal_plan(level, state, a, team)
        for macro in plan.macros:
            verb, _, item = macro.action.partition(" ")
            if verb == "pickup" and item in self.world.item_index:
                index = self.world.item_index[item]
                if self.world.items[index].kind == "key":
                    return index
        return None

    def own_goal_action(self, level: int, state: DKGState, a: int, team: DKGTeam) -> str:
        plan, planned_in = self.goal_plan(level, state, a, team)
        action = self.planner.first_action(planned_in, a, plan)
        if action is None and plan.cost == INF:
            action = self.closer(state, a, self.goal_tasks[a])
        return action or "wait"

    def closer(self, state: DKGState, a: int, task: Task) -> str:
        """The move that brings ``a`` closest to a task it cannot do alone (or wait)."""
        world = self.world
        here = self.planner.fallback_cost(state, a, task)
        best, best_cost = "wait", here
        cell = state.agent_cells[a]
        for name, n in world.neighbors[cell]:
            if world.passable(n, state.open_doors):
                moved = dataclasses.replace(state, agent_cells=state.agent_cells[:a] + (n,) + state.agent_cells[a + 1:])
                cost = self.planner.fallback_cost(moved, a, task)
                if cost < best_cost:
                    best, best_cost = name, cost
        return best

    # ---------------------------------------------------------------- policies

    def policy(self, level: int, state: DKGState, a: int, team: DKGTeam) -> str:
        """The action of agent ``a`` acting as a level-``level`` agent in ``state``."""
        if a not in team.members:
            return "wait"
        if self.world.plate_doors:
            return self.plate_policy(level, state, a, team)
        if level >= 1:
            options = self.help_options(state, a, team)
            if level >= 2:
                # Teammates are modelled as level-1 agents: any who could free m is expected to.
                options = [o for o in options if not self._someone_else_frees(state, a, o[1], team)]
            if options:
                _, _, door = min(options)
                plan = self.planner.plan(state, a, Task.open(door))
                action = self.planner.first_action(state, a, plan)
                if action is not None:
                    return action
        if self.world.holds_goal(state, a):
            return "wait"
        return self.own_goal_action(level, state, a, team)

    # ---------------------------------------------------------------- plate doors (joint tasks)

    def vault_doors(self) -> dict[int, int]:
        """Agent index -> the plate door of the vault that holds its gem."""
        found = self.__dict__.get("_vaults")
        if found is None:
            found = {self.world.agent_index[x]: d for d, agents in self.world.vault_agents().items() for x in agents}
            self.__dict__["_vaults"] = found
        return found

    def plate_jobs(self, level: int, state: DKGState, a: int, team: DKGTeam) -> list[tuple[int, bool]]:
        """(plate door, whether it is a's own vault) for every locked vault a would work on: its
        own while it lacks its gem; from level 1 on, also the vaults of active teammates."""
        vaults = self.vault_doors()
        out: dict[int, bool] = {}
        for m in sorted(team.members):
            d = vaults.get(m)
            if d is None or state.open_doors >> d & 1 or not team.active(state, m):
                continue
            if m == a:
                out[d] = True
            elif level >= 1:
                out.setdefault(d, False)
        return sorted(out.items())

    def plate_target(self, level: int, state: DKGState, a: int, team: DKGTeam) -> int | None:
        """The plate a level-``level`` agent ``a`` heads for (None: none). A plate another agent
        stands on is taken (the lower index keeps a plate two share). Level 0 takes the nearest free
        plate of its own vault. Level k >= 1 also counts as taken the plates its level-(k - 1)
        models of its teammates head for, and helps teammates' vaults: it prefers a vault whose
        other plate is taken (it opens when it gets there), then its own, then the nearest."""
        jobs = self.plate_jobs(level, state, a, team)
        if not jobs:
            return None
        world = self.world
        here = state.agent_cells[a]
        taken = {c for b, c in enumerate(state.agent_cells) if b != a and (c != here or b < a)}
        on_job = any(here in world.door_plates[d] for d, _ in jobs)
        if on_job and here not in taken:
            return here  # it stands on a plate of a vault to open: it stays
        claimed = set(taken)
        if level >= 1:
            for m in sorted(team.members):
                if m != a:
                    t = self.plate_target(level - 1, state, m, team)
                    if t is not None:
                        claimed.add(t)
        dist = self.planner.distances(frozenset((here,)), state.open_doors)
        best: tuple[tuple[int, int, float, int], int] | None = None
        for d, own in jobs:
            plates = world.door_plates[d]
            partnered = any(p in claimed for p in plates)
            for p in plates:
                if p in claimed or dist[p] == INF:
                    continue
                rank = (0 if partnered or level == 0 else 1, 0 if own else 1, dist[p], p)
                if best is None or rank < best[0]:
                    best = (rank, p)
        return None if best is None else best[1]

    def plate_policy(self, level: int, state: DKGState, a: int, team: DKGTeam) -> str:
        """A team member in a hall of vaults: its gem once its vault is open, else its plate."""
        world = self.world
        holds = world.holds_goal(state, a) or world.goal_item[a] is None  # a helper has nothing to fetch
        if not holds:
            plan = self.planner.plan(state, a, self.goal_tasks[a])
            if plan.cost != INF:
                return self.planner.first_action(state, a, plan) or "wait"
        if holds and level == 0:
            return "wait"
        target = self.plate_target(level, state, a, team)
        here = state.agent_cells[a]
        if target is None or target == here:
            return "wait"
        dist = self.planner.distances(frozenset((target,)), state.open_doors)
        return self.planner.step_towards(state, here, dist) or "wait"

    def _someone_else_frees(self, state: DKGState, a: int, m: int, team: DKGTeam) -> bool:
        for g in sorted(team.members):
            if g in (a, m):
                continue
            if any(om == m for _, om, _ in self.help_options(state, g, team)):
                return True
        return False

    def rollout(self, level: int, state: DKGState, a: int, team: DKGTeam, horizon: int) -> list[str]:
        """``a``'s next ``horizon`` actions as a level-``level`` agent, the others held still."""
        out = []
        for _ in range(horizon):
            s = dataclasses.replace(state, turn=a)
            if self.world.done(s):  # the episode would be over: nothing more to do
                out.append("wait")
                continue
            action = self.policy(level, s, a, team)
            out.append(action)
            if action != "wait":
                state = self.world.step(s, {self.world.agents[a]: action}).state
        return out

    def repeats(self, action: str) -> bool:
        return action in MOVES

    # ---------------------------------------------------------------- the seat

    def seen(self, before: DKGState, after: DKGState) -> list[tuple[int, str]]:
        """The action of the agent whose turn it was (turn-taking), when one led there."""
        action = infer_action(self.world, before, after)
        return [] if action is None else [(before.turn, action)]

    def current(self, observation: DKGObservation, known: DKGState | None, kind: str) -> DKGState:
        return observation.state  # mDKG is fully observable

    def skill(self, state: DKGState, a: int) -> Skill:
        """The agent's skill test for its own task (seed 000 Section 5.2's alpha by a skill test):
        1 when it holds its gem or can get it on its own from ``state``, else 0."""
        alone = not self.stuck(state, a)
        return Skill(alpha=1.0 if alone else 0.0, test="can get its gem on its own")


def infer_action(world: DKGWorld, before: DKGState, after: DKGState) -> str | None:
    """The action that led from ``before`` to ``after`` (turn-taking: the agent whose turn it
    was), or None when no single legal action does (the states are not consecutive)."""
    if after.t != before.t + 1 or world.done(before):
        return None
    actor = world.agents[before.turn]
    for action in world.legal_actions(before, actor):
        if world.step(before, {actor: action}).state == after:
            return action
    return None


def tom_planner(k: Level = 1, horizon: Horizon = 3, noise: Probability = 0.0) -> ToMTeamAgent:
    """The ``tom-planner`` kind: a k-level ToM planner agent of a Doors, Keys and Gems team."""
    return ToMTeamAgent("tom-planner", {"k": k, "horizon": horizon, "noise": float(noise)})


def team_score(outcome: Mapping[str, Any], team: Sequence[str], timed: bool = True) -> float:
    """A Doors, Keys and Gems team's task score: each member's gem, by the tick it got it."""
    if team and "holding_goal" not in outcome:
        raise ValueError(f"the team score of a Doors, Keys and Gems outcome reads holding_goal, goal_tick and "
                         f"t_max; this one has: {fields_of(outcome)}")
    return personal_score(outcome.get("holding_goal"), outcome.get("goal_tick"), outcome.get("t_max"), team, timed)


def locked_in(world: DKGWorld, state: DKGState) -> list[str]:
    """The agents that cannot get their gem on their own from ``state``."""
    policies = DKGTeamPolicies(world)
    return [a for i, a in enumerate(world.agents) if policies.stuck(state, i)]


TEAM_PLAY = TeamPlay(agent="tom-planner:k=cycle,horizon=3", score=team_score, locked_in=locked_in,
                     policies=DKGTeamPolicies)
