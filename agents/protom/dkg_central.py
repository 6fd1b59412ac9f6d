"""The centralised planner of Doors, Keys and Gems, for ProToM's mDKG divergence (seed 003, Section 4.2).

The paper's measure is div = P(τ ∈ π* | f) (after Ullman et al. 2009): the probability that
the agents already act as a centralised planner π* would, when the plan carries out f.
Here, exactly:

- π*(f, g): every joint plan (turn-taking as in the world, one central planner choosing every
  agent's actions) of the fewest ticks after which each agent holds its gem of the joint goal
  hypothesis g *and* f's target has carried out f (performed ``unlock <door>`` of an unlock
  feedback, or handed the key to the named agent for a handover feedback) before that: the
  episode ends when every agent holds its gem, so f cannot come after. As for ``L_joint``
  (``agents.protom.categories``), gems are picked up only by the agent that wants them and are
  never handed over: the central planner helps with keys and doors only, as feedback does.
- τ: the agents' next round of actions (one action of each agent, in turn order, from the
  current state) as ProToM predicts them without feedback: each agent takes one of the optimal
  actions of its own planner for its gem of g (the argmax of ``DKGAdapter.policy``), each equally
  likely; an agent that holds its gem waits.
- P(τ ∈ π* | f, g): the probability that every action of that round is the first action of some
  plan of π*(f, g) from where it is taken; P(τ ∈ π* | f) = Σ_g P(g) P(τ ∈ π* | f, g), over the
  joint goal hypotheses of the utility (Algorithm 2).

The feedback gate of Eq. 15 fires on div(f) > eps, so ProToM uses the complement,
div(f) = 1 − P(τ ∈ π* | f): feedback is sent when the agents are unlikely to be on the
centralised plan with f already (with the literal P it would be sent exactly when they are).

π*(f, g) is found with one A* search over full world states (the heuristic of
``categories.joint_optimum``, which is consistent) that keeps expanding every state whose
f-value does not exceed the optimum, so that it sees every optimal plan; the states on optimal
plans are then those from which a goal state of optimal depth is reached through children one
tick deeper.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

from agents.dkg.planner import INF, DKGPlanner
from sim.dkg.world import CONSUMED, DKGState, DKGWorld

#: the effect a feedback must have on a plan: (target, "unlock", door) or (target, "handover", key, to)
Effect = tuple

Node = tuple[tuple, bool]  # (state key, f carried out yet)


def effect_of(world: DKGWorld, payload: dict) -> Effect:
    target = world.agent_index[payload["agent"]]
    if payload["type"] == "unlock":
        return (target, "unlock", world.door_index[payload["door"]])
    return (target, "handover", world.item_index[payload["item"]], world.agent_index[payload["to"]])


def plans_key(s: DKGState) -> tuple:
    """The part of a state the plans depend on (with the ticks left, fixed within one search)."""
    return (s.turn, s.agent_cells, s.item_locs, s.open_doors)


@dataclass
class OptimalPlans:
    """Every plan of π*(f, g) from one start state, as the graph of states on them."""

    length: int  # the fewest ticks
    g: dict[Node, int]
    children: dict[Node, dict[str, Node]]
    on_plan: set[Node]

    def optimal_actions(self, node: Node) -> dict[str, Node]:
        """The actions that start an optimal plan from ``node`` (a state on one), with the node each leads to."""
        if node not in self.on_plan:
            return {}
        depth = self.g[node] + 1
        return {a: child for a, child in self.children.get(node, {}).items()
                if child in self.on_plan and self.g[child] == depth}


class CentralPlanError(RuntimeError):
    """The search for π* grew beyond its budget."""


def successors(world: DKGWorld, node: tuple, goal_items: tuple[int, ...]
               ) -> list[tuple[str, tuple]]:
    """The legal actions of the agent whose turn it is in ``node`` = (turn, agent cells, item
    locations, open doors) and the nodes they lead to, as ``DKGWorld.step`` has them, without
    picking up a gem another agent wants and without handing gems over (the central planner's
    restriction)."""
    turn, cells, locs, doors = node
    n = len(cells)
    nxt_turn = (turn + 1) % n
    here = cells[turn]
    out: list[tuple[str, tuple]] = []
    for name, cell in world.neighbors[here]:
        if world.passable(cell, doors):
            out.append((name, (nxt_turn, cells[:turn] + (cell,) + cells[turn + 1:], locs, doors)))
    out.append(("wait", (nxt_turn, cells, locs, doors)))
    me = -1 - turn
    items = world.items
    held_keys = []
    for i, loc in enumerate(locs):
        if loc == here:
            if items[i].kind == "gem" and i != goal_items[turn]:
                continue
            out.append((f"pickup {items[i].id}", (nxt_turn, cells, locs[:i] + (me,) + locs[i + 1:], doors)))
        elif loc == me and items[i].kind == "key":
            held_keys.append(i)
    if held_keys:
        for _, cell in world.neighbors[here]:
            d = world.door_at.get(cell)
            if d is None or doors >> d & 1:
                continue
            matching = [i for i in held_keys if items[i].color == world.doors[d].color]
            if not matching:
                continue
            door = world.doors[d].id
            for label, key in [(f"unlock {door}", matching[0])] + [(f"unlock {door} {items[i].id}", i)
                                                                   for i in matching]:
                out.append((label, (nxt_turn, cells, locs[:key] + (CONSUMED,) + locs[key + 1:], doors | 1 << d)))
        for b in range(n):
            if b != turn and world.can_hand_over(here, cells[b]):
                for i in held_keys:
                    out.append((f"handover {items[i].id} {world.agents[b]}",
                                (nxt_turn, cells, locs[:i] + (-1 - b,) + locs[i + 1:], doors)))
    return out


def optimal_plans(world: DKGWorld, planner: DKGPlanner, start: DKGState, goals: tuple[int, ...],
                  effect: Effect | None = None, max_expansions: int = 2_000_000) -> OptimalPlans | None:
    """π*(f, g) from ``start`` for gem items ``goals`` (one per agent) with ``effect`` carried
    out on the way; None when no such plan fits in the ticks left (``t_max - start.t``)."""
    n = len(world.agents)
    limit = world.t_max - start.t

    def heuristic(node: tuple) -> float:  # as categories.joint_optimum's: consistent
        turn, cells, locs, _ = node
        h = 0
        for i in range(n):
            loc = locs[goals[i]]
            if loc == -1 - i:
                continue
            if loc < 0:
                return INF
            r = planner.relaxed_distance(cells[i], loc) + 1
            if r == INF:
                return INF
            h = max(h, (i - turn) % n + n * (r - 1) + 1)
        return h

    def held(node: tuple) -> bool:
        locs = node[2]
        return all(locs[g] == -1 - i for i, g in enumerate(goals))

    def carried(node: tuple, action: str) -> bool:
        if effect is None or node[0] != effect[0]:
            return False
        if effect[1] == "unlock":
            return action.startswith("unlock ") and world.door_index[action.split(" ")[1]] == effect[2]
        return (action.startswith("handover ")
                and action == f"handover {world.items[effect[2]].id} {world.agents[effect[3]]}")

    counter = itertools.count()
    flag0 = effect is None
    root = plans_key(start)
    h0 = heuristic(root)
    if h0 == INF or h0 > limit:
        return None
    frontier = [(h0, 0, next(counter), root, flag0)]
    best: dict[Node, int] = {(root, flag0): 0}
    children: dict[Node, dict[str, Node]] = {}
    goals_found: list[Node] = []
    length: int | None = None
    expansions = 0
    while frontier:
        f, neg_g, _, key, flag = heapq.heappop(frontier)
        if length is not None and f > length:
            break
        g = -neg_g
        node = (key, flag)
        if g > best.get(node, INF) or node in children:
            continue
        if held(key):  # the episode is over: a goal state when f was carried out, a dead end otherwise
            if flag:
                length = g
                goals_found.append(node)
            children[node] = {}
            continue
        expansions += 1
        if expansions > max_expansions:
            raise CentralPlanError(f"{world.name}: the centralised plan search exceeded {max_expansions} expansions")
        out: dict[str, Node] = {}
        for action, nxt in successors(world, key, goals):
            child = (nxt, flag or carried(key, action))
            out[action] = child
            g2 = g + 1
            if g2 >= best.get(child, INF):
                continue
            h = heuristic(nxt)
            if g2 + h > limit:
                continue
            best[child] = g2
            heapq.heappush(frontier, (g2 + h, -g2, next(counter), nxt, child[1]))
        children[node] = out
    if length is None:
        return None
    # Backwards from the goal states of optimal depth, through children exactly one tick deeper.
    on_plan: set[Node] = set(goals_found)
    by_depth: dict[int, list[Node]] = {}
    for node in children:
        d = best[node]
        if d < length:
            by_depth.setdefault(d, []).append(node)
    for d in range(length - 1, -1, -1):
        for node in by_depth.get(d, ()):
            if any(c in on_plan and best.get(c) == d + 1 for c in children[node].values()):
                on_plan.add(node)
    return OptimalPlans(length, best, children, on_plan)


__all__ = ["CentralPlanError", "OptimalPlans", "effect_of", "optimal_plans", "plans_key", "successors"]
