"""MHP for the household world: Monte Carlo tree search over sub-goals with a per-object location
belief (after the MCTS-based hierarchical planner of the Watch-And-Help references). It never talks.

**Belief.** Objects the agent has seen are where it last saw them (the shared memory of
``agents.household.planner``). Objects it has not seen yet (transport: the task's targets not yet
seen; household: predicate units with no known object) are spread over the rooms left to look at,
in proportion to the places there (surfaces and receptacles where things can lie).

**Search.** The options at a decision are sub-goals: ``fetch`` a known object (a target, a
container, a needed object), ``explore`` a room left to look at (household: and open its
receptacles), ``deliver`` what is held. A sub-goal's cost is the world's own (walking by the door
path, exploring, grabbing, packing, putting); exploring a room draws how many unseen objects are
found there from the belief. UCT (c = 1.4) runs ``simulations`` simulations of up to ``depth``
sub-goals with random roll-outs; the return is the number of goals reached within the budget,
each weighted by how early (1 - 0.2 * time / budget). The most visited first sub-goal is carried
out with the planner's low-level steps, and kept until it is done or void (then the next search). Two rules come before the search, as in RHP: a held target
goes into a held container, and after the go-home frame what is held goes to the goal.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import Field

from agents.household.planner import SubgoalAgent
from sim.household.world import HouseholdObservation
from sim.snapshots import Plan

Option = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SimState:
    room: str
    time: int
    carrying: int              # goal objects held (loose or packed)
    container: bool            # a container in hand (transport)
    known: tuple[tuple[str, str, str], ...]   # (object, room, kind) still to fetch
    hidden: tuple[tuple[str, float], ...]     # (room, expected unseen goal objects)
    reward: float


class MHPAgent(SubgoalAgent):
    """MCTS over sub-goals with a location belief; RHP's low-level steps carry the chosen one out."""

    kind = "mhp"

    def __init__(self, simulations: Annotated[int, Field(ge=1, le=100_000)] = 60,
                 depth: Annotated[int, Field(ge=1, le=1000)] = 6, **planner: Any) -> None:
        super().__init__(**planner)
        if int(simulations) < 1 or int(depth) < 1:
            raise ValueError(f"mhp: simulations={simulations!r}, depth={depth!r}; expected at least 1 each")
        self.simulations, self.depth = int(simulations), int(depth)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": self.kind, "simulations": self.simulations, "depth": self.depth}

    def reset(self, ctx: Any) -> None:
        super().reset(ctx)
        self._committed: Option | None = None
        self._hidden: tuple[tuple[str, float], ...] = ()

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return (("plan", Plan(rule=self.rule, subgoal=self.subgoal,
                              extra={"belief": {r: round(v, 3) for r, v in self._hidden}})),)

    # ------------------------------------------------------------------ belief

    def _cost(self, verb: str) -> int:
        return max(1, int(self.world.costs[verb]))

    def _walk(self, a: str, b: str) -> int:
        return 0 if a == b else self.world.walk_cost(a, b)

    def belief(self, obs: HouseholdObservation) -> SimState:
        w, mem = self.world, self.memory
        held = [h for h in obs.holding if h is not None]
        container = any(mem[h].kind == "container" for h in held)
        if obs.task == "transport":
            goal = obs.goal[0]
            seen_targets = sum(1 for s in mem.values() if s.kind == "target")
            carrying = sum(1 for oid, s in mem.items() if s.kind == "target" and (
                s.at == f"agent:{self.me}" or s.at in held))
            known = tuple(sorted((oid, s.room, s.kind) for oid, s in mem.items()
                                 if s.room and s.at in w.place_index and s.at != goal
                                 and s.kind in ("target", "container")))
            unseen = max(0, w.total_goals - seen_targets)
            left = [r for r in w.room_ids if r not in obs.explored]
        else:
            serving, wanted = self.household_needs(obs)
            carrying = len(serving)
            goal_places = {(cls, place) for _, cls, place, _ in obs.goal}
            known = tuple(sorted((oid, s.room, "target") for oid, s in mem.items()
                                 if s.cls in wanted and s.room and not s.at.startswith("agent:")
                                 and (s.cls, s.at) not in goal_places))
            known_classes = {mem[o].cls for o, _, _ in known}
            unseen = sum(1 for _, cls, _, _ in obs.goal if cls in wanted and cls not in known_classes)
            closed_here = any(not is_open and p not in self.looked_inside for p, is_open in obs.receptacles)
            here = [obs.room] if not obs.room_explored or closed_here else []
            left = self._household_search_left(obs, set()) + here
        weights = {r: 1 + len(w.places_in_room[w.room_index[r]]) for r in left}
        total = sum(weights.values())
        hidden = tuple((r, unseen * v / total) for r, v in sorted(weights.items())) if total else ()
        self._hidden = hidden
        return SimState(obs.room, obs.time, carrying, container, known, hidden, 0.0)

    # ------------------------------------------------------------------ the abstract model

    def options(self, s: SimState, task: str) -> list[Option]:
        capacity = (4 if s.container else 2) if task == "transport" else 2
        out: list[Option] = []
        if s.carrying:
            out.append(("deliver",))
        if s.carrying < capacity:
            near = sorted(s.known, key=lambda k: (self._walk(s.room, k[1]), k[0]))
            out += [("fetch", oid, room, kind) for oid, room, kind in near[:4]
                    if kind != "container" or (not s.container and s.carrying < 2)]
        rooms = sorted(s.hidden, key=lambda h: (self._walk(s.room, h[0]), h[0]))
        out += [("explore", r) for r, v in rooms[:4] if v > 0.05]
        return out

    def apply(self, s: SimState, option: Option, task: str, rng: Any) -> SimState:
        w = self.world
        if option[0] == "deliver":
            if task == "transport":
                goal_room = w.room_of_place(w.places[w.goal_place].id)  # type: ignore[index]
                puts = 1 if s.container else s.carrying
            else:
                goal_room = w.room_ids[w.places[w.predicates[0][2]].room]
                puts = s.carrying + 1
            t = s.time + self._walk(s.room, goal_room) + puts * self._cost("put")
            gained = s.carrying * (1 - 0.2 * t / w.budget) if t <= w.budget else 0.0
            return replace(s, room=goal_room, time=t, carrying=0, container=False, reward=s.reward + gained)
        if option[0] == "fetch":
            _, oid, room, kind = option
            t = s.time + self._walk(s.room, room) + self._cost("grab")
            known = tuple(k for k in s.known if k[0] != oid)
            if kind == "container":
                return replace(s, room=room, time=t, container=True, known=known)
            if s.container:
                t += self._cost("putin")
            return replace(s, room=room, time=t, carrying=s.carrying + 1, known=known)
        room = option[1]
        t = s.time + self._walk(s.room, room) + self._cost("explore")
        if task == "household":
            t += sum(1 for p in w.places_in_room[w.room_index[room]] if w.places[p].openable)
        expected = dict(s.hidden).get(room, 0.0)
        found = int(expected) + (1 if rng.random() < expected - int(expected) else 0)
        known = s.known + tuple((f"?{room}{i}", room, "target") for i in range(found))
        hidden = tuple(h for h in s.hidden if h[0] != room)
        return replace(s, room=room, time=t, known=known, hidden=hidden)

    def search(self, root: SimState, task: str) -> Option | None:
        rng = self.ctx.rng
        budget = self.world.budget
        stats: dict[tuple, list[float]] = {}  # path -> [visits, total return]
        first = self.options(root, task)
        if not first:
            return None
        for _ in range(self.simulations):
            s, path = root, ()
            for depth in range(self.depth):
                opts = self.options(s, task)
                if not opts or s.time >= budget:
                    break
                untried = [o for o in opts if path + (o,) not in stats]
                if untried:
                    o = untried[int(rng.integers(len(untried)))]
                else:
                    n = stats[path][0] if path in stats else 1
                    o = max(opts, key=lambda o: stats[path + (o,)][1] / stats[path + (o,)][0]
                            + 1.4 * math.sqrt(math.log(n + 1) / stats[path + (o,)][0]))
                s = self.apply(s, o, task, rng)
                path = path + (o,)
                if path not in stats:
                    break
            for _ in range(self.depth):  # random roll-out
                opts = self.options(s, task)
                if not opts or s.time >= budget:
                    break
                s = self.apply(s, opts[int(rng.integers(len(opts)))], task, rng)
            value = s.reward
            for k in range(len(path) + 1):
                entry = stats.setdefault(path[:k], [0, 0.0])
                entry[0] += 1
                entry[1] += value
        return max(first, key=lambda o: (stats.get((o,), [0, 0.0])[0], -first.index(o)))

    # ------------------------------------------------------------------ acting

    def plan(self, obs: HouseholdObservation) -> str:
        w, mem = self.world, self.memory
        held = [h for h in obs.holding if h is not None]
        if obs.task == "transport":
            container = next((h for h in held if mem[h].kind == "container"), None)
            loose = next((h for h in held if mem[h].kind == "target"), None)
            inside = sum(1 for s in mem.values() if container is not None and s.at == container)
            if container and loose and inside < 3:
                return self._set("target into container", container, f"putin {loose} {container}",
                                 ("pack", loose, obs.room))
            if obs.time >= self.go_home_frame and held:
                return super().plan(obs)  # RHP's late rule: to the bed
        root = self.belief(obs)
        option = self._committed if self._committed in self.options(root, obs.task) else None
        if option is None:  # the sub-goal under way is done or void: search for the next one
            option = self.search(root, obs.task)
        self._committed = option
        if option is None:
            return super().plan(obs)
        if option[0] == "fetch":
            return self._fetch(obs, "mcts: fetch", option[1], option[2])
        if option[0] == "explore":
            room = option[1]
            if room != obs.room:
                return self._set("mcts: explore", room, f"walk {room}", ("explore", room))
            if not obs.room_explored:
                return self._set("mcts: explore", room, "explore", ("explore", room))
            closed = sorted(p for p, is_open in obs.receptacles if not is_open and p not in self.looked_inside)
            if closed:
                return self._set("mcts: look inside", closed[0], f"open {closed[0]}", ("look", closed[0], room))
            return super().plan(obs)
        if obs.task == "transport" and held:
            goal = obs.goal[0]
            goal_room = w.room_of_place(goal)
            intent = ("deliver", goal, goal_room)
            if obs.room != goal_room:
                return self._set("mcts: deliver", goal, f"walk {goal_room}", intent)
            return self._set("mcts: deliver", goal, f"put {held[0]} {goal}", intent)
        return super().plan(obs)  # household: RHP's delivery steps
