"""A 2D household for embodied cooperation, after TDW-MAT (transport) and C-WAH (household tasks).

The house is a graph of rooms joined by doors, with places in the rooms (surfaces such as tables
and the bed, openable receptacles such as the fridge, and each room's floor) and objects on or in
those places. Positions are symbolic: an agent is in a room; 2D coordinates serve walking costs and
drawing only. Each agent has two hands; a container (transport) holds up to its capacity (3).

Two kinds of task share the rules:

- **transport** (TDW-MAT-like): carry every target to the goal place (the bed) within a budget of
  frames (3000). Each action costs frames (``TRANSPORT_COSTS``; walking by the metres between room
  centres along the door path); a message costs ``1 + (len - 1) // 500`` frames.
- **household** (C-WAH-like): make ON/IN predicates with counts true ("2 plates ON the dinner
  table") within 250 steps; every action, a message included, costs one step, and a message is cut
  at 500 characters.

Actions are strings::

    wait                         do nothing for a moment
    walk <room>                  go to a room (any room; the path through doors is taken)
    explore                      look around the room: from then on the agent sees its objects
    grab <object>                take an object of the room into a free hand (by name: it need not
                                 be in sight, so a partner's report can be acted on; the grab
                                 fails when it completes if the object is not in the room, is in
                                 a closed receptacle or a container, or is held)
    open <receptacle> / close <receptacle>
    put <object> <place>         set a held object onto a surface or the floor of the room
    putin <object> <into>        put a held object into a container held in the other hand,
                                 or into an open receptacle of the room
    say <text>                   a message to every other agent
    say@bob,carol <text>         a message to some agents

Time. Agents act simultaneously (``simultaneous = True``) but actions last different times, as in
TDW-MAT where a high-level action spans many frames: the agents that are free choose an action
together; the world then runs to the earliest moment an action in progress completes and applies
every action completing then, in the fixed order of ``agents`` (so when both grab the last apple
in the same frame, the first listed gets it and the other's grab fails). An action's legality is
checked when it is chosen and again when it completes (the apple may be gone by then: the action
fails, its time is spent, and the agent is told why). Household actions all last one step, so
there every agent acts every step. One world step (``t``) is one such decision point; ``time``
counts frames or steps.

Observation. An agent sees the objects of its room once it has explored that room (from then on,
whenever it is there), except inside closed receptacles (it may still grab an object it was told
of without exploring: a wrong report shows as a failed grab); it sees what it holds; it sees a partner,
and what the partner holds, only in the same room. Messages reach their recipients' ``inbox`` when
the sending action completes; an inbox holds what arrived since the agent last chose an action.

Teaching scenarios (``scenarios/household/false-belief/``) add three things: agents may start
holding objects and knowing rooms they explored before; a receptacle may carry a ``label`` naming
what everyone expects inside; and scripted ``moves`` let someone who is not an agent move an object
while some agents are out of the room (a ``moved`` world event, once per move).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sim.world import AgentId, IllegalAction, Message, StepResult, World, WorldEvent, require_joint

#: frame costs of transport actions, after TDW-MAT's low-level actions: a 0.5 m move takes 10
#: frames (20 per metre), a 15-degree turn 12.5 (a look around the room, 24 turns: 300), a grasp
#: walks about 3 m up to the object (60) and reaches and grips (120), an arm motion that puts an
#: object down or into a container 80. The scale puts two rule-based agents (RHP) near the
#: transport rate the CoBel-World paper reports for RHP (48 %), and keeps the longest walk of the
#: shipped houses (27 m) plus a put within the 700 frames RHP leaves itself after frame 2300;
#: docs/household.md has the measured figures.
TRANSPORT_COSTS: dict[str, float] = {
    "frames_per_meter": 20.0, "explore": 300, "grab": 180, "put": 80, "putin": 80,
    "open": 80, "close": 80, "wait": 10,
}
#: household (C-WAH) tasks: every action is one step
HOUSEHOLD_COSTS: dict[str, float] = {
    "frames_per_meter": 0.0, "explore": 1, "grab": 1, "put": 1, "putin": 1, "open": 1, "close": 1, "wait": 1,
}
#: C-WAH cuts a message at 500 characters; TDW-MAT charges a frame per started 500 characters
MESSAGE_CHARS = 500
VERBS = ("wait", "walk", "explore", "grab", "open", "close", "put", "putin", "say")

# per-agent counters in HouseholdState.stats
STAT_NAMES = ("actions", "messages", "message_chars", "delivered", "failed", "busy")
ACTIONS, MESSAGES, MESSAGE_CHARS_SENT, DELIVERED, FAILED, BUSY = range(len(STAT_NAMES))


@dataclass(frozen=True, slots=True)
class HouseholdState:
    """The dynamic part of an episode; the layout lives in the World.

    ``locs[o]``: a place index (>= 0) when object o is on or in a place, ``n_places + c`` when it
    is inside container object c, ``-1 - a`` when agent a holds it. ``hands[a]``: the object
    indices in agent a's two hands (-1: empty). ``open_places``: bit p set when place p is open.
    ``explored[a]``: bit r set once agent a explored room r. ``pending[a]``: the action agent a
    is doing and the time it completes, or None when it is free to choose. ``last[a]``: what
    became of its latest completed action ("" when it worked, else the reason it failed).
    """

    t: int
    time: int
    rooms: tuple[int, ...]
    hands: tuple[tuple[int, int], ...]
    locs: tuple[int, ...]
    open_places: int
    explored: tuple[int, ...]
    pending: tuple[tuple[str, int] | None, ...]
    inbox: tuple[tuple[tuple[str, str], ...], ...]
    last: tuple[str, ...]
    stats: tuple[tuple[int, ...], ...]
    #: bit i set once the scenario's scripted move i took place
    moved: int = 0

    def key(self) -> tuple:
        return (self.t, self.time, self.rooms, self.hands, self.locs, self.open_places, self.explored,
                self.pending, self.inbox, self.last, self.stats) + ((self.moved,) if self.moved else ())


@dataclass(frozen=True, slots=True)
class SeenObject:
    """An object in view: ``at`` is a place id, a container id, or ``agent:<name>`` when held."""

    id: str
    cls: str
    kind: str
    at: str

    def key(self) -> tuple:
        return (self.id, self.cls, self.kind, self.at)


@dataclass(frozen=True, slots=True)
class HouseholdObservation:
    """What one agent perceives when it is asked for an action.

    ``holding``: the object ids in its two hands (None: empty). ``objects``: every object in view,
    its own held ones and their contents included. ``receptacles``: (place id, is open) for the
    openable places of the room. ``partners``: (agent, held object ids) of the agents in the same
    room. ``inbox``: (sender, text) of the messages that arrived since it last chose. ``goal``:
    transport: (goal place id, target classes); household: (relation, class, place, count) tuples.
    """

    agent: AgentId
    task: str
    time: int
    budget: int
    room: str
    room_explored: bool
    holding: tuple[str | None, str | None]
    objects: tuple[SeenObject, ...]
    receptacles: tuple[tuple[str, bool], ...]
    partners: tuple[tuple[AgentId, tuple[str, ...]], ...]
    explored: tuple[str, ...]
    inbox: tuple[tuple[AgentId, str], ...]
    goal: tuple
    last_failure: str

    def key(self) -> tuple:
        return (self.agent, self.task, self.time, self.budget, self.room, self.room_explored, self.holding,
                tuple(o.key() for o in self.objects), self.receptacles, self.partners, self.explored,
                self.inbox, self.goal, self.last_failure)


@dataclass(frozen=True, slots=True)
class Place:
    id: str
    cls: str
    room: int
    kind: str  # surface | receptacle | floor
    openable: bool
    label: str = ""  # receptacles: the object class the label names ("" when unlabelled)


@dataclass(frozen=True, slots=True)
class Obj:
    id: str
    cls: str
    kind: str  # target | container | item
    capacity: int


class HouseholdWorld(World[HouseholdState, str, HouseholdObservation]):
    family = "household"
    simultaneous = True
    legal_actions_exhaustive = False  # messages are unbounded; legal_actions lists every other action

    def __init__(self, spec: dict[str, Any]) -> None:
        self._spec = spec
        self.name: str = spec["name"]
        task = spec["task"]
        self.task: str = task["kind"]
        self.budget: int = int(task["budget"])
        base = TRANSPORT_COSTS if self.task == "transport" else HOUSEHOLD_COSTS
        self.costs: dict[str, float] = {**base, **{k: v for k, v in spec.get("costs", {}).items() if v is not None}}

        self.room_ids: tuple[str, ...] = tuple(r["id"] for r in spec["rooms"])
        self.room_index = {r: i for i, r in enumerate(self.room_ids)}
        self.room_xy: tuple[tuple[float, float], ...] = tuple((float(r["xy"][0]), float(r["xy"][1])) for r in spec["rooms"])
        self.room_size: tuple[tuple[float, float], ...] = tuple((float(r["size"][0]), float(r["size"][1])) for r in spec["rooms"])
        self.room_kind: tuple[str, ...] = tuple(r.get("kind", "room") for r in spec["rooms"])
        self.doors: tuple[tuple[int, int], ...] = tuple((self.room_index[a], self.room_index[b]) for a, b in spec["doors"])
        self.neighbors: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted({b for a, b in self.doors if a == r} | {a for a, b in self.doors if b == r}))
            for r in range(len(self.room_ids)))
        self.distance: tuple[tuple[float, ...], ...] = self._shortest_paths()

        self.places: tuple[Place, ...] = tuple(
            Place(p["id"], p["class"], self.room_index[p["room"]], p["kind"], bool(p.get("openable", False)),
                  p.get("label") or "")
            for p in spec["places"])
        self.place_index = {p.id: i for i, p in enumerate(self.places)}
        self.places_in_room: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i, p in enumerate(self.places) if p.room == r) for r in range(len(self.room_ids)))
        self.objects: tuple[Obj, ...] = tuple(
            Obj(o["id"], o["class"], o.get("kind", "item"), int(o.get("capacity", 3))) for o in spec["objects"])
        self.object_index = {o.id: i for i, o in enumerate(self.objects)}
        self.n_places = len(self.places)

        self._agents: tuple[AgentId, ...] = tuple(a["id"] for a in spec["agents"])
        self.agent_index = {a: i for i, a in enumerate(self._agents)}

        self.goal_place: int | None = self.place_index[task["goal"]] if self.task == "transport" else None
        self.targets: tuple[int, ...] = tuple(i for i, o in enumerate(self.objects) if o.kind == "target")
        #: household predicates as (relation, object class, place index, count)
        self.predicates: tuple[tuple[str, str, int, int], ...] = tuple(
            (p["relation"], p["object"], self.place_index[p["place"]], int(p["count"])) for p in task.get("predicates", ()))
        self.total_goals: int = len(self.targets) if self.task == "transport" else sum(p[3] for p in self.predicates)
        if self.task == "transport":
            gp = self.places[self.goal_place]  # type: ignore[index]
            self.goal: tuple = (gp.id, tuple(sorted({self.objects[i].cls for i in self.targets})))
        else:
            self.goal = tuple((rel, cls, self.places[p].id, n) for rel, cls, p, n in self.predicates)

        locs = []
        hands = [[-1, -1] for _ in self._agents]
        for i, o in enumerate(spec["objects"]):
            at = o["at"]
            if at in self.place_index:
                locs.append(self.place_index[at])
            elif at in self.agent_index:  # held from the start
                a = self.agent_index[at]
                hands[a][hands[a].index(-1)] = i
                locs.append(-1 - a)
            else:
                locs.append(self.n_places + self.object_index[at])
        #: scripted moves: (object, destination place, earliest time, unseen_by, seen_by, by)
        self.moves: tuple[tuple[int, int, int, tuple[int, ...], tuple[int, ...], str], ...] = tuple(
            (self.object_index[m["object"]], self.place_index[m["to"]], int(m.get("after", 0)),
             tuple(self.agent_index[a] for a in m.get("unseen_by", ())),
             tuple(self.agent_index[a] for a in m.get("seen_by", ())), m.get("by", "someone"))
            for m in spec.get("moves", ()))
        open_places = 0
        for i, p in enumerate(spec["places"]):
            if p.get("open", True):
                open_places |= 1 << i
        n = len(self._agents)
        self._initial = HouseholdState(
            t=0, time=0, rooms=tuple(self.room_index[a["room"]] for a in spec["agents"]),
            hands=tuple((h[0], h[1]) for h in hands), locs=tuple(locs), open_places=open_places,
            explored=tuple(sum(1 << self.room_index[r] for r in set(a.get("explored", ()))) for a in spec["agents"]),
            pending=tuple(None for _ in range(n)),
            inbox=tuple(() for _ in range(n)), last=tuple("" for _ in range(n)),
            stats=tuple(tuple(0 for _ in STAT_NAMES) for _ in range(n)))

    def _shortest_paths(self) -> tuple[tuple[float, ...], ...]:
        """Metres from every room to every room through doors (Dijkstra from each room)."""
        n = len(self.room_ids)
        rows = []
        for source in range(n):
            dist = [math.inf] * n
            dist[source] = 0.0
            heap = [(0.0, source)]
            while heap:
                d, r = heapq.heappop(heap)
                if d > dist[r]:
                    continue
                for m in self.neighbors[r]:
                    nd = d + math.dist(self.room_xy[r], self.room_xy[m])
                    if nd < dist[m]:
                        dist[m] = nd
                        heapq.heappush(heap, (nd, m))
            rows.append(tuple(dist))
        return tuple(rows)

    # ------------------------------------------------------------------ layout helpers

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return self._agents

    def spec(self) -> dict[str, Any]:
        return self._spec

    def walk_cost(self, from_room: str | int, to_room: str | int) -> int:
        """Frames (transport) or steps (household) to walk between two rooms: ``frames_per_meter``
        times the metres of the door path, at least 1; household tasks without a ``frames_per_meter``
        (the default 0) take one step for any walk."""
        a = self.room_index[from_room] if isinstance(from_room, str) else from_room
        b = self.room_index[to_room] if isinstance(to_room, str) else to_room
        per_meter = self.costs["frames_per_meter"]
        if self.task != "transport" and per_meter <= 0:
            return 1
        return max(1, math.ceil(self.distance[a][b] * per_meter))

    def message_cost(self, text: str) -> int:
        if self.task == "transport":
            return 1 + (max(len(text), 1) - 1) // MESSAGE_CHARS
        return 1

    def action_cost(self, state: HouseholdState, agent: AgentId, action: str) -> int:
        """What ``action`` costs ``agent`` in ``state``: frames (transport) or steps (household)."""
        verb, _, rest = action.partition(" ")
        if verb.startswith("say"):
            return self.message_cost(rest)
        if verb == "walk":
            return self.walk_cost(state.rooms[self.agent_index[agent]], rest)
        return max(1, int(self.costs[verb]))

    def room_of_place(self, place: str) -> str:
        return self.room_ids[self.places[self.place_index[place]].room]

    def is_goal_satisfied_by(self, state: HouseholdState, obj: int) -> bool:
        """Transport: the object lies on the goal place, or in a container there."""
        loc = state.locs[obj]
        if loc >= self.n_places:
            loc = state.locs[loc - self.n_places]
        return loc == self.goal_place

    def progress(self, state: HouseholdState) -> int:
        """Goals reached: delivered targets (transport) or satisfied predicate units (household)."""
        if self.task == "transport":
            return sum(self.is_goal_satisfied_by(state, o) for o in self.targets)
        done = 0
        for _, cls, place, count in self.predicates:
            there = sum(1 for o, loc in enumerate(state.locs) if loc == place and self.objects[o].cls == cls)
            done += min(count, there)
        return done

    def where(self, state: HouseholdState, obj: int) -> str:
        """An object's location as an id: a place, a container, or ``agent:<name>``."""
        loc = state.locs[obj]
        if loc < 0:
            return f"agent:{self._agents[-1 - loc]}"
        if loc >= self.n_places:
            return self.objects[loc - self.n_places].id
        return self.places[loc].id

    def names(self) -> frozenset[str]:
        """Rooms, places (floors included), objects and object classes, by id."""
        return frozenset((*self.room_ids, *(p.id for p in self.places), *(o.id for o in self.objects),
                          *(o.cls for o in self.objects)))

    def locate(self, state: HouseholdState, thing: str) -> str | None:
        """The place (or container, or ``agent:<name>``) of the object ``thing`` names: its id,
        or a class only one object has."""
        index = self.object_index.get(thing)
        if index is None:
            of_class = [i for i, o in enumerate(self.objects) if o.cls == thing]
            if len(of_class) != 1:
                return None
            index = of_class[0]
        return self.where(state, index)

    def _is_open(self, state: HouseholdState, place: int) -> bool:
        return bool(state.open_places >> place & 1)

    def visible(self, state: HouseholdState, a: int) -> list[int]:
        """Objects agent ``a`` sees: its own, and its room's once explored (not in closed receptacles)."""
        room = state.rooms[a]
        explored = bool(state.explored[a] >> room & 1)
        seen = []
        for o, loc in enumerate(state.locs):
            holder_loc = state.locs[loc - self.n_places] if loc >= self.n_places else loc
            if holder_loc < 0:
                holder = -1 - holder_loc
                # one's own things always; a partner's only in the same room
                if holder == a or state.rooms[holder] == room:
                    seen.append(o)
            elif explored and self.places[holder_loc].room == room and self._is_open(state, holder_loc):
                seen.append(o)
        return seen

    # ------------------------------------------------------------------ interface

    def reset(self, seed: int) -> HouseholdState:
        return self._initial  # layouts are generated into the scenario files; seeds drive the agents

    def done(self, state: HouseholdState) -> bool:
        return state.time >= self.budget or self.progress(state) >= self.total_goals

    def active_agents(self, state: HouseholdState) -> tuple[AgentId, ...]:
        if self.done(state):
            return ()
        return tuple(a for a, p in zip(self._agents, state.pending) if p is None)

    def fallback_action(self, state: HouseholdState, agent: AgentId) -> str:
        return "wait"

    def message_action(self, state: HouseholdState, agent: AgentId, text: str,
                       recipients: Sequence[AgentId] = ()) -> str:
        others = [r for r in self._agents if r != agent]
        if not recipients or sorted(recipients) == sorted(others):
            return f"say {text}"
        return f"say@{','.join(recipients)} {text}"

    def legal_actions(self, state: HouseholdState, agent: AgentId) -> tuple[str, ...]:
        """Every legal action except messages (any text is a legal message; see ``message_action``)."""
        a = self.agent_index[agent]
        if self.done(state) or state.pending[a] is not None:
            return ()
        room = state.rooms[a]
        actions = ["wait", "explore"]
        actions += [f"walk {self.room_ids[r]}" for r in range(len(self.room_ids)) if r != room]
        hands = state.hands[a]
        held = [o for o in hands if o >= 0]
        if -1 in hands:
            actions += [f"grab {self.objects[o].id}" for o in self.visible(state, a)
                        if self._grab_problem(state, a, o) is None]
        for p in self.places_in_room[room]:
            if self.places[p].openable:
                actions.append(f"{'close' if self._is_open(state, p) else 'open'} {self.places[p].id}")
        for o in held:
            for p in self.places_in_room[room]:
                if self.places[p].kind in ("surface", "floor"):
                    actions.append(f"put {self.objects[o].id} {self.places[p].id}")
            if self.objects[o].kind != "container":
                for into in self._containers_for(state, a, o):
                    actions.append(f"putin {self.objects[o].id} {into}")
        return tuple(actions)

    def pettingzoo_actions(self) -> list[str]:
        """Every action of this house but messages, for PettingZoo (``sim/pettingzoo.py``): wait,
        explore, a walk to every room, a grab of every object, opening and closing every
        receptacle, putting every object on every surface or floor, and putting every object
        that is not a container into every container and receptacle; in ``legal_actions``'s
        order. Which of them are legal in a state is the world's ``why_illegal``."""
        actions = ["wait", "explore"]
        actions += [f"walk {r}" for r in self.room_ids]
        actions += [f"grab {o.id}" for o in self.objects]
        for place in self.places:
            if place.openable:
                actions += [f"open {place.id}", f"close {place.id}"]
        actions += [f"put {o.id} {place.id}" for o in self.objects for place in self.places
                    if place.kind in ("surface", "floor")]
        intos = [c.id for c in self.objects if c.kind == "container"] + \
            [place.id for place in self.places if place.kind == "receptacle"]
        actions += [f"putin {o.id} {into}" for o in self.objects if o.kind != "container" for into in intos]
        return actions

    def _containers_for(self, state: HouseholdState, a: int, o: int) -> list[str]:
        out = []
        for c in state.hands[a]:
            if c >= 0 and c != o and self.objects[c].kind == "container" and self._free_slots(state, c) > 0:
                out.append(self.objects[c].id)
        for p in self.places_in_room[state.rooms[a]]:
            if self.places[p].kind == "receptacle" and self._is_open(state, p):
                out.append(self.places[p].id)
        return out

    def _free_slots(self, state: HouseholdState, container: int) -> int:
        inside = sum(1 for loc in state.locs if loc == self.n_places + container)
        return self.objects[container].capacity - inside

    def contents(self, state: HouseholdState, container: int) -> list[int]:
        return [o for o, loc in enumerate(state.locs) if loc == self.n_places + container]

    def grab_problem(self, state: HouseholdState, agent: AgentId, oid: str) -> str | None:
        """Why a grab of ``oid`` by ``agent`` would fail if it completed in ``state`` (None: it
        would work). A grab may be chosen whatever this says (``why_illegal``); it fails then."""
        return self._grab_problem(state, self.agent_index[agent], self.object_index[oid])

    def _grab_problem(self, state: HouseholdState, a: int, o: int) -> str | None:
        obj = self.objects[o]
        loc = state.locs[o]
        if loc < 0:
            holder = self._agents[-1 - loc]
            return f"{obj.id} is already in {'your' if holder == self._agents[a] else holder + chr(39) + 's'} hand"
        if loc >= self.n_places:
            return f"{obj.id} is inside {self.objects[loc - self.n_places].id}; objects stay in their container"
        if self.places[loc].room != state.rooms[a]:
            return f"{obj.id} is not in {self.room_ids[state.rooms[a]]}"
        # An object of the room is grabbed by name, whether or not the agent explored the room
        # (it may have been told where it lies): walking up to it is part of the grab. What a
        # closed receptacle holds is out of reach until it is opened.
        if not self._is_open(state, loc):
            return f"{obj.id} is out of reach (the {self.places[loc].id} is closed)"
        if self.task == "transport" and loc == self.goal_place:
            return f"{obj.id} is already delivered to {self.places[loc].id}"
        return None

    def why_illegal(self, state: HouseholdState, agent: AgentId, action: Any) -> str | None:
        if agent not in self.agent_index:
            return f"{agent!r} is not an agent of this world ({', '.join(self._agents)})"
        a = self.agent_index[agent]
        if self.done(state):
            return "the episode is over"
        pending = state.pending[a]
        if pending is not None:
            doing, until = pending
            return f"{agent} is still busy with {doing!r} until {until}"
        return self._problem(state, a, action, attempt=True)

    def _problem(self, state: HouseholdState, a: int, action: Any, attempt: bool = False) -> str | None:
        """Why agent ``a`` cannot do ``action`` in ``state`` (None: it can). ``attempt``: the check
        when the action is chosen, where a grab needs only a free hand (whether the object is there
        is found out when the grab completes: an agent acting on a report it cannot check fails
        then, its time spent, and reads why in ``last_failure``)."""
        if not isinstance(action, str):
            return f"an action is a string such as 'walk kitchen', got {action!r}"
        verb, _, rest = action.partition(" ")
        if verb.startswith("say"):
            return self._message_problem(a, verb, rest)
        args = rest.split()
        arity = {"wait": 0, "explore": 0, "walk": 1, "grab": 1, "open": 1, "close": 1, "put": 2, "putin": 2}
        if verb not in arity:
            return f"unknown action {verb!r}; actions are {', '.join(VERBS)}"
        if len(args) != arity[verb]:
            usage = {"wait": "wait", "explore": "explore", "walk": "walk <room>", "grab": "grab <object>",
                     "open": "open <receptacle>", "close": "close <receptacle>", "put": "put <object> <place>",
                     "putin": "putin <object> <container or receptacle>"}[verb]
            return f"{action!r}: expected '{usage}'"
        room = state.rooms[a]
        here = self.room_ids[room]
        if verb == "walk":
            target = args[0]
            if target not in self.room_index:
                return f"no room {target!r}; rooms are {', '.join(self.room_ids)}"
            if self.room_index[target] == room:
                return f"already in {target}"
            return None
        if verb in ("wait", "explore"):
            return None
        if verb in ("open", "close"):
            p = self.place_index.get(args[0])
            if p is None:
                return f"no place {args[0]!r}"
            place = self.places[p]
            if place.room != room:
                return f"{place.id} is not in {here}"
            if not place.openable:
                return f"{place.id} does not open or close"
            if self._is_open(state, p) == (verb == "open"):
                return f"{place.id} is already {'open' if verb == 'open' else 'closed'}"
            return None
        o = self.object_index.get(args[0])
        if o is None:
            return f"no object {args[0]!r}"
        if verb == "grab":
            if -1 not in state.hands[a]:
                return "both hands are full"
            if o in state.hands[a]:
                return f"{args[0]} is already in your hand"
            return None if attempt else self._grab_problem(state, a, o)
        if o not in state.hands[a]:
            return f"you do not hold {args[0]}"
        dest = args[1]
        if verb == "put":
            p = self.place_index.get(dest)
            if p is None:
                return f"no place {dest!r}"
            place = self.places[p]
            if place.room != room:
                return f"{place.id} is not in {here}"
            if place.kind == "receptacle":
                return f"{place.id} is a receptacle; use 'putin {args[0]} {place.id}'"
            return None
        # putin
        if self.objects[o].kind == "container":
            return f"{args[0]} is a container; containers do not go into containers"
        c = self.object_index.get(dest)
        if c is not None:
            if self.objects[c].kind != "container":
                return f"{dest} is not a container"
            if c not in state.hands[a]:
                return f"hold {dest} in your other hand to put things into it"
            if self._free_slots(state, c) <= 0:
                return f"{dest} is full ({self.objects[c].capacity} objects)"
            return None
        p = self.place_index.get(dest)
        if p is None:
            return f"no container or receptacle {dest!r}"
        place = self.places[p]
        if place.kind != "receptacle":
            return f"{dest} is a {place.kind}; use 'put {args[0]} {dest}'"
        if place.room != room:
            return f"{place.id} is not in {here}"
        if not self._is_open(state, p):
            return f"{place.id} is closed; open it first"
        return None

    def _message_problem(self, a: int, verb: str, text: str) -> str | None:
        if verb != "say" and not verb.startswith("say@"):
            return f"unknown action {verb!r}; a message is 'say <text>' or 'say@bob <text>'"
        if not text.strip():
            return "a message needs some text"
        for r in self._recipients(a, verb):
            if r not in self.agent_index:
                return f"no agent {r!r} to send to ({', '.join(self._agents)})"
            if r == self._agents[a]:
                return "an agent does not message itself"
        if len(self._agents) < 2:
            return "there is nobody to talk to"
        return None

    def _recipients(self, a: int, verb: str) -> tuple[str, ...]:
        if verb == "say":
            return tuple(x for x in self._agents if x != self._agents[a])
        return tuple(r for r in verb[4:].split(",") if r)

    # ------------------------------------------------------------------ step

    def step(self, state: HouseholdState, joint_action: Mapping[AgentId, str]) -> StepResult[HouseholdState]:
        active = require_joint(self, state, joint_action)
        for agent in self._agents:
            if agent in active:
                reason = self.why_illegal(state, agent, joint_action[agent])
                if reason is not None:
                    raise IllegalAction(f"{agent}: {joint_action[agent]!r}: {reason}")
        pending = list(state.pending)
        inbox = list(state.inbox)
        stats = [list(s) for s in state.stats]
        for agent in active:
            a = self.agent_index[agent]
            action = joint_action[agent]
            cost = self.action_cost(state, agent, action)
            pending[a] = (action, state.time + cost)
            inbox[a] = ()  # it read them when it chose
            stats[a][ACTIONS] += 1
            stats[a][BUSY] += cost
        finish = min(p[1] for p in pending if p is not None)
        if finish > self.budget:  # nothing more completes within the budget
            return StepResult(replace(state, t=state.t + 1, time=self.budget, pending=tuple(pending),
                                      inbox=tuple(inbox), stats=tuple(tuple(s) for s in stats)))
        state = replace(state, t=state.t + 1, time=finish, pending=tuple(pending), inbox=tuple(inbox),
                        stats=tuple(tuple(s) for s in stats))
        events: list[WorldEvent] = []
        messages: list[Message] = []
        for a, p in enumerate(pending):
            if p is not None and p[1] == finish:  # completions at one moment apply in agent order
                state = self._complete(state, a, p[0], events, messages)
        if self.moves:
            state = self._scripted_moves(state, events)
        return StepResult(state, tuple(events), tuple(messages))

    def _scripted_moves(self, state: HouseholdState, events: list[WorldEvent]) -> HouseholdState:
        """The scenario's scripted moves whose moment has come (see ``sim.household.scenario.Move``)."""
        for i, (o, to, after, unseen_by, seen_by, by) in enumerate(self.moves):
            loc = state.locs[o]
            if state.moved >> i & 1 or state.time < after or not 0 <= loc < self.n_places:
                continue
            rooms = {self.places[loc].room, self.places[to].room}
            if any(state.rooms[a] in rooms for a in unseen_by) or \
                    any(state.rooms[a] != self.places[to].room for a in seen_by):
                continue
            state = replace(state, locs=self._set(state.locs, o, to), moved=state.moved | 1 << i)
            events.append(WorldEvent("moved", None, {"object": self.objects[o].id, "from": self.places[loc].id,
                                                     "to": self.places[to].id, "by": by}))
        return state

    def _complete(self, state: HouseholdState, a: int, action: str, events: list[WorldEvent],
                  messages: list[Message]) -> HouseholdState:
        agent = self._agents[a]
        pending = state.pending[:a] + (None,) + state.pending[a + 1:]
        state = replace(state, pending=pending)
        reason = self._problem(state, a, action)
        if reason is not None:  # the world changed while the action was under way
            events.append(WorldEvent("failed", agent, {"action": action, "reason": reason}))
            return self._with_stat(replace(state, last=self._set(state.last, a, reason)), a, FAILED, 1)
        state = replace(state, last=self._set(state.last, a, ""))
        verb, _, rest = action.partition(" ")
        if verb.startswith("say"):
            text = rest if self.task == "transport" else rest[:MESSAGE_CHARS]
            recipients = self._recipients(a, verb)
            inbox = list(state.inbox)
            for r in recipients:
                i = self.agent_index[r]
                inbox[i] = inbox[i] + ((agent, text),)
            messages.append(Message(agent, recipients, text, float(self.action_cost(state, agent, action))))
            state = self._with_stat(replace(state, inbox=tuple(inbox)), a, MESSAGES, 1)
            return self._with_stat(state, a, MESSAGE_CHARS_SENT, len(text))
        args = rest.split()
        before = self.progress(state)
        if verb == "walk":
            state = replace(state, rooms=self._set(state.rooms, a, self.room_index[args[0]]))
            events.append(WorldEvent("walked", agent, {"room": args[0]}))
        elif verb == "explore":
            room = state.rooms[a]
            state = replace(state, explored=self._set(state.explored, a, state.explored[a] | 1 << room))
            events.append(WorldEvent("explored", agent, {"room": self.room_ids[room]}))
        elif verb in ("open", "close"):
            p = self.place_index[args[0]]
            bits = state.open_places | 1 << p if verb == "open" else state.open_places & ~(1 << p)
            state = replace(state, open_places=bits)
            events.append(WorldEvent("opened" if verb == "open" else "closed", agent, {"place": args[0]}))
        elif verb == "grab":
            o = self.object_index[args[0]]
            hands = state.hands[a]
            h = hands.index(-1)
            new_hands = (o, hands[1]) if h == 0 else (hands[0], o)
            state = replace(state, hands=self._set(state.hands, a, new_hands),
                            locs=self._set(state.locs, o, -1 - a))
            events.append(WorldEvent("grabbed", agent, {"object": args[0]}))
        elif verb in ("put", "putin"):
            o = self.object_index[args[0]]
            hands = state.hands[a]
            new_hands = (-1 if hands[0] == o else hands[0], -1 if hands[1] == o else hands[1])
            dest = args[1]
            loc = self.place_index[dest] if dest in self.place_index else self.n_places + self.object_index[dest]
            state = replace(state, hands=self._set(state.hands, a, new_hands),
                            locs=self._set(state.locs, o, loc))
            events.append(WorldEvent(verb, agent, {"object": args[0], "into" if verb == "putin" else "onto": dest}))
        gained = self.progress(state) - before
        if gained:
            events.append(WorldEvent("delivered", agent, {"count": gained, "total": self.progress(state)}))
            state = self._with_stat(state, a, DELIVERED, gained)
        return state

    @staticmethod
    def _set(values: tuple, i: int, value: Any) -> tuple:
        return values[:i] + (value,) + values[i + 1:]

    def _with_stat(self, state: HouseholdState, a: int, index: int, amount: int) -> HouseholdState:
        row = list(state.stats[a])
        row[index] += amount
        return replace(state, stats=self._set(state.stats, a, tuple(row)))

    # ------------------------------------------------------------------ views

    def observe(self, state: HouseholdState, agent: AgentId) -> HouseholdObservation:
        a = self.agent_index[agent]
        room = state.rooms[a]
        objects = tuple(SeenObject(self.objects[o].id, self.objects[o].cls, self.objects[o].kind, self.where(state, o))
                        for o in self.visible(state, a))
        holding = tuple(self.objects[o].id if o >= 0 else None for o in state.hands[a])
        partners = tuple((self._agents[b], tuple(self.objects[o].id for o in state.hands[b] if o >= 0))
                         for b in range(len(self._agents)) if b != a and state.rooms[b] == room)
        receptacles = tuple((self.places[p].id, self._is_open(state, p)) for p in self.places_in_room[room]
                            if self.places[p].openable)
        return HouseholdObservation(
            agent=agent, task=self.task, time=state.time, budget=self.budget, room=self.room_ids[room],
            room_explored=bool(state.explored[a] >> room & 1), holding=holding,  # type: ignore[arg-type]
            objects=objects, receptacles=receptacles, partners=partners,
            explored=tuple(r for i, r in enumerate(self.room_ids) if state.explored[a] >> i & 1),
            inbox=state.inbox[a], goal=self.goal, last_failure=state.last[a])

    def state_key(self, state: HouseholdState) -> tuple:
        return state.key()

    def outcome(self, state: HouseholdState) -> dict[str, Any]:
        reached = self.progress(state)
        success = reached >= self.total_goals
        unit = "frames" if self.task == "transport" else "steps"
        per_agent = {}
        for a, agent in enumerate(self._agents):
            row = dict(zip(STAT_NAMES, state.stats[a]))
            row["explored_rooms"] = bin(state.explored[a]).count("1")
            per_agent[agent] = row
        return {
            "task": self.task,
            "success": success,
            "transport_rate": reached / self.total_goals if self.total_goals else 1.0,
            "reached": reached,
            "total": self.total_goals,
            unit: state.time,
            "budget": self.budget,
            # C-WAH's L: the steps taken, the whole budget when the task was not finished
            "steps_to_finish": state.time if success else self.budget,
            "messages": sum(s[MESSAGES] for s in state.stats),
            "message_chars": sum(s[MESSAGE_CHARS_SENT] for s in state.stats),
            "agents": per_agent,
        }

    def render_text(self, state: HouseholdState) -> str:
        unit = "frame" if self.task == "transport" else "step"
        lines = [f"{self.name}: {unit} {state.time}/{self.budget}, goals {self.progress(state)}/{self.total_goals}"]
        for r, room in enumerate(self.room_ids):
            here = [f"{ag}{list(self.objects[o].id for o in state.hands[i] if o >= 0)}"
                    for i, ag in enumerate(self._agents) if state.rooms[i] == r]
            lines.append(f"{room}: " + (" ".join(here) if here else "-"))
            for p in self.places_in_room[r]:
                place = self.places[p]
                things = []
                for o, loc in enumerate(state.locs):
                    if loc == p:
                        inside = self.contents(state, o)
                        things.append(self.objects[o].id + (f"({','.join(self.objects[i].id for i in inside)})" if inside else ""))
                if things or place.openable:
                    flag = "" if not place.openable else (" [open]" if self._is_open(state, p) else " [closed]")
                    lines.append(f"  {place.id}{flag}: {', '.join(things) or '-'}")
        for ag, pending in zip(self._agents, state.pending):
            if pending is not None:
                lines.append(f"{ag} is doing {pending[0]!r} until {pending[1]}")
        return "\n".join(lines)
