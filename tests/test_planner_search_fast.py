"""The planner's search against the search it replaced.

``ReferencePlanner`` below is ``DKGPlanner`` as it was before exact speedups of ``_search`` (the
end cell of a one-cell walk taken as that cell, the heuristic's distance maps fetched once per
search, cell sets and action names made once per planner). Every plan (cost and macro steps:
cells, doors, action, end cell) of the current planner must equal the reference's, for every
agent and every task, on random reachable states of the team halls, the ProToM halls, the hand-made
maps of ``tests/test_planner.py`` and random small maps, some with forbidden items."""

from __future__ import annotations

import heapq
import random
from collections import deque
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from agents.dkg.planner import CONSUMED, DONE, INF, MOVE_ORDER, NO_PLAN, UNREACHABLE, DKGPlanner, Macro, Plan, Task
from sim.dkg.world import DKGState, DKGWorld
from sim.registry import load_scenario
from tests.test_planner import MAPS as HAND_MADE, NEVER_DONE, make_world, random_rows


class ReferencePlanner:
    """``agents.dkg.planner.DKGPlanner`` as it was before its search's exact speedups, verbatim."""

    def __init__(self, world: DKGWorld, max_cached_plans: int = 200_000, relaxation: bool = True) -> None:
        """``relaxation=False`` searches as this planner did before the relaxation check (every
        door open as the heuristic, no refusal up front, nodes out of reach still queued): the
        baseline of ``bench/bench_dkg_unreachable.py``, nothing else."""
        self.world = world
        self.relaxation = relaxation
        self.n_cells = world.width * world.height
        self._dist: dict[tuple[frozenset[int], int], list[float]] = {}
        self._plans: dict[tuple, Plan] = {}
        self._openable: dict[tuple, int] = {}
        self._max_cached_plans = max_cached_plans
        self.key_items = tuple(i for i, it in enumerate(world.items) if it.kind == "key")
        self.stats = {"searches": 0, "plan_hits": 0, "bfs": 0, "expanded": 0, "refused": 0}
        # Cells next to each door, for walking up to it to unlock.
        self._door_sides = tuple(frozenset(n for _, n in world.neighbors[d.cell] if not world.walls[n])
                                 for d in world.doors)
        self._all_open = (1 << len(world.doors)) - 1

    # ------------------------------------------------------------ distances

    def distances(self, targets: frozenset[int], open_doors: int) -> list[float]:
        """Steps from every cell to the nearest target cell (INF where unreachable)."""
        key = (targets, open_doors)
        dist = self._dist.get(key)
        if dist is not None:
            return dist
        self.stats["bfs"] += 1
        world = self.world
        dist = [INF] * self.n_cells
        queue = deque()
        for t in targets:
            if world.passable(t, open_doors):
                dist[t] = 0
                queue.append(t)
        neighbors, passable = world.neighbors, world.passable
        while queue:
            c = queue.popleft()
            d = dist[c] + 1
            for _, n in neighbors[c]:
                if dist[n] == INF and passable(n, open_doors):
                    dist[n] = d
                    queue.append(n)
        self._dist[key] = dist
        return dist

    def relaxed_distance(self, cell: int, target: int) -> float:
        """Distance with every door open: a lower bound that ignores keys."""
        return self.distances(frozenset((target,)), self._all_open)[cell]

    def openable_doors(self, start: int, held: tuple[int, ...], open_doors: int, floor: int) -> int:
        """Open doors plus every door of a colour the agent could get a key of, starting from
        ``start`` with keys ``held`` and the floor keys of mask ``floor``: repeated breadth-first
        search while newly reachable keys open more colours. Keys are taken as reusable, so
        the cells reachable through these doors include every cell any plan can reach.
        Memoized: the answer depends on nothing else."""
        key = (start, held, open_doors, floor)
        mask = self._openable.get(key)
        if mask is None:
            if len(self._openable) >= self._max_cached_plans:
                self._openable.clear()
            mask = self._openable[key] = self._openable_doors(start, held, open_doors, floor)
        return mask

    def _openable_doors(self, start: int, held: tuple[int, ...], open_doors: int, floor: int) -> int:
        world = self.world
        colours = {world.items[i].color for i in held}
        floor_keys = [(world._initial.item_locs[i], world.items[i].color)
                      for bit, i in enumerate(self.key_items) if floor >> bit & 1]
        while True:
            mask = open_doors
            for d, door in enumerate(world.doors):
                if door.color in colours:
                    mask |= 1 << d
            dist = self.distances(frozenset((start,)), mask)
            new = {c for cell, c in floor_keys if dist[cell] != INF} - colours
            if not new:
                return mask
            colours |= new

    # --------------------------------------------------------------- search

    def plan(self, state: DKGState, agent: int, task: Task) -> Plan:
        """An optimal plan for ``agent`` to achieve ``task`` from ``state`` on its own."""
        me = -1 - agent
        locs = state.item_locs
        held = tuple(i for i in self.key_items if locs[i] == me)
        floor = 0
        for bit, i in enumerate(self.key_items):
            if locs[i] >= 0:
                floor |= 1 << bit
        target_loc = locs[task.item] if task.item >= 0 else 0
        recipient_cell = state.agent_cells[task.to] if task.kind == "give" else -1
        # ``target_loc == me``: an item held by agent a is done for a but out of reach for anyone else.
        memo_key = (task, state.agent_cells[agent], held, state.open_doors, floor, target_loc, target_loc == me,
                    recipient_cell, agent if self.world.forbidden else -1)
        plan = self._plans.get(memo_key)
        if plan is not None:
            self.stats["plan_hits"] += 1
            return plan
        plan = self._search(state.agent_cells[agent], held, state.open_doors, floor, task,
                            target_loc, me, recipient_cell)
        if len(self._plans) >= self._max_cached_plans:
            self._plans.clear()
        self._plans[memo_key] = plan
        return plan

    def _search(self, start: int, held: tuple[int, ...], open_doors: int, floor: int, task: Task,
                target_loc: int, me: int, recipient_cell: int) -> Plan:
        self.stats["searches"] += 1
        world = self.world
        items, doors = world.items, world.doors

        # Already achieved?
        if task.kind == "hold" and target_loc == me:
            return DONE
        if task.kind == "open" and open_doors >> task.door & 1:
            return DONE
        if task.kind == "give" and target_loc == -1 - task.to:
            return DONE  # already in the recipient's hands
        if task.kind in ("hold", "give") and (target_loc == CONSUMED or (target_loc < 0 and target_loc != me)):
            return NO_PLAN  # used up, or in someone else's hands
        forbidden = {i for a, i in world.forbidden if a == -1 - me}
        if task.kind in ("hold", "give") and (task.item in forbidden or (task.kind == "give" and (
                task.to, task.item) in world.forbidden)):
            return NO_PLAN  # the agent (or the recipient) may not take that item
        give_cells = frozenset()
        if task.kind == "give":
            give_cells = world.handover_cells(recipient_cell)

        # The relaxation (module docstring): doors the agent could ever open in this search.
        # Later nodes only lose keys and open doors of these colours, so distances under this
        # mask are lower bounds at every node, and INF means the target is out of reach.
        relaxed = self.openable_doors(start, held, open_doors, floor) if self.relaxation else self._all_open

        def to(cells: frozenset[int], cell: int) -> float:
            return self.distances(cells, relaxed)[cell]

        def heuristic(cell: int, held_target: bool) -> float:
            if task.kind == "open":
                return to(self._door_sides[task.door], cell) + 1
            if task.kind == "hold" or not held_target:
                if target_loc < 0:
                    return 0
                h = to(frozenset((target_loc,)), cell) + 1
                if task.kind == "give":
                    h += 1 if h == INF or not give_cells or not self.relaxation else \
                        self.distances(give_cells, relaxed)[target_loc] + 1
                return h
            return to(give_cells, cell) + 1

        if self.relaxation and heuristic(start, target_loc == me) == INF:
            self.stats["refused"] += 1
            return NO_PLAN  # out of reach even with every door it could ever open: no search

        # Search state: (cell, held keys, open doors, floor-key mask, holds task item)
        start_node = (start, held, open_doors, floor, target_loc == me)
        g_best = {start_node: 0}
        parents: dict[tuple, tuple[tuple, Macro] | None] = {start_node: None}
        counter = 0
        frontier = [(heuristic(start, target_loc == me), counter, 0, start_node)]
        while frontier:
            _, _, g, node = heapq.heappop(frontier)
            if g > g_best.get(node, INF):
                continue
            cell, hk, od, fl, has_item = node
            if node[0] == -1:  # goal sentinel
                return Plan(g, self._unwind(parents, node))
            self.stats["expanded"] += 1
            successors: list[tuple[tuple, Macro, float]] = []

            def walk(cells: frozenset[int], action: str, od_walk: int, cell: int = cell) -> tuple[float, int] | None:
                dist = self.distances(cells, od_walk)
                if dist[cell] == INF:
                    return None
                end = cell
                if dist[cell] > 0:  # the cell of ``cells`` the walk ends on
                    end = min((c for c in cells if world.passable(c, od_walk)),
                              key=lambda c: (self.distances(frozenset((c,)), od_walk)[cell], c))
                return dist[cell] + 1, end

            # Finish the task.
            if task.kind == "hold" and target_loc >= 0:
                w = walk(frozenset((target_loc,)), f"pickup {items[task.item].id}", od)
                if w:
                    successors.append(((-1, (), 0, 0, True), Macro(frozenset((target_loc,)), od,
                                                                     f"pickup {items[task.item].id}", w[1]), w[0]))
            elif task.kind == "give":
                if has_item:
                    act = f"handover {items[task.item].id} {world.agents[task.to]}"
                    w = walk(give_cells, act, od)
                    if w:
                        successors.append(((-1, (), 0, 0, True), Macro(give_cells, od, act, w[1]), w[0]))
                elif target_loc >= 0 and items[task.item].kind != "key":
                    act = f"pickup {items[task.item].id}"
                    w = walk(frozenset((target_loc,)), act, od)
                    if w:
                        successors.append(((w[1], hk, od, fl, True), Macro(frozenset((target_loc,)), od, act, w[1]), w[0]))
            # Pick up a key from the floor (the task's key included).
            for bit, i in enumerate(self.key_items):
                if fl >> bit & 1 and i not in forbidden:
                    kcell = world._initial.item_locs[i]
                    act = f"pickup {items[i].id}"
                    w = walk(frozenset((kcell,)), act, od)
                    if w:
                        new_held = tuple(sorted(hk + (i,)))
                        successors.append(((kcell, new_held, od, fl & ~(1 << bit),
                                            has_item or i == task.item), Macro(frozenset((kcell,)), od, act, kcell), w[0]))
            # Unlock a door with a held key of its colour: the lowest-numbered one, except the
            # key the task is to give, which is kept (another key of the colour is named instead).
            for d, door in enumerate(doors):
                if od >> d & 1:
                    continue
                matching = [i for i in hk if items[i].color == door.color]
                usable = [i for i in matching if not (task.kind == "give" and i == task.item)]
                if not usable:
                    continue
                key = usable[0]
                act = f"unlock {door.id}" if key == matching[0] else f"unlock {door.id} {items[key].id}"
                new_held = tuple(i for i in hk if i != key)
                new_od = od | 1 << d
                if task.kind == "open" and d == task.door:
                    w = walk(self._door_sides[d], act, od)
                    if w:
                        successors.append(((-1, (), 0, 0, True), Macro(self._door_sides[d], od, act, w[1]), w[0]))
                    continue
                for side in self._door_sides[d]:  # each side leads on differently
                    w = walk(frozenset((side,)), act, od)
                    if w:
                        successors.append(((side, new_held, new_od, fl, has_item),
                                           Macro(frozenset((side,)), od, act, side), w[0]))

            for nxt, macro, cost in successors:
                g2 = g + cost
                if g2 < g_best.get(nxt, INF):
                    h = 0 if nxt[0] == -1 else heuristic(nxt[0], nxt[4])
                    if h == INF and self.relaxation:
                        continue  # the target is out of reach from there: never expand it
                    g_best[nxt] = g2
                    parents[nxt] = (node, macro)
                    counter += 1
                    heapq.heappush(frontier, (g2 + h, counter, g2, nxt))
        return NO_PLAN

    @staticmethod
    def _unwind(parents: dict, node: tuple) -> tuple[Macro, ...]:
        macros = []
        while parents[node] is not None:
            node, macro = parents[node]
            macros.append(macro)
        return tuple(reversed(macros))

    # -------------------------------------------------------------- acting

    def first_action(self, state: DKGState, agent: int, plan: Plan) -> str | None:
        """The primitive action that starts ``plan`` (None when there is nothing to do)."""
        if not plan.macros or plan.cost == INF:
            return None
        macro = plan.macros[0]
        here = state.agent_cells[agent]
        if here == macro.end_cell or (here in macro.cells and macro.action.startswith(("unlock", "handover"))):
            return macro.action
        target = frozenset((macro.end_cell,))
        dist = self.distances(target, state.open_doors)
        return self.step_towards(state, here, dist)

    def step_towards(self, state: DKGState, here: int, dist: Sequence[float]) -> str | None:
        best, best_d = None, dist[here]
        for name in MOVE_ORDER:
            for mname, n in self.world.neighbors[here]:
                if mname == name and dist[n] < best_d and self.world.passable(n, state.open_doors):
                    best, best_d = name, dist[n]
        return best

    def path(self, state: DKGState, agent: int, plan: Plan, limit: int = 400) -> list[int]:
        """The cells the agent walks through while carrying out ``plan`` (start included)."""
        here = state.agent_cells[agent]
        cells = [here]
        for macro in plan.macros:
            dist = self.distances(frozenset((macro.end_cell,)), macro.open_doors)
            if dist[here] == INF:
                break
            while dist[here] > 0 and len(cells) < limit:
                here = min((n for _, n in self.world.neighbors[here] if dist[n] < dist[here]),
                           key=lambda n: dist[n])
                cells.append(here)
        return cells

    def cost_to_go(self, state: DKGState, agent: int, task: Task) -> float:
        return self.plan(state, agent, task).cost

    def fallback_cost(self, state: DKGState, agent: int, task: Task) -> float:
        """For a task the agent cannot do alone: large, but smaller nearer the goal, so that a
        stuck agent waits as close to its goal as the open doors let it."""
        target = self._task_cell(state, task)
        if target is None:
            return UNREACHABLE
        # Walled off even with every door open: all such states cost the same, so that softmax
        # choices over them stay uniform instead of becoming inf - inf.
        return UNREACHABLE + min(self.relaxed_distance(state.agent_cells[agent], target), UNREACHABLE)

    def _task_cell(self, state: DKGState, task: Task) -> int | None:
        if task.kind == "open":
            return self.world.doors[task.door].cell
        loc = state.item_locs[task.item]
        if loc >= 0:
            return loc
        if loc == CONSUMED:
            return None
        holder = -1 - loc
        return state.agent_cells[holder]


def _tasks(world: DKGWorld, agent: int) -> list[Task]:
    tasks = [Task.hold(i) for i in range(len(world.items))]
    tasks += [Task.open(d) for d in range(len(world.doors))]
    tasks += [Task.give(i, b) for i in range(len(world.items)) for b in range(len(world.agents)) if b != agent]
    return tasks


def _walk_states(world: DKGWorld, rng: random.Random, walks: int, length: int) -> list[DKGState]:
    """States met on random walks through legal actions (pickups, unlocks, handovers favoured)."""
    out = []
    for w in range(walks):
        state = world.reset(w)
        for _ in range(length):
            if world.done(state):
                break
            out.append(state)
            agent = world.agents[state.turn]
            legal = world.legal_actions(state, agent)
            structural = [a for a in legal if a.split(" ")[0] in ("pickup", "unlock", "handover")]
            action = rng.choice(structural) if structural and rng.random() < 0.5 else rng.choice(legal)
            state = world.step(state, {agent: action}).state
    return out


def _compare(world: DKGWorld, states: Sequence[DKGState], relaxation: bool = True) -> int:
    new, ref = DKGPlanner(world, relaxation=relaxation), ReferencePlanner(world, relaxation=relaxation)
    checked = 0
    for state in states:
        for a in range(len(world.agents)):
            for task in _tasks(world, a):
                got, want = new.plan(state, a, task), ref.plan(state, a, task)
                assert got == want, (world.name, state, a, task)
                checked += 1
    # The same searches and expansions; the breadth-first searches from each start cell that the
    # reference ran to find the keys it reaches are one labelling per door mask now
    # (DKGPlanner._components), so the new planner's distance maps are some of the reference's.
    assert {k: v for k, v in new.stats.items() if k != "bfs"} == {k: v for k, v in ref.stats.items() if k != "bfs"}
    assert new.stats["bfs"] <= ref.stats["bfs"]
    assert all(ref._dist[key] == dist for key, dist in new._dist.items())
    return checked


HALLS = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "scenarios" / "dkg").glob("protom-*.json"))


@pytest.mark.parametrize("name", ["team-01-six", "team-06-eight", *HALLS])
def test_plans_equal_the_reference_on_shipped_maps(name: str) -> None:
    world, _ = load_scenario(name)
    assert isinstance(world, DKGWorld)
    big = len(world.agents) > 3
    states = _walk_states(world, random.Random(7), walks=2 if big else 4, length=12 if big else 40)
    assert _compare(world, states) > 0


@pytest.mark.parametrize("relaxation", [True, False])
def test_plans_equal_the_reference_on_hand_made_maps(relaxation: bool) -> None:
    for rows, _ in HAND_MADE.values():
        world = make_world(rows)
        _compare(world, _walk_states(world, random.Random(3), walks=3, length=30), relaxation)


@pytest.mark.parametrize("batch", range(3))
def test_plans_equal_the_reference_on_random_maps_some_with_forbidden_items(batch: int) -> None:
    rng = np.random.default_rng(2000 + batch)
    for m in range(12):
        world = make_world(random_rows(rng), goals=NEVER_DONE)
        if m % 2:
            spec = dict(world.spec())
            keys = [it.id for it in world.items if it.kind == "key"][:1] + [world.items[0].id]
            spec["options"] = {**spec["options"], "forbidden": {world.agents[m % len(world.agents)]: keys}}
            world = DKGWorld(spec)
            assert world.forbidden
        _compare(world, _walk_states(world, random.Random(m), walks=2, length=25))
