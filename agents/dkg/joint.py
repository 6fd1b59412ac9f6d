"""Joint plans for Doors, Keys and Gems: every agent's actions chosen together.

``joint_path`` is an A* over joint states (whose turn, where everyone stands, where every item
is, which doors are open) in which each tick the agent whose turn it is takes any legal action;
it finds the fewest ticks until every agent with a goal holds its gem. It is the joint optimum
of ``bench/bench_dkg_helper.py`` and the plan of the ``cooperative`` human (``joint_step``), which
acts, as CLIPS.jl's principal does, by a joint policy with the helper.
"""

from __future__ import annotations

import heapq
import weakref

from agents.dkg.planner import INF, DKGPlanner
from sim.dkg.world import DKGState, DKGWorld

#: A* nodes a joint plan may expand before it is given up (the bench's ``--cap`` default)
JOINT_NODES = 400_000


def ticks_left_bound(world: DKGWorld, planner: DKGPlanner, s: DKGState) -> int:
    """A lower bound on the ticks from ``s`` until every agent with a goal holds its gem, whoever
    acts how: each gem not yet held is still walked to (every door open) and picked up by an
    agent allowed to, one action every n ticks, and handed over when that agent is not its
    owner (one handover at least for a gem in another agent's hands). 10**9 when out of reach."""
    n = len(world.agents)
    worst = 0
    for a in world.goal_agents:
        g = world.goal_item[a]
        loc = s.item_locs[g]  # type: ignore[index]
        if loc == -1 - a:
            continue
        if loc < 0:
            worst = max(worst, ((-1 - loc) - s.turn) % n + 1)
            continue
        best = None
        for b in range(n):
            if (b, g) in world.forbidden:
                continue
            d = planner.relaxed_distance(s.agent_cells[b], loc)
            if d == INF:
                continue
            actions = int(d) + 1 + (0 if b == a else 1)
            ticks = ((b - s.turn) % n) + 1 + (actions - 1) * n
            best = ticks if best is None else min(best, ticks)
        if best is None:
            return 10**9
        worst = max(worst, best)
    return worst


def _key(s: DKGState) -> tuple:
    return (s.turn, s.agent_cells, s.item_locs, s.open_doors)


def joint_path(world: DKGWorld, planner: DKGPlanner, start: DKGState,
               cap: int = JOINT_NODES) -> list[tuple[DKGState, str]] | None:
    """A fewest-ticks joint plan from ``start`` to every goal held, as (state, action taken in
    it) pairs, the last state (goals held) with action ``""``; None when there is none before
    ``t_max`` or none was found within ``cap`` expanded nodes. A* with ``ticks_left_bound``,
    which is admissible; an unlock naming its key is left out (the default key is as good)."""
    frontier = [(ticks_left_bound(world, planner, start), 0, 0, start)]
    best_g = {_key(start): 0}
    parent: dict[tuple, tuple[DKGState, str]] = {}
    counter = expanded = 0
    goal_agents = world.goal_agents
    while frontier:
        _, _, g, s = heapq.heappop(frontier)
        k = _key(s)
        if g > best_g.get(k, 10**9):
            continue
        if all(world.holds_goal(s, a) for a in goal_agents):
            path = [(s, "")]
            while k in parent:
                s, action = parent[k]
                path.append((s, action))
                k = _key(s)
            return path[::-1]
        expanded += 1
        if expanded > cap:
            return None
        if s.t >= world.t_max:
            continue
        agent = world.agents[s.turn]
        for action in world.legal_actions(s, agent):
            if action.startswith("unlock ") and action.count(" ") == 2:
                continue
            nxt = world.step(s, {agent: action}).state
            kn = _key(nxt)
            if g + 1 < best_g.get(kn, 10**9):
                best_g[kn] = g + 1
                parent[kn] = (s, action)
                counter += 1
                heapq.heappush(frontier, (g + 1 + ticks_left_bound(world, planner, nxt), counter, g + 1, nxt))
    return None


_STEPS: "weakref.WeakKeyDictionary[DKGWorld, dict]" = weakref.WeakKeyDictionary()


def joint_step(world: DKGWorld, planner: DKGPlanner, state: DKGState) -> tuple[int | None, str | None]:
    """(the tick at which every goal is held, the action of the agent whose turn it is) by a
    fewest-ticks joint plan from ``state`` (``joint_path``); (None, None) when there is none.
    Memoized per world: every state along a plan found is answered from it (the rest of a
    fewest-ticks plan is a fewest-ticks plan), so following one plan searches once."""
    cache = _STEPS.setdefault(world, {})
    key = state.key()
    found = cache.get(key)
    if found is not None:
        return found
    path = joint_path(world, planner, state)
    if path is None:
        cache[key] = (None, None)
        return None, None
    end = path[-1][0].t
    if len(cache) > 200_000:
        cache.clear()
    for s, action in path[:-1]:
        cache.setdefault(s.key(), (end, action))
    return cache[key]
