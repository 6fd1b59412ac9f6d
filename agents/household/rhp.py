"""RHP: the rule-based hierarchical planner of the TDW-MAT and C-WAH references, for the household world.

A fixed list of rules picks a sub-goal from what the agent has seen; it never talks. The agent keeps
its own memory of where it last saw each object (nothing it has not observed), and corrects it when
a room it looks at no longer holds what it remembered. Ties (two rooms at the same distance) are
broken with the seat's random stream, so an episode is determined by the Session seed.

Transport rules, first that applies (after the references' RHP):

1. after frame 2300, go to the bed if holding anything;
2. holding a container with room and a target in the other hand: put the target in;
3. with a container holding 3, go to the bed;
4. with both hands full, go to the bed;
5. before frame 1600, without a container, fetch the nearest known free container;
6. otherwise fetch the nearest known target;
7. explore: the current room if not yet explored, else the nearest unexplored room;
8. with nothing known and everything explored: bring what is held to the bed, else revisit the room
   seen longest ago (its objects may have changed).

Household rules, the same scheme with the task's predicates: deliver a held object that a predicate
still needs (open the receptacle first; grab a second needed object from the same room on the way);
set down an object no longer needed; fetch the nearest known needed object (opening its receptacle);
explore the current room, then look inside its closed receptacles one by one, then go to the nearest
room with something left to look at; else revisit the room seen longest ago.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.household.world import HouseholdObservation, HouseholdWorld
from sim.seats import Agent, SeatContext

TRANSPORT_GO_HOME_FRAME = 2300
TRANSPORT_CONTAINER_UNTIL = 1600


@dataclass(frozen=True, slots=True)
class Sighting:
    """Where the agent last saw an object: ``at`` is a place, a container or ``agent:<name>``;
    ``room`` is that room (None while another agent carries it out of sight)."""

    cls: str
    kind: str
    at: str
    room: str | None
    time: int


class RHPAgent(Agent):
    """The rule-based hierarchical planner (never communicates)."""

    kind = "rhp"

    def __init__(self, go_home_frame: int = TRANSPORT_GO_HOME_FRAME,
                 container_until: int = TRANSPORT_CONTAINER_UNTIL) -> None:
        if go_home_frame < 0 or container_until < 0:
            raise ValueError("go_home_frame and container_until are frames, expected >= 0")
        self.go_home_frame = go_home_frame
        self.container_until = container_until

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, HouseholdWorld):
            raise TypeError(f"rhp agents play the household world, not {ctx.world.family}")
        self.world: HouseholdWorld = ctx.world
        self.me = ctx.agent_id
        self.memory: dict[str, Sighting] = {}
        self.visited: dict[str, int] = {}
        self.looked_inside: set[str] = set()
        self.rule = ""
        self.subgoal = ""

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "go_home_frame": self.go_home_frame, "container_until": self.container_until}

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return (("plan", {"rule": self.rule, "subgoal": self.subgoal}),)

    # ------------------------------------------------------------------ memory

    def _remember(self, obs: HouseholdObservation) -> None:
        world = self.world
        room = obs.room
        self.visited[room] = obs.time
        seen = {o.id: o for o in obs.objects}
        open_here = {p for p, is_open in obs.receptacles if is_open}
        if obs.room_explored:
            self.looked_inside |= open_here
            # whatever should be in view here but is not has been moved by someone
            for oid, s in list(self.memory.items()):
                if oid in seen or s.room != room:
                    continue
                holder = s.at if s.at in world.place_index else self.memory.get(s.at, s).at
                if holder in world.place_index and (not world.places[world.place_index[holder]].openable
                                                    or holder in open_here):
                    del self.memory[oid]
        partners_here = {name for name, _ in obs.partners}
        for oid, s in list(self.memory.items()):  # a partner seen without it no longer carries it
            if s.at.startswith("agent:") and s.at[6:] in partners_here and oid not in seen:
                del self.memory[oid]
        for o in obs.objects:
            carried_away = o.at.startswith("agent:") and o.at != f"agent:{self.me}"
            self.memory[o.id] = Sighting(o.cls, o.kind, o.at, None if carried_away else room, obs.time)

    # ------------------------------------------------------------------ helpers

    def _distance(self, a: str, b: str) -> float:
        w = self.world
        return w.distance[w.room_index[a]][w.room_index[b]]

    def _nearest(self, here: str, candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
        """The (thing, room) pair closest to ``here``; ties drawn from the seat's random stream."""
        if not candidates:
            return None
        best = min(self._distance(here, room) for _, room in candidates)
        ties = sorted(c for c in candidates if self._distance(here, c[1]) <= best + 1e-9)
        return ties[int(self.ctx.rng.integers(len(ties)))]

    def _go(self, here: str, room: str, then: str) -> str:
        return then if room == here else f"walk {room}"

    def _set(self, rule: str, subgoal: str, action: str) -> str:
        self.rule, self.subgoal = rule, subgoal
        return action

    def _unexplored_room(self, obs: HouseholdObservation) -> str | None:
        rooms = [(r, r) for r in self.world.room_ids if r not in obs.explored and r != obs.room]
        pick = self._nearest(obs.room, rooms)
        return pick[1] if pick else None

    def _revisit(self, obs: HouseholdObservation) -> str:
        others = [r for r in self.world.room_ids if r != obs.room]
        oldest = min(self.visited.get(r, -1) for r in others)
        stale = sorted(r for r in others if self.visited.get(r, -1) == oldest)
        return f"walk {stale[int(self.ctx.rng.integers(len(stale)))]}"

    # ------------------------------------------------------------------ acting

    def act(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        self._remember(observation)
        if observation.task == "transport":
            return self._transport(observation)
        return self._household(observation)

    def _transport(self, obs: HouseholdObservation) -> str:
        world = self.world
        goal_place = obs.goal[0]
        goal_room = world.room_of_place(goal_place)
        held = [h for h in obs.holding if h is not None]
        mem = self.memory
        container = next((h for h in held if mem[h].kind == "container"), None)
        inside = [oid for oid, s in mem.items() if container is not None and s.at == container]
        loose_target = next((h for h in held if mem[h].kind == "target"), None)

        def to_bed(rule: str) -> str:
            if obs.room != goal_room:
                return self._set(rule, f"carry to {goal_place}", f"walk {goal_room}")
            return self._set(rule, f"put down at {goal_place}", f"put {held[0]} {goal_place}")

        if obs.time >= self.go_home_frame and held:
            return to_bed("late: bring what is held to the bed")
        if container is not None and loose_target is not None and len(inside) < world.objects[world.object_index[container]].capacity:
            return self._set("target into container", container, f"putin {loose_target} {container}")
        if container is not None and len(inside) >= world.objects[world.object_index[container]].capacity:
            return to_bed("container full")
        if len(held) == 2:
            return to_bed("hands full")

        def free(kind: str) -> list[tuple[str, str]]:
            return [(oid, s.room) for oid, s in mem.items()
                    if s.kind == kind and s.room is not None and s.at in world.place_index and s.at != goal_place]

        if obs.time < self.container_until and container is None:
            pick = self._nearest(obs.room, free("container"))
            if pick is not None:
                return self._set("find a container first", pick[0], self._go(obs.room, pick[1], f"grab {pick[0]}"))
        pick = self._nearest(obs.room, free("target"))
        if pick is not None:
            return self._set("find a target", pick[0], self._go(obs.room, pick[1], f"grab {pick[0]}"))
        if not obs.room_explored:
            return self._set("explore", obs.room, "explore")
        room = self._unexplored_room(obs)
        if room is not None:
            return self._set("explore", room, f"walk {room}")
        if held:
            return to_bed("nothing left to find: deliver")
        return self._set("look again", "", self._revisit(obs))

    def _household(self, obs: HouseholdObservation) -> str:
        world = self.world
        mem = self.memory
        held = [h for h in obs.holding if h is not None]
        predicates = list(obs.goal)  # (relation, class, place, count)
        goal_places = {(cls, place) for _, cls, place, _ in predicates}

        def placed(pred: tuple) -> int:
            _, cls, place, _ = pred
            return sum(1 for s in mem.values() if s.cls == cls and s.at == place)

        # which held object serves which predicate (in hand order, while the predicate needs more)
        serving: dict[str, tuple] = {}
        for pred in predicates:
            need = pred[3] - placed(pred)
            for h in held:
                if need > 0 and h not in serving and mem[h].cls == pred[1]:
                    serving[h] = pred
                    need -= 1

        def wanted_classes() -> set[str]:
            carried = [serving[h][1] for h in serving]
            return {p[1] for p in predicates if p[3] - placed(p) - carried.count(p[1]) > 0}

        def available(cls_set: set[str]) -> list[tuple[str, str]]:
            out = []
            for oid, s in mem.items():
                if s.cls in cls_set and s.room is not None and not s.at.startswith("agent:") \
                        and (s.cls, s.at) not in goal_places:
                    out.append((oid, s.room))
            return out

        # 1. deliver what a predicate still needs; on the way, fill the other hand from this room
        for h in held:
            if h not in serving:
                continue
            relation, _, place, _ = serving[h]
            room = world.room_of_place(place)
            if room != obs.room:
                if None in obs.holding:
                    in_view = {o.id for o in obs.objects}
                    extra = sorted(c for c in available(wanted_classes()) if c[1] == obs.room and c[0] in in_view)
                    if extra:
                        return self._set("grab a second needed object", extra[0][0], f"grab {extra[0][0]}")
                return self._set("deliver", f"{h} -> {place}", f"walk {room}")
            if relation == "IN":
                if not dict(obs.receptacles).get(place, True):
                    return self._set("deliver", f"open {place}", f"open {place}")
                return self._set("deliver", f"{h} -> {place}", f"putin {h} {place}")
            return self._set("deliver", f"{h} -> {place}", f"put {h} {place}")
        # 2. set down what is no longer needed
        if held:
            return self._set("set down", held[0], f"put {held[0]} {obs.room}_floor")
        # 3. fetch the nearest known needed object
        pick = self._nearest(obs.room, available(wanted_classes()))
        if pick is not None:
            oid, room = pick
            if room != obs.room:
                return self._set("fetch", oid, f"walk {room}")
            at = mem[oid].at
            if at in world.place_index and world.places[world.place_index[at]].openable \
                    and not dict(obs.receptacles).get(at, True):
                return self._set("fetch", oid, f"open {at}")
            return self._set("fetch", oid, f"grab {oid}")
        # 4. explore: the room, then its closed receptacles, then the nearest room left to look at
        if not obs.room_explored:
            return self._set("explore", obs.room, "explore")
        closed = sorted(p for p, is_open in obs.receptacles if not is_open and p not in self.looked_inside)
        if closed:
            return self._set("look inside", closed[0], f"open {closed[0]}")
        left = [(r, r) for r in world.room_ids if r != obs.room and (
            r not in obs.explored or any(world.places[p].openable and world.places[p].id not in self.looked_inside
                                         for p in world.places_in_room[world.room_index[r]]))]
        pick = self._nearest(obs.room, left)
        if pick is not None:
            return self._set("explore", pick[1], f"walk {pick[1]}")
        return self._set("look again", "", self._revisit(obs))
