"""Optimal single-agent planning in Doors, Keys and Gems.

The search runs over *macro* steps between points of interest (walk to a key and
pick it up, walk next to a door and unlock it, walk to the goal and finish), so
its states are (cell, keys held, doors open, keys still on the floor) instead of
every cell. The walking cost of a macro step is read from a breadth-first
distance map, cached per (target cells, open doors): a map is computed once per
layout situation and then answers any cell in O(1). Whole plans are memoized by
the situation they start from, so a decision in a state seen before costs a
dictionary look-up.

Other agents are treated as fixed for the plan (they never block cells in mDKG);
agents replan every turn, so what others do is taken into account as it happens.
Keys other agents hold are not available to the plan.

Before searching, the planner checks the task against a relaxation: the cells the agent
could reach if every door of a colour it can get a key of (held, or lying where it could
walk) were open. A task outside them has no plan, which is answered at once; inside them,
walking distances under that relaxation are the A* heuristic, and search nodes from which
the target is out of reach are never queued.

Tasks (what a plan achieves):
    Task.hold(item)       hold an item (a gem goal, or a key)
    Task.open(door)       have that door unlocked
    Task.give(item, b)    hand an item to agent b (fetching it first if needed)
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sim.dkg.world import CONSUMED, MOVES, DKGState, DKGWorld

INF = math.inf
MOVE_ORDER = tuple(MOVES)  # deterministic tie-break among equally short moves


@dataclass(frozen=True, slots=True)
class Task:
    kind: str  # "hold" | "open" | "give"
    item: int = -1
    door: int = -1
    to: int = -1  # agent index, for "give"

    @staticmethod
    def hold(item: int) -> "Task":
        return Task("hold", item=item)

    @staticmethod
    def open(door: int) -> "Task":
        return Task("open", door=door)

    @staticmethod
    def give(item: int, to: int) -> "Task":
        return Task("give", item=item, to=to)

    def describe(self, world: DKGWorld) -> str:
        if self.kind == "hold":
            return f"get {world.items[self.item].id}"
        if self.kind == "open":
            return f"unlock {world.doors[self.door].id}"
        return f"give {world.items[self.item].id} to {world.agents[self.to]}"


@dataclass(frozen=True, slots=True)
class Macro:
    """Walk to one of ``cells`` (under the doors open at that point), then do ``action``."""

    cells: frozenset[int]
    open_doors: int
    action: str
    end_cell: int  # where the agent stands when doing ``action`` (the closest of ``cells``)


@dataclass(frozen=True, slots=True)
class Plan:
    cost: float  # ticks of this agent's own actions; INF when the task cannot be done alone
    macros: tuple[Macro, ...]


NO_PLAN = Plan(INF, ())
DONE = Plan(0, ())


class DKGPlanner:
    """Cached distance maps and memoized optimal plans for one mDKG layout."""

    def __init__(self, world: DKGWorld, max_cached_plans: int = 200_000, relaxation: bool = True) -> None:
        """``relaxation=False`` searches as this planner did before the relaxation check (every
        door open as the heuristic, no refusal up front, nodes out of reach still queued): the
        baseline of ``bench/bench_dkg_unreachable.py``, nothing else."""
        self.world = world
        self.relaxation = relaxation
        self.n_cells = world.width * world.height
        self._dist: dict[tuple[frozenset[int], int], list[float]] = {}
        self._passable_steps: dict[int, tuple[tuple[int, ...], ...]] = {}
        self._comp: dict[int, list[int]] = {}  # open doors -> each cell's connected part (see _components)
        self._plans: dict[tuple, Plan] = {}
        self._openable: dict[tuple, int] = {}
        # (items' locations, -1 - agent) -> (keys it holds, mask of the keys on the floor): see plan
        self._keys: dict[tuple[tuple[int, ...], int], tuple[tuple[int, ...], int]] = {}
        self._max_cached_plans = max_cached_plans
        self.key_items = tuple(i for i, it in enumerate(world.items) if it.kind == "key")
        self.stats = {"searches": 0, "plan_hits": 0, "bfs": 0, "expanded": 0, "refused": 0}
        # Cells next to each door, for walking up to it to unlock.
        self._door_sides = tuple(frozenset(n for _, n in world.neighbors[d.cell] if not world.walls[n])
                                 for d in world.doors)
        self._all_open = (1 << len(world.doors)) - 1
        self._single = tuple(frozenset((c,)) for c in range(self.n_cells))  # one per cell, reused
        self._key_cells = tuple(world._initial.item_locs[i] for i in self.key_items)
        self._pickup_action = {i: f"pickup {it.id}" for i, it in enumerate(world.items)}

    # ------------------------------------------------------------ distances

    def distances(self, targets: frozenset[int], open_doors: int) -> list[float]:
        """Steps from every cell to the nearest target cell (INF where unreachable)."""
        key = (targets, open_doors)
        dist = self._dist.get(key)
        if dist is not None:
            return dist
        self.stats["bfs"] += 1
        passable = self.world.passable
        steps = self._steps(open_doors)
        dist = [INF] * self.n_cells
        frontier = [t for t in targets if passable(t, open_doors)]
        for t in frontier:
            dist[t] = 0
        d = 0
        while frontier:  # breadth-first, one distance at a time
            d += 1
            reached = []
            for c in frontier:
                for n in steps[c]:
                    if dist[n] == INF:
                        dist[n] = d
                        reached.append(n)
            frontier = reached
        self._dist[key] = dist
        return dist

    def _steps(self, open_doors: int) -> tuple[tuple[int, ...], ...]:
        """For every cell, the neighbours that can be entered with doors ``open_doors`` open (in
        ``world.neighbors`` order), listed once per mask for the breadth-first searches."""
        steps = self._passable_steps.get(open_doors)
        if steps is None:
            world = self.world
            passable = world.passable
            steps = self._passable_steps[open_doors] = tuple(
                tuple(n for _, n in world.neighbors[c] if passable(n, open_doors)) for c in range(self.n_cells))
        return steps

    def _components(self, open_doors: int) -> list[int]:
        """The connected part of the grid every cell lies in with doors ``open_doors`` open (-1
        for a cell that cannot be entered): a cell reaches another iff both have one label. One
        labelling per mask, where a breadth-first search from each start cell would be one per
        (cell, mask)."""
        comp = self._comp.get(open_doors)
        if comp is None:
            passable, steps = self.world.passable, self._steps(open_doors)
            comp = self._comp[open_doors] = [-1] * self.n_cells
            label = 0
            for c in range(self.n_cells):
                if comp[c] >= 0 or not passable(c, open_doors):
                    continue
                comp[c] = label
                frontier = [c]
                while frontier:
                    reached = []
                    for f in frontier:
                        for n in steps[f]:
                            if comp[n] < 0:
                                comp[n] = label
                                reached.append(n)
                    frontier = reached
                label += 1
        return comp

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
            comp = self._components(mask)
            here = comp[start]
            new = {c for cell, c in floor_keys if here >= 0 and comp[cell] == here} - colours
            if not new:
                return mask
            colours |= new

    # --------------------------------------------------------------- search

    def keys_of(self, locs: tuple[int, ...], agent: int) -> tuple[tuple[int, ...], int]:
        """With the items at ``locs``: the keys ``agent`` holds, and the mask of the keys lying on the
        floor (bit b: ``key_items[b]``); memoized."""
        me = -1 - agent
        keys = self._keys.get((locs, me))
        if keys is None:
            if len(self._keys) >= self._max_cached_plans:
                self._keys.clear()
            held = tuple(i for i in self.key_items if locs[i] == me)
            floor = 0
            for bit, i in enumerate(self.key_items):
                if locs[i] >= 0:
                    floor |= 1 << bit
            keys = self._keys[(locs, me)] = (held, floor)
        return keys

    def plan(self, state: DKGState, agent: int, task: Task) -> Plan:
        """An optimal plan for ``agent`` to achieve ``task`` from ``state`` on its own."""
        me = -1 - agent
        locs = state.item_locs
        held, floor = self.keys_of(locs, agent)
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
        kind = task.kind

        # Already achieved?
        if kind == "hold" and target_loc == me:
            return DONE
        if kind == "open" and open_doors >> task.door & 1:
            return DONE
        if kind == "give" and target_loc == -1 - task.to:
            return DONE  # already in the recipient's hands
        if kind in ("hold", "give") and (target_loc == CONSUMED or (target_loc < 0 and target_loc != me)):
            return NO_PLAN  # used up, or in someone else's hands
        forbidden = {i for a, i in world.forbidden if a == -1 - me}
        if kind in ("hold", "give") and (task.item in forbidden or (kind == "give" and (
                task.to, task.item) in world.forbidden)):
            return NO_PLAN  # the agent (or the recipient) may not take that item
        give_cells: frozenset[int] = frozenset()
        if kind == "give":
            give_cells = world.handover_cells(recipient_cell)

        # The relaxation (module docstring): doors the agent could ever open in this search.
        # Later nodes only lose keys and open doors of these colours, so distances under this
        # mask are lower bounds at every node, and INF means the target is out of reach.
        relaxed = self.openable_doors(start, held, open_doors, floor) if self.relaxation else self._all_open
        distances, single = self.distances, self._single
        # The heuristic's distance maps, fetched the first time each is needed.
        maps: dict[str, list[float]] = {}

        def heuristic(cell: int, held_target: bool) -> float:
            if kind == "open":
                dist = maps.get("door")
                if dist is None:
                    dist = maps["door"] = distances(self._door_sides[task.door], relaxed)
                return dist[cell] + 1
            if kind == "hold" or not held_target:
                if target_loc < 0:
                    return 0
                dist = maps.get("target")
                if dist is None:
                    dist = maps["target"] = distances(single[target_loc], relaxed)
                h = dist[cell] + 1
                if kind == "give":
                    if h == INF or not give_cells or not self.relaxation:
                        h += 1
                    else:
                        dist = maps.get("give")
                        if dist is None:
                            dist = maps["give"] = distances(give_cells, relaxed)
                        h += dist[target_loc] + 1
                return h
            dist = maps.get("give")
            if dist is None:
                dist = maps["give"] = distances(give_cells, relaxed)
            return dist[cell] + 1

        h_start = heuristic(start, target_loc == me) if self.relaxation else 0
        if h_start == INF:
            self.stats["refused"] += 1
            return NO_PLAN  # out of reach even with every door it could ever open: no search

        passable = world.passable
        key_cells = self._key_cells
        pickup = self._pickup_action

        def walk(cells: frozenset[int], od_walk: int, cell: int) -> tuple[float, int] | None:
            """The cost of walking from ``cell`` to ``cells`` and acting there, and the cell of
            ``cells`` the walk ends on (the nearest, then the lowest-numbered); None when out of
            reach. For one cell, that cell (a target that can be walked to is passable)."""
            dist = distances(cells, od_walk)
            d = dist[cell]
            if d == INF:
                return None
            end = cell
            if d > 0:
                if len(cells) == 1:
                    (end,) = cells
                else:
                    end = min((c for c in cells if passable(c, od_walk)),
                              key=lambda c: (distances(single[c], od_walk)[cell], c))
            return d + 1, end

        if self.relaxation and (kind == "hold" and target_loc >= 0 or kind == "give" and target_loc == me):
            # Finishing straight away (walking to the item and picking it up, or to the recipient
            # and handing it over), when that costs at most one step more than the heuristic, is
            # the plan the search below returns: expanding the start pushes it first, with f = its
            # cost, and every other successor (a key picked up or a door unlocked on the way) has
            # f >= the heuristic + 1 (the relaxed distances obey the triangle inequality), so it
            # is popped next and wins every tie by its lower counter. One expansion, as there.
            if kind == "hold":
                cells, act = single[target_loc], pickup[task.item]
            else:
                cells, act = give_cells, f"handover {items[task.item].id} {world.agents[task.to]}"
            w = walk(cells, open_doors, start)
            if w is not None and w[0] <= h_start + 1:
                self.stats["expanded"] += 1
                return Plan(w[0], (Macro(cells, open_doors, act, w[1]),))
        elif self.relaxation and kind == "give" and target_loc >= 0 and give_cells \
                and items[task.item].kind != "key":
            # Likewise walking to the item, picking it up, walking to the recipient and handing
            # it over, when both walks are as short as with every openable door open: the pickup
            # then has f = the heuristic, every other successor of the start more, and the
            # handover from there f = the heuristic, every other successor of the pickup more.
            w = walk(single[target_loc], open_doors, start)
            if w is not None and w[0] - 1 == distances(single[target_loc], relaxed)[start]:
                w2 = walk(give_cells, open_doors, w[1])
                if w2 is not None and w2[0] - 1 == distances(give_cells, relaxed)[target_loc]:
                    self.stats["expanded"] += 2
                    return Plan(w[0] + w2[0], (
                        Macro(single[target_loc], open_doors, pickup[task.item], w[1]),
                        Macro(give_cells, open_doors, f"handover {items[task.item].id} {world.agents[task.to]}",
                              w2[1])))

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
            if cell == -1:  # goal sentinel
                return Plan(g, self._unwind(parents, node))
            self.stats["expanded"] += 1
            successors: list[tuple[tuple, Macro, float]] = []

            # Finish the task.
            if kind == "hold" and target_loc >= 0:
                w = walk(single[target_loc], od, cell)
                if w:
                    successors.append(((-1, (), 0, 0, True), Macro(single[target_loc], od,
                                                                     pickup[task.item], w[1]), w[0]))
            elif kind == "give":
                if has_item:
                    act = f"handover {items[task.item].id} {world.agents[task.to]}"
                    w = walk(give_cells, od, cell)
                    if w:
                        successors.append(((-1, (), 0, 0, True), Macro(give_cells, od, act, w[1]), w[0]))
                elif target_loc >= 0 and items[task.item].kind != "key":
                    w = walk(single[target_loc], od, cell)
                    if w:
                        successors.append(((w[1], hk, od, fl, True), Macro(single[target_loc], od, pickup[task.item],
                                                                           w[1]), w[0]))
            # Pick up a key from the floor (the task's key included).
            for bit, i in enumerate(self.key_items):
                if fl >> bit & 1 and i not in forbidden:
                    kcell = key_cells[bit]
                    w = walk(single[kcell], od, cell)
                    if w:
                        new_held = tuple(sorted(hk + (i,)))
                        successors.append(((kcell, new_held, od, fl & ~(1 << bit),
                                            has_item or i == task.item), Macro(single[kcell], od, pickup[i], kcell),
                                           w[0]))
            # Unlock a door with a held key of its colour: the lowest-numbered one, except the
            # key the task is to give, which is kept (another key of the colour is named instead).
            if hk:
                for d, door in enumerate(doors):
                    if od >> d & 1:
                        continue
                    matching = [i for i in hk if items[i].color == door.color]
                    usable = [i for i in matching if not (kind == "give" and i == task.item)]
                    if not usable:
                        continue
                    key = usable[0]
                    act = f"unlock {door.id}" if key == matching[0] else f"unlock {door.id} {items[key].id}"
                    new_held = tuple(i for i in hk if i != key)
                    new_od = od | 1 << d
                    if kind == "open" and d == task.door:
                        w = walk(self._door_sides[d], od, cell)
                        if w:
                            successors.append(((-1, (), 0, 0, True), Macro(self._door_sides[d], od, act, w[1]), w[0]))
                        continue
                    for side in self._door_sides[d]:  # each side leads on differently
                        w = walk(single[side], od, cell)
                        if w:
                            successors.append(((side, new_held, new_od, fl, has_item),
                                               Macro(single[side], od, act, side), w[0]))

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


#: cost standing in for "cannot be done alone" in softmax choices and comparisons
UNREACHABLE = 1000.0
