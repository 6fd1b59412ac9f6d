"""The sub-goal machinery every household agent shares: a memory of where objects were seen,
and the rule-based hierarchical planner of the references (RHP) with hooks for coordination.

RHP itself (``agents.household.rhp``) uses the rules as they are. Agents that know something of
their partners (from what they saw or were told) override the hooks:

- ``avoided_objects()``: objects a partner is going for (fetched only when nothing else is known);
- ``avoided_rooms()``: rooms a partner is exploring (explored only when no other room is left);
- ``done_rooms()``: rooms a partner explored and reported in full (not explored again for
  nothing; still visited to fetch what was reported there);
- ``partner_brings()``: object classes partners are bringing to household predicates (those
  units are not fetched twice).

With the default hooks (all empty) the rules, and the draws from the seat's random stream, are
exactly RHP's. An object known from a message is fetched like one seen: the agent walks to its
room and grabs it by name without exploring the room (the world allows it). When the report was
wrong the grab fails; the agent forgets the object (``forget``) and plans again.

Each choice sets ``rule`` (which rule applied), ``subgoal`` (in words) and ``intent``: what the
agent is about to do as a tuple, ``("fetch", object, room)``, ``("explore", room)``,
``("deliver", place, room)``, ``("look", receptacle, room)`` or ``("wander", room)``, which the
talking agents announce and their partners predict.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.household.world import HouseholdObservation, HouseholdWorld
from sim.seats import Agent, SeatContext
from sim.snapshots import Plan

TRANSPORT_GO_HOME_FRAME = 2300
TRANSPORT_CONTAINER_UNTIL = 1600

Intent = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Sighting:
    """Where the agent last saw an object: ``at`` is a place, a container or ``agent:<name>``;
    ``room`` is that room (None while another agent carries it out of sight). ``told`` is True
    when a partner reported it rather than the agent seeing it."""

    cls: str
    kind: str
    at: str
    room: str | None
    time: int
    told: bool = False


class SubgoalAgent(Agent):
    """RHP's rules over the agent's own memory, with coordination hooks (see the module)."""

    kind = ""

    def __init__(self, go_home_frame: int = TRANSPORT_GO_HOME_FRAME,
                 container_until: int = TRANSPORT_CONTAINER_UNTIL) -> None:
        if go_home_frame < 0 or container_until < 0:
            raise ValueError("go_home_frame and container_until are frames, expected >= 0")
        self.go_home_frame = go_home_frame
        self.container_until = container_until

    def reset(self, ctx: SeatContext) -> None:
        super().reset(ctx)
        if not isinstance(ctx.world, HouseholdWorld):
            raise TypeError(f"{self.kind or 'household'} agents play the household world, not {ctx.world.family}")
        self.world: HouseholdWorld = ctx.world
        self.me = ctx.agent_id
        self.partners: tuple[str, ...] = tuple(a for a in ctx.world.agents if a != ctx.agent_id)
        self.memory: dict[str, Sighting] = {}
        self.visited: dict[str, int] = {}
        self.looked_inside: set[str] = set()
        self.rule = ""
        self.subgoal = ""
        self.intent: Intent = ()
        self.planned = ""  # the latest physical action the rules chose
        #: decisions at which the agent read messages, and those whose plan the messages changed
        #: (measured by the talking agents, ``agents.household.coordination``; 0 for the silent ones)
        self.message_reads = 0
        self.message_changed_plan = 0
        # a receptacle's label tells everyone what it holds: the objects of the class it names are
        # believed there (as if told), until someone looks
        for place in self.world.places:
            if place.label:
                for obj in self.world.objects:
                    if obj.cls == place.label:
                        self.memory[obj.id] = Sighting(obj.cls, obj.kind, place.id, self.world.room_ids[place.room],
                                                       -1, told=True)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "go_home_frame": self.go_home_frame, "container_until": self.container_until}

    def belief_snapshots(self) -> Sequence[tuple[str, dict[str, Any]]]:
        return (("plan", Plan(rule=self.rule, subgoal=self.subgoal)),)

    def counters(self) -> dict[str, int]:
        return {"message_reads": self.message_reads, "message_changed_plan": self.message_changed_plan}

    # ------------------------------------------------------------------ coordination hooks

    def avoided_objects(self) -> set[str]:
        return set()

    def avoided_rooms(self) -> set[str]:
        return set()

    def done_rooms(self) -> set[str]:
        return set()

    def partner_brings(self) -> list[str]:
        return []

    # ------------------------------------------------------------------ memory

    def forget(self, oid: str) -> None:
        """The agent learnt that ``oid`` is not where it believed (a grab of it failed)."""
        self.memory.pop(oid, None)

    def remember(self, obs: HouseholdObservation) -> None:
        world = self.world
        room = obs.room
        self.visited[room] = obs.time
        # a failed grab names its object first ("apple_1 is not in kitchen"): a report was wrong,
        # or someone took it; the agent no longer believes it is there
        failed = obs.last_failure.split(" ", 1)[0] if obs.last_failure else ""
        if failed in world.object_index and failed not in {o.id for o in obs.objects}:
            self.forget(failed)
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

    def hear(self, oid: str, at: str, time: int) -> None:
        """A partner reported object ``oid`` at ``at`` (a place, a container or ``agent:<name>``).
        What the agent saw itself since then wins over an older report."""
        world = self.world
        if oid not in world.object_index:
            return
        old = self.memory.get(oid)
        if old is not None and (old.at == f"agent:{self.me}" or not old.told and old.time > time):
            return  # what it holds, or saw itself since, it knows better
        obj = world.objects[world.object_index[oid]]
        if at.startswith("agent:"):
            room = None
        elif at in world.place_index:
            room = world.room_ids[world.places[world.place_index[at]].room]
        elif at in world.object_index:
            holder = self.memory.get(at)
            room = holder.room if holder is not None else None
        else:
            return
        self.memory[oid] = Sighting(obj.cls, obj.kind, at, room, time, told=True)

    # ------------------------------------------------------------------ helpers

    def distance(self, a: str, b: str) -> float:
        w = self.world
        return w.distance[w.room_index[a]][w.room_index[b]]

    def _nearest(self, here: str, candidates: list[tuple[str, str]]) -> tuple[str, str] | None:
        """The (thing, room) pair closest to ``here``; ties drawn from the seat's random stream."""
        if not candidates:
            return None
        best = min(self.distance(here, room) for _, room in candidates)
        ties = sorted(c for c in candidates if self.distance(here, c[1]) <= best + 1e-9)
        return ties[int(self.ctx.rng.integers(len(ties)))]

    def _set(self, rule: str, subgoal: str, action: str, intent: Intent = ()) -> str:
        self.rule, self.subgoal, self.intent = rule, subgoal, intent
        return action

    def _fetch(self, obs: HouseholdObservation, rule: str, oid: str, room: str) -> str:
        """Walk to ``room``, open the receptacle the object is believed in if that is closed (e.g. a
        labelled jar), grab (by name: a reported object needs no exploring first)."""
        intent = ("fetch", oid, room)
        if room != obs.room:
            return self._set(rule, oid, f"walk {room}", intent)
        seen = self.memory.get(oid)
        at = seen.at if seen is not None else ""
        if at in self.world.place_index and not dict(obs.receptacles).get(at, True):
            return self._set(rule, oid, f"open {at}", intent)
        return self._set(rule, oid, f"grab {oid}", intent)

    def _rooms_to_explore(self, obs: HouseholdObservation, avoid: set[str]) -> list[tuple[str, str]]:
        done = self.done_rooms()
        return [(r, r) for r in self.world.room_ids
                if r not in obs.explored and r != obs.room and r not in avoid and r not in done]

    def _revisit(self, obs: HouseholdObservation) -> str:
        others = [r for r in self.world.room_ids if r != obs.room]
        oldest = min(self.visited.get(r, -1) for r in others)
        stale = sorted(r for r in others if self.visited.get(r, -1) == oldest)
        room = stale[int(self.ctx.rng.integers(len(stale)))]
        return self._set("look again", "", f"walk {room}", ("wander", room))

    # ------------------------------------------------------------------ acting

    def act(self, observation: HouseholdObservation, legal_actions: Sequence[str]) -> str:
        self.remember(observation)
        return self.plan(observation)

    def plan(self, obs: HouseholdObservation) -> str:
        """The next physical action under the rules (messages are the subclasses' business)."""
        self.planned = self._transport(obs) if obs.task == "transport" else self._household(obs)
        return self.planned

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
            intent = ("deliver", goal_place, goal_room)
            if obs.room != goal_room:
                return self._set(rule, f"carry to {goal_place}", f"walk {goal_room}", intent)
            return self._set(rule, f"put down at {goal_place}", f"put {held[0]} {goal_place}", intent)

        if obs.time >= self.go_home_frame and held:
            return to_bed("late: bring what is held to the bed")
        capacity = world.objects[world.object_index[container]].capacity if container is not None else 0
        if container is not None and loose_target is not None and len(inside) < capacity:
            return self._set("target into container", container, f"putin {loose_target} {container}",
                             ("pack", loose_target, obs.room))
        if container is not None and len(inside) >= capacity:
            return to_bed("container full")
        if len(held) == 2:
            return to_bed("hands full")

        avoid = self.avoided_objects()

        def free(kind: str, avoided: bool) -> list[tuple[str, str]]:
            return [(oid, s.room) for oid, s in mem.items()
                    if s.kind == kind and s.room is not None and s.at in world.place_index and s.at != goal_place
                    and (oid in avoid) == avoided]

        if obs.time < self.container_until and container is None:
            pick = self._nearest(obs.room, free("container", False))
            if pick is not None:
                return self._fetch(obs, "find a container first", *pick)
        pick = self._nearest(obs.room, free("target", False))
        if pick is not None:
            return self._fetch(obs, "find a target", *pick)
        if not obs.room_explored and obs.room not in self.done_rooms():
            return self._set("explore", obs.room, "explore", ("explore", obs.room))
        avoid_rooms = self.avoided_rooms()
        pick = self._nearest(obs.room, self._rooms_to_explore(obs, avoid_rooms))
        if pick is not None:
            return self._set("explore", pick[1], f"walk {pick[1]}", ("explore", pick[1]))
        # what is left is what the partners are busy with: share their work rather than idle
        pick = self._nearest(obs.room, free("target", True))
        if pick is not None:
            return self._fetch(obs, "find a target a partner is after", *pick)
        if avoid_rooms:
            if not obs.room_explored and obs.room in avoid_rooms:
                return self._set("explore", obs.room, "explore", ("explore", obs.room))
            pick = self._nearest(obs.room, self._rooms_to_explore(obs, set()))
            if pick is not None:
                return self._set("explore a room a partner is after", pick[1], f"walk {pick[1]}",
                                 ("explore", pick[1]))
        if held:
            return to_bed("nothing left to find: deliver")
        return self._revisit(obs)

    def household_needs(self, obs: HouseholdObservation) -> tuple[dict[str, tuple], set[str]]:
        """Which held object serves which predicate, and the object classes still wanted."""
        mem = self.memory
        held = [h for h in obs.holding if h is not None]
        predicates = list(obs.goal)

        def placed(pred: tuple) -> int:
            _, cls, place, _ = pred
            return sum(1 for s in mem.values() if s.cls == cls and s.at == place)

        serving: dict[str, tuple] = {}
        for pred in predicates:
            need = pred[3] - placed(pred)
            for h in held:
                if need > 0 and h not in serving and mem[h].cls == pred[1]:
                    serving[h] = pred
                    need -= 1
        carried = [serving[h][1] for h in serving] + self.partner_brings()
        wanted = {p[1] for p in predicates if p[3] - placed(p) - carried.count(p[1]) > 0}
        return serving, wanted

    def _household(self, obs: HouseholdObservation) -> str:
        world = self.world
        mem = self.memory
        held = [h for h in obs.holding if h is not None]
        goal_places = {(cls, place) for _, cls, place, _ in obs.goal}
        serving, wanted = self.household_needs(obs)
        avoid = self.avoided_objects()

        def available(cls_set: set[str], avoided: bool = False) -> list[tuple[str, str]]:
            out = []
            for oid, s in mem.items():
                if s.cls in cls_set and s.room is not None and not s.at.startswith("agent:") \
                        and (s.cls, s.at) not in goal_places and (oid in avoid) == avoided:
                    out.append((oid, s.room))
            return out

        # 1. deliver what a predicate still needs; on the way, fill the other hand from this room
        for h in held:
            if h not in serving:
                continue
            relation, _, place, _ = serving[h]
            room = world.room_of_place(place)
            intent = ("deliver", place, room)
            if room != obs.room:
                if None in obs.holding:  # what is in view, or known to lie here out of a closed receptacle
                    in_view = {o.id for o in obs.objects}
                    closed = {p for p, is_open in obs.receptacles if not is_open}
                    extra = sorted(c for c in available(wanted) if c[1] == obs.room
                                   and (c[0] in in_view or mem[c[0]].at not in closed))
                    if extra:
                        return self._set("grab a second needed object", extra[0][0], f"grab {extra[0][0]}",
                                         ("fetch", extra[0][0], obs.room))
                return self._set("deliver", f"{h} -> {place}", f"walk {room}", intent)
            if relation == "IN":
                if not dict(obs.receptacles).get(place, True):
                    return self._set("deliver", f"open {place}", f"open {place}", intent)
                return self._set("deliver", f"{h} -> {place}", f"putin {h} {place}", intent)
            return self._set("deliver", f"{h} -> {place}", f"put {h} {place}", intent)
        # 2. set down what is no longer needed
        if held:
            return self._set("set down", held[0], f"put {held[0]} {obs.room}_floor", ("set down", held[0]))
        # 3. fetch the nearest known needed object (one a partner is after only when nothing else)
        pick = self._nearest(obs.room, available(wanted))
        if pick is None and not self._household_search_left(obs, self.avoided_rooms()):
            pick = self._nearest(obs.room, available(wanted, avoided=True))
        if pick is not None:
            oid, room = pick
            intent = ("fetch", oid, room)
            if room != obs.room:
                return self._set("fetch", oid, f"walk {room}", intent)
            at = mem[oid].at
            if at in world.place_index and world.places[world.place_index[at]].openable \
                    and not dict(obs.receptacles).get(at, True):
                return self._set("fetch", oid, f"open {at}", intent)
            return self._set("fetch", oid, f"grab {oid}", intent)
        # 4. explore: the room, then its closed receptacles, then the nearest room left to look at
        done = self.done_rooms()
        if not obs.room_explored and obs.room not in done:
            return self._set("explore", obs.room, "explore", ("explore", obs.room))
        closed = sorted(p for p, is_open in obs.receptacles if not is_open and p not in self.looked_inside)
        if closed and obs.room not in done:
            return self._set("look inside", closed[0], f"open {closed[0]}", ("look", closed[0], obs.room))
        avoid_rooms = self.avoided_rooms()
        for avoided in (avoid_rooms, set()):
            left = [(r, r) for r in self._household_search_left(obs, avoided)]
            pick = self._nearest(obs.room, left)
            if pick is not None:
                return self._set("explore", pick[1], f"walk {pick[1]}", ("explore", pick[1]))
            if not avoided:
                break
        return self._revisit(obs)

    def _household_search_left(self, obs: HouseholdObservation, avoid: set[str]) -> list[str]:
        """Rooms other than this one with something left to look at (unexplored, or a receptacle
        not yet looked into), leaving out ``avoid`` and rooms partners reported in full."""
        world = self.world
        done = self.done_rooms()
        return [r for r in world.room_ids if r != obs.room and r not in avoid and r not in done and (
            r not in obs.explored or any(world.places[p].openable and world.places[p].id not in self.looked_inside
                                         for p in world.places_in_room[world.room_index[r]]))]
