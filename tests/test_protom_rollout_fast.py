"""ProToM's joint rollouts in Doors, Keys and Gems against the engine they replaced.

``ReferenceRollouts`` below is ``DKGRollouts`` as it was before three exact speedups (agents'
modes memoized per items-and-doors situation, rollouts after a structural event read off a memo
of event states, and pickups, unlocks and handovers applied without ``world.step``'s full
checks). Every rollout of the current engine must equal the reference's, on random reachable
states of several maps (the six- and eight-agent team halls and the ProToM halls, each also
with a short horizon so that rollouts are cut), random goal tuples, with no feedback task and
with every candidate's task. One engine of each kind serves a whole map, in the order the
states were visited, so that the caches (``_shifted``, the suffix memo) are exercised as a
facilitator exercises them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agents.dkg.planner import INF, DKGPlanner, Macro, Task
from agents.protom.core import Rollout
from agents.protom.dkg import DKGAdapter
from agents.protom.dkg_rollout import DKGRollouts
from agents.registry import make_agent, make_mechanism
from sim.dkg.world import DKGState, DKGWorld
from sim.registry import load_scenario
from sim.session import Session
from sim.world import IllegalAction

_IDLE, _STUCK, _WALK = 0, 1, 2


class ReferenceRollouts:
    """``agents.protom.dkg_rollout.DKGRollouts`` as it was before its per-situation mode memo,
    its event-state suffix memo and its direct structural steps, kept verbatim as the reference."""

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
        self.stats = {"rollouts": 0, "hits": 0, "events": 0, "shifted": 0}

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
        key = (state.turn, state.agent_cells, state.item_locs, state.open_doors, goals, extra)
        finish = self._cache.get(key)
        if finish is None:
            finish = self._shifted(state, goals, extra, key)
            if finish is None:
                finish = self._simulate(state, goals, extra, key)
            if len(self._cache) >= self._max_cached:
                self._cache.clear()
                self._first.clear()
            self._cache[key] = finish
        else:
            self.stats["hits"] += 1
        # Simulated with the full t_max horizon (so the cache ignores the clock); cap to what is left.
        return Rollout(finish, self.horizon).capped(max(0, self.world.t_max - state.t))

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
                for name in order:  # DKGPlanner.step_towards: the first improving move in this order
                    n = next((n for m, n in world.neighbors[c] if m == name), None)
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
        moved its agent one step the way the rollout walked it; None when it cannot be.

        Let s be the previous state (the same items and doors, the previous turn's agent m one
        cell back) and R(s) its cached rollout, which walked m towards its first macro's end cell
        (distance d >= 1) and ended with every agent done or nothing left to happen (not at the
        horizon). If ``state`` has m on that walk's next cell and every agent's first-event mode
        here equals R(s)'s (m's distance d - 1, the same feedback task pending), every agent's
        first structural action is one tick nearer, the agents stand on the same cells when it
        happens, and from there on both rollouts are the same: every finish tick is one less."""
        n = len(state.agent_cells)
        m = (state.turn - 1) % n
        here = state.agent_cells[m]
        for _, prev_cell in self.world.neighbors[here]:
            cells = state.agent_cells[:m] + (prev_cell,) + state.agent_cells[m + 1:]
            prev_key = ((state.turn - 1) % n, cells) + key[2:]
            info = self._first.get(prev_key)
            finish = self._cache.get(prev_key)
            if info is None or finish is None:
                continue
            modes, pending, whole = info
            mode = modes[m]
            if not whole or mode[0] != _WALK or mode[2] < 1 \
                    or self._next_hops(mode[1].end_cell, state.open_doors)[prev_cell] != here:
                continue
            now_modes, now_pending = self._first_event(state, goals, extra)
            if now_pending == pending and now_modes == modes[:m] + ((_WALK, mode[1], mode[2] - 1),) + modes[m + 1:]:
                self._first[key] = (now_modes, now_pending, True)
                self.stats["shifted"] += 1
                return tuple(f - 1 if f else f for f in finish)
        return None

    def _first_event(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None
                     ) -> tuple[tuple, tuple[bool, ...]]:
        """The agents' modes at a rollout's first event from ``state``, and which feedback task is
        still pending then (as ``_simulate`` computes them)."""
        n = len(goals)
        pending: list[Task | None] = [None] * n
        if extra is not None:
            pending[extra[0]] = extra[1]
        s = DKGState(t=0, turn=state.turn, agent_cells=state.agent_cells, item_locs=state.item_locs,
                     open_doors=state.open_doors, reached_at=state.reached_at)
        modes = self._modes(s, goals, [Task.hold(g) for g in goals], pending)[0]
        return tuple(modes), tuple(p is not None for p in pending)

    def _modes(self, s: DKGState, goals: tuple[int, ...], holds: list[Task], pending: list[Task | None]
               ) -> tuple[list[tuple], int, float]:
        """Every agent's mode in ``s`` (idle, stuck towards a cell, or walking d steps to its first
        macro's end cell), dropping pending tasks that are done or impossible; and the agent that
        acts first with the tick of its structural action (-1, INF: none)."""
        planner, singletons = self.planner, self._singletons
        n = len(goals)
        cells, locs, doors = s.agent_cells, s.item_locs, s.open_doors
        modes: list[tuple] = []
        best_i, best_tau = -1, INF
        for i in range(n):
            plan = None
            if pending[i] is not None:
                plan = planner.plan(s, i, pending[i])
                if plan.cost == 0 or plan.cost == INF:
                    pending[i], plan = None, None
            if plan is None:
                if locs[goals[i]] == -1 - i:
                    modes.append((_IDLE,))
                    continue
                plan = planner.plan(s, i, holds[i])
                if plan.cost == INF:
                    target = planner._task_cell(s, holds[i])
                    modes.append((_STUCK, target) if target is not None else (_IDLE,))
                    continue
            macro: Macro = plan.macros[0]
            here = cells[i]
            if here == macro.end_cell or (here in macro.cells and macro.action.startswith(("unlock", "handover"))):
                d = 0
            else:
                d = planner.distances(singletons[macro.end_cell], doors)[here]
                if d == INF:  # cannot happen for a plan made in this state; be safe
                    modes.append((_IDLE,))
                    continue
                d = int(d)
            modes.append((_WALK, macro, d))
            tau = (i - s.turn) % n + n * d  # the tick (from now) of its structural action
            if tau < best_tau:
                best_i, best_tau = i, tau
        return modes, best_i, best_tau

    def _simulate(self, state: DKGState, goals: tuple[int, ...], extra: tuple[int, Task] | None,
                  key: tuple | None = None) -> tuple[int | None, ...]:
        self.stats["rollouts"] += 1
        world = self._world_for(goals)
        agents = world.agents
        n = len(agents)
        horizon = self.horizon
        pending: list[Task | None] = [None] * n
        if extra is not None:
            pending[extra[0]] = extra[1]
        finish: list[int | None] = [0 if state.item_locs[g] == -1 - i else None for i, g in enumerate(goals)]
        # The clock restarts at 0 so that legality checks never see the episode's own t_max.
        s = DKGState(t=0, turn=state.turn, agent_cells=state.agent_cells, item_locs=state.item_locs,
                     open_doors=state.open_doors, reached_at=state.reached_at)
        now = 0
        holds = [Task.hold(g) for g in goals]
        first = True
        whole = True
        while not all(f is not None for f in finish):
            cells, locs, doors = s.agent_cells, s.item_locs, s.open_doors
            modes, best_i, best_tau = self._modes(s, goals, holds, pending)
            if first and key is not None:
                first_modes, first_pending = tuple(modes), tuple(p is not None for p in pending)
            first = False
            if best_i < 0 or now + best_tau + 1 > horizon:
                whole = best_i < 0
                break  # nothing will change any more, or not in time
            self.stats["events"] += 1
            tau = int(best_tau)
            new_cells = list(cells)
            for j in range(n):
                off = (j - s.turn) % n
                turns = 0 if tau <= off else -(-(tau - off) // n)  # own turns strictly before tick tau
                mode = modes[j]
                if mode[0] == _WALK:
                    new_cells[j] = self._walk(cells[j], self._next_hops(mode[1].end_cell, doors), min(turns, mode[2]))
                elif mode[0] == _STUCK:
                    new_cells[j] = self._walk(cells[j], self._descents(mode[1], doors), turns)
            mid = DKGState(t=s.t + tau, turn=best_i, agent_cells=tuple(new_cells), item_locs=locs,
                           open_doors=doors, reached_at=s.reached_at)
            action = modes[best_i][1].action
            name = agents[best_i]
            try:  # the step checks legality as legal_actions would, without listing every action
                s = world.step(mid, {name: action}).state
            except IllegalAction:
                s = world.step(mid, {name: self._catch_up(world, mid, best_i, action)}).state
            now += tau + 1
            for i, g in enumerate(goals):
                if finish[i] is None and s.item_locs[g] == -1 - i:
                    finish[i] = now
        if not first and key is not None:
            self._first[key] = (first_modes, first_pending, whole)
        return tuple(finish)

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


def _short(world: DKGWorld, t_max: int) -> DKGWorld:
    spec = dict(world.spec())
    spec["options"] = {**spec["options"], "t_max": t_max}
    return DKGWorld(spec)


def _walks(world: DKGWorld, rng: random.Random, walks: int, length: int) -> list[list[DKGState]]:
    """Random walks through legal actions (pickups, unlocks, handovers included): the states
    each one met, in order."""
    out = []
    for w in range(walks):
        state, met = world.reset(w), []
        for _ in range(rng.randrange(length // 2, length)):
            if world.done(state):
                break
            met.append(state)
            agent = world.agents[state.turn]
            legal = world.legal_actions(state, agent)
            structural = [a for a in legal if a.split(" ")[0] in ("pickup", "unlock", "handover")]
            action = rng.choice(structural) if structural and rng.random() < 0.5 else rng.choice(legal)
            state = world.step(state, {agent: action}).state
        out.append(met)
    return out


def _check(world: DKGWorld, seed: int, walks: int, length: int) -> dict:
    """Every rollout along random walks, for the walk's own goal tuple (as a facilitator asks
    tick after tick) and one drawn afresh at each state, with no feedback task, each candidate's
    task and one random open/give task."""
    rng = random.Random(seed)
    new, ref = DKGRollouts(world, DKGPlanner(world)), ReferenceRollouts(world, DKGPlanner(world))
    adapter = DKGAdapter(world)
    gems = [world.item_index[g] for g in world.gem_ids]
    n = len(world.agents)

    def draw() -> tuple[int, ...]:
        return tuple(rng.sample(gems, n)) if len(gems) >= n else tuple(rng.choice(gems) for _ in range(n))

    checked = 0
    for met in _walks(world, rng, walks, length):
        kept = draw()
        for state in met:
            extras: list = [None] + [adapter._extra(c) for c in adapter.candidates(state)]
            extras.append((rng.randrange(n), Task.open(rng.randrange(len(world.doors))) if world.doors
                           and rng.random() < 0.5 else Task.give(rng.randrange(len(world.items)), rng.randrange(n))))
            for goals in (kept, draw()):
                for extra in extras:
                    want = ref.run(state, goals, extra)
                    if checked % 2:  # ``length`` first, or after ``run`` (then read off the cache)
                        assert new.length(state, goals, extra) == want.length, (world.name, state, goals, extra)
                    got = new.run(state, goals, extra)
                    assert got == want, (world.name, state, goals, extra)
                    assert new.length(state, goals, extra) == want.length, (world.name, state, goals, extra)
                    checked += 1
    return {**new.stats, "checked": checked}


HALLS = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "scenarios" / "dkg").glob("protom-*.json"))
MAPS = ["team-01-six", "team-06-eight", *HALLS]


def _world(name: str) -> DKGWorld:
    world, _ = load_scenario(name)
    assert isinstance(world, DKGWorld)
    return world


@pytest.mark.parametrize("name", MAPS)
def test_rollouts_equal_the_reference(name: str) -> None:
    world = _world(name)
    big = len(world.agents) > 3
    stats = _check(world, seed=1, walks=2, length=(8 if len(world.agents) > 6 else 16) if big else 30)
    assert stats["checked"] > 0
    _check(_short(world, 12 if big else 8), seed=2, walks=2, length=10)  # rollouts cut by the horizon


def test_the_caches_are_exercised() -> None:
    stats = _check(_world("team-01-six"), seed=3, walks=1, length=24)
    assert stats["suffixes"] > 0 and stats["shifted"] > 0 and stats["tails"] > 0


def test_a_facilitators_cached_rollouts_equal_the_reference() -> None:
    """The rollouts a facilitator cached over an episode (shifted ones included) against the
    reference simulating each from scratch."""
    world, name = load_scenario("protom-10-trio-courier")
    fac = make_mechanism("protom", world.family, {})
    session = Session(world, {a: make_agent("boltzmann:temperature=0.5", world.family) for a in world.agents},
                      seed=0, scenario=name, mechanisms=[fac])
    session.run()
    engine = fac.adapter.rollouts
    ref = ReferenceRollouts(world, DKGPlanner(world))
    reached = world.reset(0).reached_at
    tasks = {number: task for task, number in engine._task_ids.items()}  # the keys name tasks by number
    for (turn, cells, locs, doors, goals, extra), finish in engine._cache.items():
        extra = None if extra is None else (extra[0], tasks[extra[1]])
        state = DKGState(t=0, turn=turn, agent_cells=cells, item_locs=locs, open_doors=doors, reached_at=reached)
        assert ref._simulate(state, goals, extra) == finish, (cells, goals, extra)
    assert engine.stats["shifted"] > 0 and engine.stats["suffixes"] > 0


def _event_states(engine: DKGRollouts) -> list[tuple[DKGState, tuple[int, ...], tuple[int, Task] | None]]:
    """The event states an engine's suffix memo holds, as queries (state, goals, feedback task)."""
    out = []
    tasks = {number: task for task, number in engine._task_ids.items()}  # the keys name tasks by number
    for turn, cells, locs, doors, goals, pending in engine._suffixes:
        extra = None if pending is None else (pending[0], tasks[pending[1]])  # the feedback task still pending
        state = DKGState(t=0, turn=turn, agent_cells=cells, item_locs=locs, open_doors=doors,
                         reached_at=(-1,) * len(cells))
        out.append((state, goals, extra))
    return out


@pytest.mark.parametrize("name,t_max", [("team-01-six", 40), ("protom-10-trio-courier", 20),
                                        ("protom-19-chain", 20), ("protom-10-trio-courier", 200)])
def test_suffixes_met_earlier_or_later_than_stored(name: str, t_max: int) -> None:
    """A rollout that reaches a stored event state sooner than the one that stored it has more
    ticks left (a suffix cut by the horizon may not do), one that reaches it later has fewer
    (a suffix read off must be cut to them): rollouts from the event states of a first one,
    queried after it and before it."""
    world = _short(_world(name), t_max)
    rng = random.Random(4)
    adapter = DKGAdapter(world)
    gems = [world.item_index[g] for g in world.gem_ids]
    n = len(world.agents)
    hits = 0
    for met in _walks(world, rng, 2, 12):
        for state in met[::3]:
            goals = tuple(rng.sample(gems, n)) if len(gems) >= n else tuple(rng.choice(gems) for _ in range(n))
            for extra in [None] + [adapter._extra(c) for c in adapter.candidates(state)][:3]:
                ref = ReferenceRollouts(world, DKGPlanner(world))
                first = DKGRollouts(world, DKGPlanner(world))
                assert first.run(state, goals, extra) == ref.run(state, goals, extra)
                later = _event_states(first)
                for query in later:  # met sooner than when stored
                    assert first.run(*query) == ref.run(*query), query
                hits += first.stats["suffixes"]
                before = DKGRollouts(world, DKGPlanner(world))
                for query in reversed(later):  # stored from the event states first, met later from the start
                    assert before.run(*query) == ref.run(*query), query
                assert before.run(state, goals, extra) == ref.run(state, goals, extra)
                hits += before.stats["suffixes"]
    assert hits > 0


def test_the_memos_hold_nothing_the_garbage_collector_walks() -> None:
    """The memos' keys and values are tuples of numbers and strings (a task by its number, a
    mode by its macro's end cell and action): after a collection none is tracked by Python's
    cyclic garbage collector, whose full collections would otherwise walk every entry in the
    middle of a decision (docs/protom.md, "The dearest decisions")."""
    import gc

    world, name = load_scenario("team-01-six")
    fac = make_mechanism("protom", world.family, {})
    session = Session(world, {a: make_agent("tom-planner:k=cycle", world.family) for a in world.agents},
                      seed=0, scenario=name, mechanisms=[fac])
    session.run(max_steps=16)
    session.stop()  # the episode ends: what it froze goes back to the collector (sim/collector.py)
    engine = fac.adapter.rollouts
    for _ in range(3):  # a tuple is untracked once the ones inside it are: one pass per level of nesting
        gc.collect()
    memos = {"_cache": engine._cache, "_first": engine._first, "_successors": engine._successors,
             "_suffixes": engine._suffixes, "_situations": engine._situations,
             "_situation_of": engine._situation_of}
    assert all(memos.values())
    for label, memo in memos.items():
        tracked = [k for k, v in memo.items() if gc.is_tracked(k) or gc.is_tracked(v)]
        assert not tracked, f"{label}: {len(tracked)} of {len(memo)} entries tracked, e.g. {tracked[0]!r:.300}"


@pytest.mark.parametrize("name", ["protom-05-trio", "team-01-six"])
def test_rollouts_with_shared_goals_equal_the_reference(name: str) -> None:
    """Goal tuples where agents are after the same gem (the engine takes any tuple, not only the
    exclusive hypotheses): the first to pick it up has it, the others are left stuck, also when
    every agent is on a straight walk (the last stretch computed at once must not apply)."""
    world = _world(name)
    rng = random.Random(5)
    new, ref = DKGRollouts(world, DKGPlanner(world)), ReferenceRollouts(world, DKGPlanner(world))
    adapter = DKGAdapter(world)
    gems = [world.item_index[g] for g in world.gem_ids]
    n = len(world.agents)
    checked = 0
    for met in _walks(world, rng, 2, 12):
        for state in met:
            one = rng.choice(gems)
            pair = list(rng.sample(gems, n)) if len(gems) >= n else [rng.choice(gems) for _ in range(n)]
            pair[1] = pair[0]
            for goals in ((one,) * n, tuple(pair)):
                for extra in [None] + [adapter._extra(c) for c in adapter.candidates(state)][:2]:
                    assert new.run(state, goals, extra) == ref.run(state, goals, extra), (name, state, goals, extra)
                    checked += 1
    assert checked > 0
