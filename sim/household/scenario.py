"""The scenario file format of the household world, and its validation.

A scenario is a JSON file (``scenarios/household/<name>.json``)::

    {
      "world": "household",
      "name": "transport-food-low-01",
      "title": "Food to the bed, two containers",
      "category": "food-low-capacity",
      "rooms": [{"id": "kitchen", "kind": "kitchen", "xy": [4, 3], "size": [6, 5]}, ...],
      "doors": [["kitchen", "livingroom"], ...],
      "places": [{"id": "bed", "class": "bed", "room": "bedroom", "kind": "surface"},
                 {"id": "fridge", "class": "fridge", "room": "kitchen", "kind": "receptacle",
                  "openable": true, "open": false}, ...],
      "objects": [{"id": "apple_1", "class": "apple", "kind": "target", "at": "kitchentable"},
                  {"id": "bowl_1", "class": "bowl", "kind": "container", "at": "kitchen_floor"}, ...],
      "agents": [{"id": "alice", "room": "livingroom"}, {"id": "bob", "room": "office"}],
      "task": {"kind": "transport", "goal": "bed", "budget": 3000}
    }

or, for a household task, ``"task": {"kind": "household", "budget": 250, "predicates":
[{"relation": "ON", "object": "plate", "place": "dinnertable", "count": 2}, ...]}``.

Every room gets a floor place ``<room>_floor`` without being listed. Rooms have 2D centres and
sizes in metres: walking costs follow the distances between centres of rooms joined by doors,
and renderers draw from them. ``costs`` (optional) overrides the action costs of the task kind
(see ``sim.household.world``).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field, StrictFloat

from sim.household.categories import HOUSEHOLD_CATEGORIES, TEACHING_CATEGORIES, TRANSPORT_CATEGORIES
from sim.inputs import check_tree, validate_model
from sim.registry import ScenarioError

NAME_RE = r"^[a-z0-9][a-z0-9_-]*$"
ID_RE = r"^[a-z][a-z0-9_]*$"
#: room geometry in metres, as the renderer draws it (one tile per metre; docs/limits.md)
ROOM_SIDE = (2.0, 50.0)  # shortest and longest side of a room
MAX_COORDINATE = 500.0  # room centres lie within [-500, 500] on both axes
MAX_HOUSE_SIDE = 200.0  # the whole layout fits in 200 x 200 metres
MAX_ROOMS = 64


class Room(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=ID_RE)
    kind: str = Field("room", description="livingroom, kitchen, office, bedroom, bathroom, ...")
    # strict: "5" and true are not numbers (whole numbers are)
    xy: tuple[StrictFloat, StrictFloat] = Field(description="centre of the room in metres (for walking costs and "
                                                            "drawing)")
    size: tuple[StrictFloat, StrictFloat] = Field((5.0, 5.0), description="width and height in metres (drawing only)")


class Place(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=ID_RE)
    class_: str = Field(alias="class", pattern=ID_RE, description="e.g. bed, fridge, kitchentable")
    room: str
    kind: Literal["surface", "receptacle", "floor"]
    openable: bool = False
    open: bool = True
    label: str | None = Field(None, pattern=ID_RE, description="receptacles only: the object class its label names "
                                                                "(what everyone expects inside; it may hold something "
                                                                "else)")


class Obj(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=ID_RE)
    class_: str = Field(alias="class", pattern=ID_RE, description="e.g. apple, plate, bowl")
    kind: Literal["target", "container", "item"] = "item"
    at: str = Field(description="a place id, a container id for an object inside a container, or an agent id for "
                                "an object that agent holds at the start")
    capacity: int = Field(3, ge=1, le=20, description="containers only: how many objects fit")


class AgentStart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=NAME_RE)
    room: str
    explored: list[str] = Field(default_factory=list, description="rooms the agent has looked around before the "
                                                                  "episode starts")


class Move(BaseModel):
    """A scripted move: someone who is not an agent moves an object, once, at the first step from
    ``after`` at which the object lies on a place, every ``unseen_by`` agent is out of both rooms
    (where it lies and where it goes) and every ``seen_by`` agent is in the room it goes to."""

    model_config = ConfigDict(extra="forbid")
    object: str
    to: str = Field(description="a place id")
    after: int = Field(0, ge=0, description="the earliest time (frames or steps)")
    unseen_by: list[str] = Field(default_factory=list)
    seen_by: list[str] = Field(default_factory=list)
    by: str = Field("someone", min_length=1, max_length=60, description="who moves it, in words")


class Predicate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    relation: Literal["ON", "IN"]
    object: str = Field(pattern=ID_RE, description="an object class")
    place: str = Field(description="a place id")
    count: int = Field(ge=1, le=50)


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["transport", "household"]
    budget: int | None = Field(None, ge=1, le=1_000_000,
                               description="frames (transport, default 3000) or steps (household, default 250)")
    goal: str | None = Field(None, description="transport: the goal place id (the bed)")
    predicates: list[Predicate] = Field(default_factory=list, description="household: the goal predicates")


class Costs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    frames_per_meter: float | None = Field(None, gt=0)
    explore: int | None = Field(None, ge=1)
    grab: int | None = Field(None, ge=1)
    put: int | None = Field(None, ge=1)
    putin: int | None = Field(None, ge=1)
    open: int | None = Field(None, ge=1)
    close: int | None = Field(None, ge=1)
    wait: int | None = Field(None, ge=1)


class HouseholdScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")
    world: Literal["household"]
    name: str = Field(pattern=NAME_RE)
    title: str = ""
    description: str = ""
    category: str | None = None
    seed: int | None = Field(None, description="the generator seed this file was made from (informative)")
    rooms: list[Room] = Field(min_length=1, max_length=MAX_ROOMS)
    doors: list[tuple[str, str]] = Field(default_factory=list)
    places: list[Place] = Field(default_factory=list)
    objects: list[Obj] = Field(default_factory=list)
    agents: list[AgentStart] = Field(min_length=1, max_length=8)
    task: Task
    costs: Costs = Costs()
    moves: list[Move] = Field(default_factory=list, max_length=32)


def validate_household(data: dict[str, Any], source: str) -> dict[str, Any]:
    """Validate raw scenario data; return a normalized spec or raise one ScenarioError."""
    check_tree(data, source, ScenarioError)  # lone surrogates, NaN, non-text keys, deep nesting
    sc = validate_model(HouseholdScenario, data, source, ScenarioError)

    def fail(where: str, what: str) -> NoReturn:
        raise ScenarioError(f"{source}: field '{where}': {what}")

    def unique(items: list[Any], field_name: str, taken: dict[str, str]) -> None:
        for i, item in enumerate(items):
            if item.id in taken:
                fail(f"{field_name}[{i}].id", f"{item.id!r} is already used by {taken[item.id]}; ids must be unique")
            taken[item.id] = f"{field_name}[{i}]"

    ids: dict[str, str] = {}
    unique(sc.rooms, "rooms", ids)
    _check_geometry(sc.rooms, fail)
    rooms = [r.id for r in sc.rooms]
    floors = [{"id": f"{r}_floor", "class": "floor", "room": r, "kind": "floor", "openable": False, "open": True}
              for r in rooms]
    for f in floors:
        if f["id"] in ids:
            fail("rooms", f"the floor place {f['id']!r} of a room clashes with {ids[f['id']]}")
    for i, place in enumerate(sc.places):
        if place.kind == "floor":
            fail(f"places[{i}].kind", "floors are implicit (every room has '<room>_floor'); expected surface or receptacle")
    unique(sc.places, "places", ids)
    for f in floors:
        ids[f["id"]] = "a room's floor"
    unique(sc.objects, "objects", ids)
    agent_ids: dict[str, str] = {}
    unique(sc.agents, "agents", agent_ids)
    for i, agent in enumerate(sc.agents):
        if ids.get(agent.id, "").startswith("objects"):
            fail(f"agents[{i}].id", f"{agent.id!r} is already used by {ids[agent.id]}; an object's 'at' may name an agent")

    for i, (a, b) in enumerate(sc.doors):
        for j, r in enumerate((a, b)):
            if r not in rooms:
                fail(f"doors[{i}][{j}]", f"expected a room id ({', '.join(rooms)}), got {r!r}")
        if a == b:
            fail(f"doors[{i}]", f"a door joins two different rooms, got {a!r} twice")
    seen_pairs: dict[frozenset[str], int] = {}
    for i, (a, b) in enumerate(sc.doors):
        pair = frozenset((a, b))
        if pair in seen_pairs:
            fail(f"doors[{i}]", f"{a!r}-{b!r} repeats doors[{seen_pairs[pair]}]")
        seen_pairs[pair] = i
    # Every room must be reachable, or some objects could never be fetched.
    adjacency: dict[str, set[str]] = {r: set() for r in rooms}
    for a, b in sc.doors:
        adjacency[a].add(b)
        adjacency[b].add(a)
    reached, todo = {rooms[0]}, deque([rooms[0]])
    while todo:
        for n in adjacency[todo.popleft()]:
            if n not in reached:
                reached.add(n)
                todo.append(n)
    cut_off = [r for r in rooms if r not in reached]
    if cut_off:
        fail("doors", f"room {cut_off[0]!r} cannot be reached from {rooms[0]!r}; expected a door path to every room")

    place_by_id = {p.id: p for p in sc.places}
    for i, place in enumerate(sc.places):
        if place.room not in rooms:
            fail(f"places[{i}].room", f"expected a room id ({', '.join(rooms)}), got {place.room!r}")
        if place.openable and place.kind != "receptacle":
            fail(f"places[{i}].openable", "only receptacles open and close")
        if not place.openable and not place.open:
            fail(f"places[{i}].open", "a place that cannot be opened must be open")
    place_ids = set(place_by_id) | {f["id"] for f in floors}

    objects = {o.id: o for o in sc.objects}
    agent_rooms = {a.id: a.room for a in sc.agents}
    held: dict[str, int] = {}
    for i, obj in enumerate(sc.objects):
        if obj.at in place_ids:
            continue
        if obj.at in agent_rooms:
            held[obj.at] = held.get(obj.at, 0) + 1
            if held[obj.at] > 2:
                fail(f"objects[{i}].at", f"agent {obj.at!r} would hold more than two objects; an agent has two hands")
            continue
        inner = objects.get(obj.at)
        if inner is None:
            fail(f"objects[{i}].at", f"expected a place id or a container id, got {obj.at!r}")
        if inner.kind != "container":
            fail(f"objects[{i}].at", f"{obj.at!r} is a {inner.kind}, not a container")
        if obj.kind == "container":
            fail(f"objects[{i}].at", "containers do not go inside containers")
    for i, obj in enumerate(sc.objects):
        if obj.kind == "container":
            inside = [o.id for o in sc.objects if o.at == obj.id]
            if inside and obj.at in agent_rooms:
                fail(f"objects[{i}].at", f"container {obj.id!r} starts in a hand; expected it empty or on a place")
            if len(inside) > obj.capacity:
                fail(f"objects[{i}]", f"container {obj.id!r} holds {len(inside)} objects, more than its capacity {obj.capacity}")

    for i, agent in enumerate(sc.agents):
        if agent.room not in rooms:
            fail(f"agents[{i}].room", f"expected a room id ({', '.join(rooms)}), got {agent.room!r}")
        for j, room in enumerate(agent.explored):
            if room not in rooms:
                fail(f"agents[{i}].explored[{j}]", f"expected a room id ({', '.join(rooms)}), got {room!r}")
    for i, place in enumerate(sc.places):
        if place.label is not None and place.kind != "receptacle":
            fail(f"places[{i}].label", "only receptacles carry a label")
    for i, move in enumerate(sc.moves):
        if move.object not in objects:
            fail(f"moves[{i}].object", f"expected an object id, got {move.object!r}")
        if objects[move.object].kind == "container":
            fail(f"moves[{i}].object", f"{move.object!r} is a container; moves carry single objects")
        if move.to not in place_ids:
            fail(f"moves[{i}].to", f"expected a place id, got {move.to!r}")
        for field_name, names in (("unseen_by", move.unseen_by), ("seen_by", move.seen_by)):
            for j, name in enumerate(names):
                if name not in agent_rooms:
                    fail(f"moves[{i}].{field_name}[{j}]", f"expected an agent id ({', '.join(agent_rooms)}), "
                                                         f"got {name!r}")
        both = set(move.unseen_by) & set(move.seen_by)
        if both:
            fail(f"moves[{i}]", f"agent {sorted(both)[0]!r} cannot both see and not see the move")

    task = sc.task
    if task.kind == "transport":
        budget = task.budget or 3000
        if task.predicates:
            fail("task.predicates", "transport tasks have a goal place, not predicates")
        if task.goal is None:
            fail("task.goal", "missing: a transport task needs the goal place id (e.g. the bed)")
        if task.goal not in place_by_id or place_by_id[task.goal].kind != "surface":
            surfaces = [p.id for p in sc.places if p.kind == "surface"]
            fail("task.goal", f"expected a surface place id ({', '.join(surfaces) or 'none defined'}), got {task.goal!r}")
        targets = [o for o in sc.objects if o.kind == "target"]
        if not targets:
            fail("objects", "a transport task needs at least one object of kind 'target'")
        for i, obj in enumerate(sc.objects):
            if obj.at == task.goal or (obj.at in objects and objects[obj.at].at == task.goal):
                fail(f"objects[{i}].at", f"{obj.id!r} starts on the goal {task.goal!r}; expected it elsewhere")
    else:
        budget = task.budget or 250
        if task.goal is not None:
            fail("task.goal", "household tasks are predicates; 'goal' is for transport tasks")
        if not task.predicates:
            fail("task.predicates", "a household task needs at least one predicate")
        classes: dict[str, int] = {}
        for obj in sc.objects:
            classes[obj.class_] = classes.get(obj.class_, 0) + 1
        wanted: dict[str, int] = {}
        for i, pred in enumerate(task.predicates):
            place = place_by_id.get(pred.place)
            if place is None:
                fail(f"task.predicates[{i}].place", f"expected a place id, got {pred.place!r}")
            needed_kind = "surface" if pred.relation == "ON" else "receptacle"
            if place.kind != needed_kind:
                fail(f"task.predicates[{i}].place",
                     f"{pred.relation} needs a {needed_kind}, but {pred.place!r} is a {place.kind}")
            wanted[pred.object] = wanted.get(pred.object, 0) + pred.count
        for i, pred in enumerate(task.predicates):
            if wanted[pred.object] > classes.get(pred.object, 0):
                fail(f"task.predicates[{i}].count",
                     f"the predicates need {wanted[pred.object]} {pred.object!r} objects but the scene has "
                     f"{classes.get(pred.object, 0)}")
        for i, obj in enumerate(sc.objects):
            if obj.kind == "container":
                fail(f"objects[{i}].kind", "containers belong to transport tasks; household objects are 'item'")

    if sc.category is not None:
        allowed = (TRANSPORT_CATEGORIES if task.kind == "transport" else HOUSEHOLD_CATEGORIES) + TEACHING_CATEGORIES
        if sc.category not in allowed:
            fail("category", f"expected one of {', '.join(allowed)} for a {task.kind} task, got {sc.category!r}")

    spec = sc.model_dump(by_alias=True)
    spec["places"] = spec["places"] + floors
    spec["task"]["budget"] = budget
    spec["doors"] = [list(d) for d in spec["doors"]]
    for room in spec["rooms"]:
        room["xy"], room["size"] = list(room["xy"]), list(room["size"])
    return spec


def _check_geometry(rooms: list[Room], fail: Any) -> None:
    """Rooms the renderer can draw: sides of ROOM_SIDE metres, centres within MAX_COORDINATE,
    the layout within MAX_HOUSE_SIDE on each axis, and no two rooms overlapping (rooms may
    share a wall: their edges may touch)."""
    low, high = ROOM_SIDE
    for i, room in enumerate(rooms):
        for axis, (value, what) in enumerate(zip(room.xy, ("x", "y"))):
            if not -MAX_COORDINATE <= value <= MAX_COORDINATE:
                fail(f"rooms[{i}].xy[{axis}]", f"expected a centre {what} from {-MAX_COORDINATE:g} to "
                     f"{MAX_COORDINATE:g} metres, got {value!r:.40}")
        for axis, (value, what) in enumerate(zip(room.size, ("width", "height"))):
            if not low <= value <= high:
                fail(f"rooms[{i}].size[{axis}]", f"expected a {what} from {low:g} to {high:g} metres, got {value!r:.40}")
    for axis, what in enumerate(("x", "y")):
        lo = min(r.xy[axis] - r.size[axis] / 2 for r in rooms)
        hi = max(r.xy[axis] + r.size[axis] / 2 for r in rooms)
        if hi - lo > MAX_HOUSE_SIDE:
            fail("rooms", f"the rooms span {hi - lo:g} metres along {what}; expected at most {MAX_HOUSE_SIDE:g} "
                          "(the layout is drawn one tile per metre)")
    eps = 1e-6
    for i, a in enumerate(rooms):
        for j in range(i):
            b = rooms[j]
            if all(abs(a.xy[k] - b.xy[k]) < (a.size[k] + b.size[k]) / 2 - eps for k in (0, 1)):
                fail(f"rooms[{i}]", f"room {a.id!r} overlaps room {b.id!r} (rooms[{j}]); expected rooms that at "
                                    "most share a wall")


def json_schema() -> dict[str, Any]:
    """The JSON Schema of scenario files, for editors; with the teaching ``questions`` every
    world's files may have (read by the loader: ``sim/questions.py``)."""
    from sim.questions import QUESTIONS_FIELD, json_schema as questions_schema

    schema = HouseholdScenario.model_json_schema(by_alias=True)
    questions = questions_schema()
    schema.setdefault("$defs", {}).update(questions.pop("$defs"))
    schema["properties"][QUESTIONS_FIELD] = questions
    return schema
