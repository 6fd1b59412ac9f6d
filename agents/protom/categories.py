"""Which kind of scenario a Doors, Keys and Gems map is, computed rather than asserted.

ProToM's experiment (Section 4.4, Appendix D.1) sorts scenarios into three kinds:

- ``not_needed``: the agents complete their goals optimally by themselves;
- ``useful``:     help from one agent to another shortens the episode;
- ``necessary``:  one agent cannot get its gem without another agent's help.

The exact criterion, from the scenario's start state and true goals:

- ``L_ind``: the length of the episode when every agent follows its own optimal plan
  (the joint rollout of ``dkg_rollout`` without feedback; planners replan after every
  pickup, unlock and handover, so help that happens by chance counts). ``None`` when
  some agent does not hold its gem within ``t_max``.
- ``L_joint``: the joint optimum, the fewest ticks after which every agent holds its gem
  when one central planner chooses every agent's actions (exact A* over full world
  states, turn-taking as in the world). Gems are picked up only by the agent that wants
  them and are never handed over: the central planner may use keys and doors only, as
  feedback does.

Then ``necessary`` when ``L_ind`` is ``None`` (and ``L_joint`` exists), ``useful`` when
``L_joint < L_ind``, and ``not_needed`` when ``L_joint == L_ind``. A map whose joint
optimum does not exist within ``t_max`` is an error.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

from agents.dkg.agents import planner_for
from agents.dkg.planner import INF, DKGPlanner
from agents.protom.dkg_rollout import DKGRollouts
from sim.dkg.world import DKGState, DKGWorld


class CategoryError(ValueError):
    """A scenario whose category cannot be computed (no joint solution, search too large)."""


@dataclass(frozen=True, slots=True)
class CategoryReport:
    scenario: str
    category: str
    independent_length: int | None  # L_ind
    joint_length: int               # L_joint
    finish_independent: tuple[int | None, ...]
    expansions: int

    def describe(self) -> str:
        ind = "fails" if self.independent_length is None else f"{self.independent_length} ticks"
        return (f"{self.scenario}: {self.category} (independent plans: {ind}; "
                f"joint optimum: {self.joint_length} ticks)")


def independent_rollout(world: DKGWorld, planner: DKGPlanner | None = None):
    planner = planner or planner_for(world)
    return DKGRollouts(world, planner).run(world.reset(0), world.goal_item)


def joint_optimum(world: DKGWorld, planner: DKGPlanner | None = None, start: DKGState | None = None,
                  max_expansions: int = 3_000_000) -> tuple[int | None, int]:
    """(fewest ticks until every agent holds its goal, A* expansions); ticks is None when
    impossible within ``t_max``."""
    planner = planner or planner_for(world)
    start = start or world.reset(0)
    agents = world.agents
    n = len(agents)
    goals = world.goal_item
    gem_items = {i for i, it in enumerate(world.items) if it.kind == "gem"}
    limit = world.t_max - start.t

    def heuristic(s: DKGState) -> float:
        # Each agent still needs its relaxed walking distance (all doors open) plus the
        # pickup, as its own actions; its k-th own action comes n ticks after its (k-1)-th.
        h = 0
        for i in range(n):
            loc = s.item_locs[goals[i]]
            if loc == -1 - i:
                continue
            if loc < 0:
                return INF  # a gem in the wrong hands never comes back
            r = planner.relaxed_distance(s.agent_cells[i], loc) + 1
            if r == INF:
                return INF
            h = max(h, (i - s.turn) % n + n * (r - 1) + 1)
        return h

    def key(s: DKGState) -> tuple:
        return (s.turn, s.agent_cells, s.item_locs, s.open_doors)

    def done(s: DKGState) -> bool:
        return all(s.item_locs[g] == -1 - i for i, g in enumerate(goals))

    counter = itertools.count()
    h0 = heuristic(start)
    if h0 == INF or h0 > limit:
        return None, 0
    frontier = [(h0, 0, next(counter), start)]  # ties: deepest first (fewer expansions on plateaus)
    best = {key(start): 0}
    expansions = 0
    while frontier:
        f, neg_g, _, s = heapq.heappop(frontier)
        g = -neg_g
        if g > best.get(key(s), INF):
            continue
        if done(s):
            return g, expansions
        expansions += 1
        if expansions > max_expansions:
            raise CategoryError(f"{world.name}: the joint search exceeded {max_expansions} expansions; "
                                "make the map smaller or the goals closer")
        agent = agents[s.turn]
        me = s.turn
        for action in world.legal_actions(s, agent):
            verb, _, rest = action.partition(" ")
            if verb == "pickup":
                item = world.item_index[rest]
                if item in gem_items and item != goals[me]:
                    continue
            elif verb == "handover" and world.item_index[rest.split(" ")[0]] in gem_items:
                continue
            nxt = world.step(s, {agent: action}).state
            g2 = g + 1
            k = key(nxt)
            if g2 >= best.get(k, INF):
                continue
            h = heuristic(nxt)
            if g2 + h > limit:
                continue
            best[k] = g2
            heapq.heappush(frontier, (g2 + h, -g2, next(counter), nxt))
    return None, expansions


def scenario_category(world: DKGWorld) -> CategoryReport:
    """Compute the category of a scenario (see the module docstring for the criterion).
    Kitchen levels have their own criterion (``agents.protom.kitchen.scenario_category``)."""
    if getattr(world, "family", None) == "kitchen":
        from agents.protom.kitchen import scenario_category as kitchen_category

        return kitchen_category(world)  # type: ignore[return-value]
    helpers = [agent for agent in world.agents if world.goal_of(agent) is None]
    if helpers:
        raise CategoryError(f"{world.name}: {', '.join(helpers)} has no goal (a helper); the categories of "
                            "ProToM's experiment are defined for agents that each want a gem")
    planner = planner_for(world)
    rollout = independent_rollout(world, planner)
    joint, expansions = joint_optimum(world, planner)
    if joint is None:
        raise CategoryError(f"{world.name}: the agents cannot all get their gems within t_max={world.t_max} "
                            "ticks even when they help each other")
    independent = rollout.length if rollout.success else None
    if independent is None:
        category = "necessary"
    elif joint < independent:
        category = "useful"
    else:
        category = "not_needed"
    return CategoryReport(world.name, category, independent, joint, rollout.finish, expansions)
