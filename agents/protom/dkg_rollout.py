"""Joint rollouts of planner agents in Doors, Keys and Gems: ProToM's C(f, g) (Eq. 13-14).

A rollout predicts how many ticks pass until every agent holds its goal gem when each
agent follows the optimal planner of ``agents/dkg/planner.py`` (the facilitator's model
of the people it watches), optionally with one agent first carrying out a feedback task
(``Task.open(door)`` or ``Task.give(key, to)``) and then resuming its own goal.

The model, exactly:

- Agents act in the world's turn order, one action per tick.
- Each agent works on its first unfinished task: the feedback task while it is neither
  done (plan cost 0) nor impossible alone (plan cost INF), then ``Task.hold(goal)``.
- An agent with a plan walks to the end cell of its plan's first macro step (a shortest
  path, ties broken up/down/left/right as ``DKGPlanner.step_towards`` does) and then
  performs the macro's action (pickup, unlock or handover).
- An agent with no plan (its goal cannot be reached alone) walks greedily towards its
  goal through the cells it can enter and waits there, as ``PlannerAgent`` does.
- An agent holding its goal with nothing asked of it waits.
- Plans are fixed between *structural* events (a pickup, an unlock or a handover);
  after each one every agent replans from the new state.

Because nothing but walking happens between structural events, the simulation jumps from
one event to the next: a rollout costs a few plan look-ups per event, not per tick. Agents'
modes are memoized per items-and-doors situation, and the rest of a rollout after an event
state met before is read off a memo of event states (``_simulate``), so that the many rollouts
of one decision (one per goal hypothesis and feedback effect) share their work. Once every agent
left is on the planner's straight walk to its gem, the rest is computed at once (``_tail``). A
rollout is the same with or without these memos (``tests/test_protom_rollout_fast.py``).
"""

from __future__ import annotations

from agents.dkg.planner import INF, DKGPlanner, Macro, Plan, Task
from agents.protom.core import Rollout
from sim.dkg.world import CONSUMED, DKGState, DKGWorld
from sim.world import IllegalAction

_IDLE, _STUCK, _WALK = 0, 1, 2
_IDLE_MODE = (_IDLE,)
_DROP = ("drop",)  # _task_mode: a feedback task done or impossible alone
_NO_PLAN = ("no plan",)  # _task_mode: an agent's own goal it cannot reach alone


class DKGRollouts:
    """Memoized joint rollouts for one world (one per world, sharing the agents' planner)."""

    def __init__(self, world: DKGWorld, planner: DKGPlanner, max_cached: int = 200_000) -> None:
        self.world = world
        self.planner = planner
        self.horizon = world.t_max
        self._cache: dict[tuple, tuple[int | None, ...]] = {}
        self._max_cached = max_cached
        self._next_hop: dict[tuple[int, int], list[int]] = {}
        self._descent: dict[tuple[int, int], list[int]] = {}
        self._worlds: dict[tuple[int, ...], DKGWorld] = {}
        self._singletons = tuple(frozenset((c,)) for c in range(world.height * world.width))
        # key -> (the agents' modes at the first event, which feedback task is still pending then,
        # whether the rollout ended without reaching its horizon): see _shifted
        self._first: dict[tuple, tuple[tuple, tuple[bool, ...], bool]] = {}
        # key -> the keys in ``_first`` whose rollout walked the agent whose turn it was one step
        # into ``key``'s cells (the candidates ``_shifted`` checks): see _remember_first
        self._successors: dict[tuple, tuple[tuple, ...]] = {}
        # (keys' locations, doors) -> (agent, cell, task..., its item's location) -> mode: see _modes
        self._situations: dict[tuple, dict[tuple, tuple]] = {}
        # (items, doors) -> the same dict as _situations holds for its keys' locations and doors
        self._situation_of: dict[tuple, dict[tuple, tuple]] = {}
        self._key_items = planner.key_items
        # event state -> (finish ticks from it, tick of its last event, tick of the event past the
        # horizon that cut it or None): see _simulate
        self._suffixes: dict[tuple, tuple[tuple[int | None, ...], int, int | None]] = {}
        self._actions: dict[str, tuple] = {}
        self._holds: dict[tuple[int, ...], list[Task]] = {}
        # Task -> a number standing for it in the memos' keys (see _task_key)
        self._task_ids: dict[Task, int] = {}
        # id(task) -> (task, its number): the same Task object asked again (a candidate's task, at
        # every event of its rollouts) is found without hashing it (a dataclass's __hash__ and
        # __eq__ run in Python); the object is held, so its id is not reused while kept
        self._task_objects: dict[int, tuple[Task, int]] = {}
        self.stats = {"rollouts": 0, "hits": 0, "events": 0, "shifted": 0, "suffixes": 0,
                      "shifted_in_place": 0, "suffixes_at_start": 0, "tails": 0}

    def _world_for(self, goals: tuple[int, ...]) -> DKGWorld:
        """The same rules with ``goals`` as the agents' goals: the real world ends its episodes
        when its own goals are held, which a hypothesis may not share."""
        if goals == self.world.goal_item:
            return self.world
        world = self._worlds.get(goals)
        if world is None:
            spec = dict(self.world.spec())
            spec["goals"] = {a: self.world.items[g].id for a, g in zip(self.world.agents, goals)}
            world = self._worlds[goals] = DKGWorld(spec)
        return world

    # ------------------------------------------------------------------ API

    def run(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None = None) -> Rollout:
        """Roll out from ``state`` with goal gem item indices ``goals`` (one per agent) and an
        optional ``(agent index, task)`` that agent carries out first. The horizon is the
        ticks left in the episode (``t_max - state.t``)."""
        # Simulated with the full t_max horizon (so the cache ignores the clock); cap to what is left.
        return Rollout(self._finish(state, goals, extra), self.horizon).capped(max(0, self.world.t_max - state.t))

    def length(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None = None) -> int:
        """``run(state, goals, extra).length``, without making the ``Rollout``."""
        finish = self._finish(state, goals, extra)
        budget = max(0, self.world.t_max - state.t)
        horizon = self.horizon
        last = 0
        for f in finish:
            if f is None:
                return min(budget, horizon)
            if f > last:
                last = f
        return budget if last > budget else last  # cut by the ticks left: one never gets there

    def _finish(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None
                ) -> tuple[int | None, ...]:
        """The finish ticks of ``run``, with the full ``t_max`` horizon."""
        key = (state.turn, state.agent_cells, state.item_locs, state.open_doors, goals,
               None if extra is None else (extra[0], self._task_key(extra[1])))
        finish = self._cache.get(key)
        if finish is None:
            finish = self._shifted(state, goals, extra, key)
            if finish is None:
                finish = self._simulate(state, goals, extra, key)
            if len(self._cache) >= self._max_cached:
                self._cache.clear()
                self._first.clear()
                self._successors.clear()
            self._cache[key] = finish
        else:
            self.stats["hits"] += 1
        return finish

    # ------------------------------------------------------------- walking

    def _next_hops(self, target: int, open_doors: int) -> list[int]:
        """For every cell, the next cell on a shortest path to ``target`` (-1 at or off it)."""
        key = (target, open_doors)
        hops = self._next_hop.get(key)
        if hops is None:
            world = self.world
            dist = self.planner.distances(frozenset((target,)), open_doors)
            hops = [-1] * len(dist)
            order = ("up", "down", "left", "right")
            for c, d in enumerate(dist):
                if d == INF or d == 0:
                    continue
                moves = dict(world.neighbors[c])
                for name in order:  # DKGPlanner.step_towards: the first improving move in this order
                    n = moves.get(name)
                    if n is not None and dist[n] < d and world.passable(n, open_doors):
                        hops[c] = n
                        break
            self._next_hop[key] = hops
        return hops

    def _descents(self, target: int, open_doors: int) -> list[int]:
        """For every cell, the enterable neighbour closest to ``target`` with all doors open, when
        strictly closer than the cell itself (-1 otherwise): a stuck agent's greedy walk."""
        key = (target, open_doors)
        hops = self._descent.get(key)
        if hops is None:
            world = self.world
            relaxed = self.planner.distances(frozenset((target,)), self.planner._all_open)
            hops = [-1] * len(relaxed)
            for c in range(len(relaxed)):
                if world.walls[c]:
                    continue
                best, best_d = -1, relaxed[c]
                for _, n in world.neighbors[c]:  # legal_actions order: up, down, left, right
                    if world.passable(n, open_doors) and relaxed[n] < best_d:
                        best, best_d = n, relaxed[n]
                hops[c] = best
            self._descent[key] = hops
        return hops

    @staticmethod
    def _walk(cell: int, hops: list[int], steps: int) -> int:
        for _ in range(steps):
            nxt = hops[cell]
            if nxt < 0:
                break
            cell = nxt
        return cell

    # ---------------------------------------------------------- simulation

    def _shifted(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None,
                 key: tuple) -> tuple[int | None, ...] | None:
        """The rollout from ``state`` read off the one from the tick before, when that tick only
        moved its agent the way the rollout moved it (one step, or none); None when it cannot be.

        Let s be the previous state (the same items and doors, the previous turn's agent m on the
        cell it left, or on the same cell) and R(s) its cached rollout, which ended with every agent
        done or nothing left to happen (not at the horizon) and in which m did no structural action
        at its tick 0: m walked towards its first macro's end cell (distance d >= 1), or, idle,
        stayed, or, stuck, took its greedy step (or stayed where it has none). If ``state`` has m
        where R(s) put it after that tick and every agent's first-event mode here equals R(s)'s
        (a walking m's distance d - 1, the same feedback task pending), every agent's first
        structural action is one tick nearer, the agents stand on the same cells when it happens,
        and from there on both rollouts are the same: every finish tick is one less."""
        n = len(state.agent_cells)
        m = (state.turn - 1) % n
        for prev_key in self._successors.get(key, ()):
            info = self._first.get(prev_key)
            if info is None:
                continue
            finish = self._cache.get(prev_key)
            if finish is None:
                continue
            modes, pending, whole = info
            mode = modes[m]
            now_modes, now_pending = self._first_event(state, goals, extra)
            if mode[0] == _WALK:  # one step nearer (whether its walk is straight may change on the way)
                now = now_modes[m]
                mode = (_WALK, mode[1], mode[2] - 1, mode[3], now[4] if now[0] == _WALK else mode[4])
            if now_pending == pending and now_modes == modes[:m] + (mode,) + modes[m + 1:]:
                self._remember_first(key, now_modes, now_pending, True)
                self.stats["shifted"] += 1
                if mode[0] != _WALK:
                    self.stats["shifted_in_place"] += 1
                return tuple(f - 1 if f else f for f in finish)
        return None

    def _remember_first(self, key: tuple, modes: tuple, pending: tuple[bool, ...], whole: bool) -> None:
        """Keep a rollout's first-event modes for ``_shifted``; when it ran to its end and the agent
        whose turn it is (``m``) did no structural action at tick 0 (it walked towards its first
        macro's end cell at distance d >= 1, or it is idle or stuck), index it under the key of the
        state one tick later with ``m`` where that tick left it (the one state from which
        ``_shifted`` may read it off)."""
        self._first[key] = (modes, pending, whole)
        if not whole:
            return
        m = key[0]
        mode = modes[m]
        cells = key[1]
        kind = mode[0]
        if kind == _WALK:
            if mode[2] < 1:
                return
            nxt = self._next_hops(mode[1], key[3])[cells[m]]
            if nxt < 0:
                return
        elif kind == _STUCK:
            nxt = self._descents(mode[1], key[3])[cells[m]]
            if nxt < 0:
                nxt = cells[m]  # no greedy step from there: it stays
        else:
            nxt = cells[m]  # idle: it stays
        n = len(cells)
        succ = ((m + 1) % n, cells[:m] + (nxt,) + cells[m + 1:]) + key[2:]
        self._successors[succ] = self._successors.get(succ, ()) + (key,)

    def _first_event(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None
                     ) -> tuple[tuple, tuple[bool, ...]]:
        """The agents' modes at a rollout's first event from ``state``, and which feedback task is
        still pending then (as ``_simulate`` computes them)."""
        n = len(goals)
        pending: list[Task | None] = [None] * n
        if extra is not None:
            pending[extra[0]] = extra[1]
        modes = self._modes(0, state.turn, state.agent_cells, state.item_locs, state.open_doors, state.reached_at,
                            goals, self._holds_for(goals), pending)[0]
        return tuple(modes), tuple(p is not None for p in pending)

    def _modes(self, t: int, turn: int, cells: tuple[int, ...], locs: tuple[int, ...], doors: int,
               reached: tuple[int, ...], goals: tuple[int, ...], holds: list[Task], pending: list[Task | None]
               ) -> tuple[list[tuple], int, float]:
        """Every agent's mode in the state s of these fields (idle, stuck towards a cell, or
        walking d steps to its first macro's end cell), dropping pending tasks that are done or
        impossible; and the agent that acts first with the tick of its structural action (-1,
        INF: none).

        An agent's mode depends only on its plan (``DKGPlanner.plan``), its own cell and the open
        doors, and the plan only on the keys' locations (which it holds, which lie on the floor),
        the doors, its cell, its task, where the task's item lies and (for a handover) the
        recipient's cell. So modes are memoized per situation of the keys and doors, under the
        agent, its cell, its task, the task's item's location and the recipient's cell: another
        agent picking up its gem leaves the situation as it was. A stuck agent's target (where its
        goal gem lies, or who holds it) is read off s every time. The ``DKGState`` is made only
        when the planner is asked."""
        s: DKGState | None = None
        situation = self._situation_of.get((locs, doors))
        if situation is None:
            if len(self._situation_of) >= self._max_cached:
                self._situation_of.clear()
                self._situations.clear()
            keys = (tuple([locs[k] for k in self._key_items]), doors)
            situation = self._situations.get(keys)
            if situation is None:
                situation = self._situations[keys] = {}
            self._situation_of[(locs, doors)] = situation
        n = len(goals)
        modes: list[tuple] = []
        best_i, best_tau = -1, INF
        for i in range(n):
            mode = None
            task = pending[i]
            if task is not None:
                key = (i, cells[i], self._task_key(task), cells[task.to] if task.kind == "give" else -1,
                       locs[task.item] if task.item >= 0 else 0)
                found = situation.get(key)
                if found is None:
                    if s is None:
                        s = DKGState(t=t, turn=turn, agent_cells=cells, item_locs=locs, open_doors=doors,
                                     reached_at=reached)
                    found = situation[key] = self._task_mode(s, i, task, True)
                if found is _DROP:
                    pending[i] = None
                else:
                    mode = found
            if mode is None:
                g = goals[i]
                if locs[g] == -1 - i:
                    modes.append(_IDLE_MODE)
                    continue
                key = (i, cells[i], g, locs[g])
                mode = situation.get(key)
                if mode is None:
                    if s is None:
                        s = DKGState(t=t, turn=turn, agent_cells=cells, item_locs=locs, open_doors=doors,
                                     reached_at=reached)
                    mode = situation[key] = self._task_mode(s, i, holds[i], False)
                if mode is _NO_PLAN:  # its target as DKGPlanner._task_cell gives it: the gem's cell or holder's
                    loc = locs[g]
                    if loc >= 0:
                        modes.append((_STUCK, loc, True))  # its target stays where it is
                    elif loc == CONSUMED:
                        modes.append(_IDLE_MODE)
                    else:
                        modes.append((_STUCK, cells[-1 - loc], False))
                    continue
            modes.append(mode)
            if mode[0] == _WALK:
                tau = (i - turn) % n + n * mode[2]  # the tick (from now) of its structural action
                if tau < best_tau:
                    best_i, best_tau = i, tau
        return modes, best_i, best_tau

    def _task_key(self, task: Task) -> int:
        """A number standing for ``task`` in the memos' keys. The memos hold hundreds of thousands
        of small tuples; made of numbers and strings only, they are left alone by Python's cyclic
        garbage collector, whose full collections would otherwise walk them all (0.2-0.4 s each,
        in the middle of a decision), while a ``Task`` in them keeps each one in its sights."""
        seen = self._task_objects.get(id(task))
        if seen is not None and seen[0] is task:
            return seen[1]
        found = self._task_ids.get(task)
        if found is None:
            found = self._task_ids[task] = len(self._task_ids)
        if len(self._task_objects) >= 4096:
            self._task_objects.clear()
        self._task_objects[id(task)] = (task, found)
        return found

    def _holds_for(self, goals: tuple[int, ...]) -> list[Task]:
        """``Task.hold`` of every goal (one list per goal tuple, never changed)."""
        holds = self._holds.get(goals)
        if holds is None:
            if len(self._holds) >= self._max_cached:
                self._holds.clear()
            holds = self._holds[goals] = [Task.hold(g) for g in goals]
        return holds

    def _task_mode(self, s: DKGState, i: int, task: Task, feedback: bool) -> tuple:
        """Agent ``i``'s mode for ``task`` in ``s``: walking to its plan's first macro, idle when
        that end cell cannot be walked to, ``_DROP`` for a feedback task that is done or
        impossible alone, ``_NO_PLAN`` for its own goal when it cannot be reached alone."""
        planner = self.planner
        plan = planner.plan(s, i, task)
        if plan.cost == INF or (feedback and plan.cost == 0):
            return _DROP if feedback else _NO_PLAN
        macro: Macro = plan.macros[0]
        here = s.agent_cells[i]
        if here == macro.end_cell or (here in macro.cells and macro.action.startswith(("unlock", "handover"))):
            return (_WALK, macro.end_cell, 0, macro.action, not feedback and self._straight(s, i, task, plan, 0))
        d = planner.distances(self._singletons[macro.end_cell], s.open_doors)[here]
        if d == INF:  # cannot happen for a plan made in this state; be safe
            return _IDLE_MODE
        return (_WALK, macro.end_cell, int(d), macro.action, not feedback and self._straight(s, i, task, plan, int(d)))

    def _straight(self, s: DKGState, i: int, task: Task, plan: Plan, d: int) -> bool:
        """Whether agent ``i``'s ``plan`` for its own goal ``task`` in ``s`` is the planner's straight
        walk (``DKGPlanner._search``: walking to the gem, at distance ``d``, and picking it up
        costs at most one step more than the heuristic, the distance with every door it could
        ever open open). Then, while no key moves and no door opens, the planner gives that walk
        from every cell on it too (``d`` falls by one a step, the relaxed distance by at most
        one, and the agent stays where the same doors are openable): see ``_tail``."""
        planner = self.planner
        gem = task.item
        if not planner.relaxation or s.item_locs[gem] < 0 or len(plan.macros) != 1 \
                or plan.macros[0].end_cell != s.item_locs[gem]:
            return False  # not a walk to the gem and its pickup
        locs = s.item_locs
        held, floor = planner.keys_of(locs, i)
        here = s.agent_cells[i]
        relaxed = planner.openable_doors(here, held, s.open_doors, floor)
        return d <= planner.distances(self._singletons[locs[gem]], relaxed)[here] + 1

    @staticmethod
    def _tail(modes: list[tuple], turn: int, n: int) -> list[int] | None:
        """The tick (from now) at which each agent picks up its gem, when the rest of a rollout
        is nothing but that: every agent idle (it holds its gem), or stuck towards a gem lying on
        the floor (it never gets it), or on the planner's straight walk to its gem (``_straight``),
        with no feedback task pending and no pressure plates. No key then moves and no door
        opens, so no agent's plan changes: each one walks its d steps on its own turns and picks
        the gem up on the next, at (i - turn) mod n + n d + 1. -1 for an agent that never does;
        None when the rest is not that simple."""
        out = [-1] * n
        ends: set[int] = set()
        for i, mode in enumerate(modes):
            kind = mode[0]
            if kind == _WALK:
                if not mode[4] or mode[1] in ends:
                    return None  # not straight, or two agents after one gem (goals need not differ)
                ends.add(mode[1])
                out[i] = (i - turn) % n + n * mode[2] + 1
            elif kind == _STUCK and not mode[2]:
                return None  # its gem is in someone's hands: its target moves
        return out

    def _simulate(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None,
                  key: tuple | None = None) -> tuple[int | None, ...]:
        """The finish tick of every agent (None: not within the horizon).

        The rollout from a state after a structural event depends only on that state's turn,
        cells, items and doors, the goals and the feedback task still pending, and on the ticks
        left: ``_suffixes`` keeps, for every such state met, the finish ticks counted from it and
        the tick of its last event, with no horizon (or with the horizon that cut it), so that a
        later rollout reaching it reads the rest off (cut to its own horizon) instead of
        simulating it again."""
        self.stats["rollouts"] += 1
        # The layout's rules (items, doors, handovers) do not depend on the goals: the world with
        # these goals is needed only for its own steps.
        world = self.world
        agents = world.agents
        n = len(agents)
        plates = bool(world.plate_doors)  # a step may open a door: only the world's own step says
        horizon = self.horizon
        pending: list[Task | None] = [None] * n
        key_extra = None  # the feedback task while pending, as the suffix memo's keys hold it
        if extra is not None:
            pending[extra[0]] = extra[1]
            key_extra = (extra[0], self._task_key(extra[1]))
        finish: list[int | None] = [0 if state.item_locs[g] == -1 - i else None for i, g in enumerate(goals)]
        # The state's fields (no DKGState is made but for the world's own steps). The clock
        # restarts at 0 so that legality checks never see the episode's own t_max.
        t, turn, cells, locs, doors, reached = 0, state.turn, state.agent_cells, state.item_locs, state.open_doors, \
            state.reached_at
        now = 0
        holds = self._holds_for(goals)
        first = True
        read_at_start = False
        cut: int | None = None  # the tick of an event past the horizon that ended the rollout
        last = 0  # the tick of the last event simulated
        trail: list[tuple[tuple, int]] = []  # the event states met, with their ticks
        suffixes = self._suffixes
        left = finish.count(None)  # agents still without their gem
        next_hop, descent = self._next_hop, self._descent
        events = 0
        while left:
            # The start state too: the state a decision starts from is an event state of the rollouts
            # of the tick before when its agent did what they had it do (a pickup, say).
            here_key = (turn, cells, locs, doors, goals, None if extra is None or pending[extra[0]] is None
                        else key_extra)
            known = suffixes.get(here_key)
            if known is not None and (known[2] is None or horizon - now < known[2]):
                self.stats["suffixes"] += 1
                rest, end, rest_cut = known
                finish = [f if f is not None else (None if r is None else now + r)
                          for f, r in zip(finish, rest)]
                last = now + end
                cut = None if rest_cut is None else now + rest_cut
                read_at_start = first
                if first:
                    self.stats["suffixes_at_start"] += 1
                break
            if not first:
                trail.append((here_key, now))
            modes, best_i, best_tau = self._modes(t, turn, cells, locs, doors, reached, goals, holds, pending)
            if first and key is not None:
                first_modes, first_pending = tuple(modes), tuple(p is not None for p in pending)
            first = False
            if not plates and (extra is None or pending[extra[0]] is None):
                tail = self._tail(modes, turn, n)
                if tail is not None:  # the rest is every agent walking straight to its gem
                    self.stats["tails"] += 1
                    for tick, i in sorted((now + k, i) for i, k in enumerate(tail) if k >= 0):
                        if tick > horizon:
                            cut = tick
                            break  # not in time
                        events += 1
                        last = tick
                        if finish[i] is None:
                            finish[i] = tick
                            left -= 1
                    break
            if best_i < 0:
                break  # nothing will change any more
            if now + best_tau + 1 > horizon:
                cut = now + int(best_tau) + 1
                break  # not in time
            events += 1
            tau = int(best_tau)
            new_cells = list(cells)
            for j in range(n):
                mode = modes[j]
                kind = mode[0]
                if kind == _IDLE:
                    continue
                off = (j - turn) % n
                if tau <= off:
                    continue  # no turn of its own before tick tau
                turns = -(-(tau - off) // n)  # own turns strictly before tick tau
                if kind == _WALK:
                    d = mode[2]
                    if d == 0:
                        continue
                    if turns >= d:  # all the way: d is the end cell's distance, each hop one nearer
                        new_cells[j] = mode[1]
                        continue
                    hops = next_hop.get((mode[1], doors))
                    if hops is None:
                        hops = self._next_hops(mode[1], doors)
                else:
                    hops = descent.get((mode[1], doors))
                    if hops is None:
                        hops = self._descents(mode[1], doors)
                cell = cells[j]
                for _ in range(turns):  # _walk
                    nxt = hops[cell]
                    if nxt < 0:
                        break
                    cell = nxt
                new_cells[j] = cell
            moved = tuple(new_cells)
            action = modes[best_i][3]
            applied = self._apply(world, best_i, moved, locs, doors, action)
            if applied is not None:
                t, turn, cells, new_locs, doors = t + tau + 1, (best_i + 1) % n, moved, applied[0], applied[1]
            elif not plates:  # refused: the catch-up step, which moves no item and opens no door
                here = moved[best_i]
                there = self._catch_up_cell(world, moved, doors, best_i, action)
                t, turn, new_locs = t + tau + 1, (best_i + 1) % n, locs
                cells = moved if there == here else moved[:best_i] + (there,) + moved[best_i + 1:]
            else:
                mid = DKGState(t=t + tau, turn=best_i, agent_cells=moved, item_locs=locs,
                               open_doors=doors, reached_at=reached)
                name = agents[best_i]
                goal_world = self._world_for(goals)
                try:  # the step checks legality as legal_actions would, without listing every action
                    s = goal_world.step(mid, {name: action}).state
                except IllegalAction:
                    s = goal_world.step(mid, {name: self._catch_up(goal_world, mid, best_i, action)}).state
                t, turn, cells, new_locs, doors, reached = s.t, s.turn, s.agent_cells, s.item_locs, s.open_doors, \
                    s.reached_at
            now += tau + 1
            last = now
            if new_locs is not locs:
                locs = new_locs
                for i, g in enumerate(goals):
                    if finish[i] is None and new_locs[g] == -1 - i:
                        finish[i] = now
                        left -= 1
        self.stats["events"] += events
        if trail:
            if len(suffixes) >= self._max_cached:
                suffixes.clear()
            # A gem leaves its holder's hands only in a handover, which only a feedback task to
            # give that gem asks for; then an agent's first finish may lie before an event state
            # where it no longer holds its gem, and such a state is not kept.
            lost = extra is not None and extra[1].kind == "give" and extra[1].item in goals
            for here_key, then in trail:
                if lost and any(f is not None and f < then and here_key[2][goals[i]] != -1 - i
                                for i, f in enumerate(finish)):
                    continue
                suffixes[here_key] = (tuple([None if f is None else f - then if f > then else 0 for f in finish]),
                                      last - then, None if cut is None else cut - then)
        # A suffix read off may run past this rollout's horizon: cut it there.
        whole = cut is None and last <= horizon
        if not whole:
            finish = [f if f is not None and f <= horizon else None for f in finish]
        if key is not None and (not first or read_at_start):
            if first:  # read off at the start: its first event's modes as the simulation would have them
                first_modes, first_pending = self._first_event(state, goals, extra)
            self._remember_first(key, first_modes, first_pending, whole)
        return tuple(finish)

    def _apply(self, world: DKGWorld, a: int, cells: tuple[int, ...], locs: tuple[int, ...], doors: int,
               action: str) -> tuple[tuple[int, ...], int] | None:
        """The items and doors after agent ``a`` does the structural ``action`` (a pickup, an
        unlock or a handover) with the agents on ``cells``, as ``world.step`` would leave them;
        None when ``world.step`` would refuse it (the caller then asks the world itself). None
        of these actions moves an agent, so no pressure plate changes."""
        parsed = self._actions.get(action)
        if parsed is None:
            parsed = self._actions[action] = self._parse(world, action)
        verb = parsed[0]
        here = cells[a]
        me = -1 - a
        forbidden = world.forbidden
        if verb == "pickup":
            i = parsed[1]
            if locs[i] != here or (a, i) in forbidden:
                return None
            return locs[:i] + (me,) + locs[i + 1:], doors
        if verb == "unlock":
            d, door_cell, color, key = parsed[1], parsed[2], parsed[3], parsed[4]
            if doors >> d & 1 or not world.adjacent(here, door_cell):
                return None
            if key is not None:
                if locs[key] != me:
                    return None
            else:
                key = next((i for i, loc in enumerate(locs) if loc == me and world.items[i].kind == "key"
                            and world.items[i].color == color), None)
                if key is None:
                    return None
            return locs[:key] + (CONSUMED,) + locs[key + 1:], doors | 1 << d
        if verb == "handover":
            i, b = parsed[1], parsed[2]
            if b == a or locs[i] != me or (a, i) in forbidden or (b, i) in forbidden \
                    or not world.can_hand_over(here, cells[b]):
                return None
            return locs[:i] + (-1 - b,) + locs[i + 1:], doors
        return None

    @staticmethod
    def _parse(world: DKGWorld, action: str) -> tuple:
        """``action`` with its names resolved, for ``_apply``: ``("other",)`` for anything
        ``_apply`` leaves to the world (an unknown name, a key of the wrong colour or kind)."""
        verb, _, rest = action.partition(" ")
        if verb == "pickup":
            i = world.item_index.get(rest)
            return ("other",) if i is None else ("pickup", i)
        if verb == "unlock":
            door_id, _, key_id = rest.partition(" ")
            d = world.door_index.get(door_id)
            if d is None:
                return ("other",)
            color = world.doors[d].color
            key = None
            if key_id:
                key = world.item_index.get(key_id)
                if key is None or world.items[key].kind != "key" or world.items[key].color != color:
                    return ("other",)
            return ("unlock", d, world.doors[d].cell, color, key)
        if verb == "handover":
            item_id, _, other = rest.partition(" ")
            i, b = world.item_index.get(item_id), world.agent_index.get(other)
            return ("other",) if i is None or b is None else ("handover", i, b)
        return ("other",)

    def _catch_up_cell(self, world: DKGWorld, cells: tuple[int, ...], doors: int, agent: int, action: str) -> int:
        """Where ``_catch_up``'s step leaves ``agent`` (``world.step`` refuses ``action`` whenever
        ``_apply`` does: the same checks)."""
        verb, _, rest = action.partition(" ")
        if verb == "handover":
            nxt = self._next_hops(cells[world.agent_index[rest.split(" ")[1]]], doors)[cells[agent]]
            if nxt >= 0:
                return nxt
        return cells[agent]

    def _catch_up(self, world: DKGWorld, state: DKGState, agent: int, action: str) -> str:
        """A handover whose recipient walked away: step towards the recipient instead."""
        verb, _, rest = action.partition(" ")
        if verb == "handover":
            to = world.agent_index[rest.split(" ")[1]]
            target = state.agent_cells[to]
            hops = self._next_hops(target, state.open_doors)
            nxt = hops[state.agent_cells[agent]]
            if nxt >= 0:
                return next(m for m, c in world.neighbors[state.agent_cells[agent]] if c == nxt)
        return "wait"
