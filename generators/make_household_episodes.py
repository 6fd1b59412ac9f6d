"""Generate the household world's episodes: the easy set and the houses set.

    python -m generators.make_household_episodes            # write both sets
    python -m generators.make_household_episodes --check    # only check that the files are up to date
    python -m generators.make_household_episodes --set houses

Two named sets. **easy** (``scenarios/household/*.json``, seed 2024): the first episodes, 24
transport in houses of 6-7 rooms and 10 household tasks in 4-room homes where a walk is one step.
**houses** (``scenarios/household/houses/``, seed 2025): houses of the references' size, 6-12 rooms
grown on a 4 x 3 grid, with the 10 targets (transport) or the 5-8 predicate units (household)
spread over the rooms, so that agents that split the work and share what they saw gain: 24
transport episodes (the same four categories), 20 household episodes (the five tasks x 4 houses,
a step of walking per 4 m) with two agents, and the first two houses of each household task again
with 3 and 4 agents (CoBel-World's Table 4). **unseen** (``scenarios/household/unseen/``, seed 2026):
16 more houses made the same way (8 transport, 8 household), named ``unseen-...``, for designs
declared after the houses set had been used. **voi** (``scenarios/household/voi/``, seed 2027): 10
more two-agent household houses (each task twice), for the value-of-information design ``cobel-voi``.

Everything follows from one seed (``--seed``, default 2024, 2025, 2026 by set): the same seed writes the same bytes.
Every episode is validated with the world's own schema before it is written, and checked to be
solvable in principle (each needed object exists outside its goal, every room is reachable).

Transport (after TDW-MAT's test set): food and stuff tasks x low capacity (2 containers) and high
capacity (5 containers), 6 episodes each, over 4 house plans; 10 targets of the task's 6 kinds
placed where they belong (food mostly in kitchens and living rooms, stuff in offices), containers
of the task's 3 kinds, a few other objects, the goal the bed of the bedroom, 3000 frames.
Household (after C-WAH): the 5 tasks x 2 houses; each episode draws 3-5 predicate units from the
task's object set (wash dishes and set up table draw from plates and forks), with their objects
spread over surfaces and closed receptacles (fridge, cabinets), never already in place; 250 steps.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sim.household.scenario import validate_household
from sim.household.world import HouseholdWorld
from sim.registry import SCENARIO_DIR

OUT_DIR = SCENARIO_DIR / "household"
DEFAULT_SEED = 2024
CELL_W, CELL_H = 7.0, 6.0  # metres between neighbouring room centres

# What each kind of room holds: (place id suffix, class, kind, openable)
FURNITURE: dict[str, list[tuple[str, str, str, bool]]] = {
    "livingroom": [("sofa", "sofa", "surface", False), ("coffeetable", "coffeetable", "surface", False),
                   ("cabinet", "cabinet", "receptacle", True), ("cabinet2", "cabinet", "receptacle", True)],
    "kitchen": [("counter", "kitchencounter", "surface", False), ("dinnertable", "dinnertable", "surface", False),
                ("fridge", "fridge", "receptacle", True), ("dishwasher", "dishwasher", "receptacle", True),
                ("cabinet", "kitchencabinet", "receptacle", True), ("cabinet2", "kitchencabinet", "receptacle", True),
                ("cabinet3", "kitchencabinet", "receptacle", True), ("microwave", "microwave", "receptacle", True)],
    "office": [("desk", "desk", "surface", False), ("bookshelf", "bookshelf", "surface", False)],
    "bedroom": [("bed", "bed", "surface", False), ("nightstand", "nightstand", "surface", False),
                ("wardrobe", "wardrobe", "receptacle", True), ("drawer", "drawer", "receptacle", True)],
    "bathroom": [("counter", "bathroomcounter", "surface", False), ("cabinet", "bathroomcabinet", "receptacle", True)],
}

# House plans: rooms as (id, kind, column, row) on a grid of CELL_W x CELL_H metres, and doors.
TRANSPORT_PLANS: dict[str, dict[str, Any]] = {
    "house1": {"rooms": [("office", "office", 0, 0), ("livingroom", "livingroom", 1, 0), ("kitchen", "kitchen", 2, 0),
                         ("bedroom", "bedroom", 0, 1), ("livingroom2", "livingroom", 1, 1), ("office2", "office", 2, 1)],
               "doors": [("office", "livingroom"), ("livingroom", "kitchen"), ("livingroom", "livingroom2"),
                         ("bedroom", "livingroom2"), ("livingroom2", "office2"), ("kitchen", "office2")]},
    "house2": {"rooms": [("kitchen", "kitchen", 0, 0), ("livingroom", "livingroom", 1, 0), ("office", "office", 2, 0),
                         ("bedroom", "bedroom", 3, 0), ("livingroom2", "livingroom", 1, 1), ("office2", "office", 2, 1)],
               "doors": [("kitchen", "livingroom"), ("livingroom", "office"), ("office", "bedroom"),
                         ("livingroom", "livingroom2"), ("livingroom2", "office2"), ("office2", "office")]},
    "house3": {"rooms": [("livingroom", "livingroom", 0, 0), ("kitchen", "kitchen", 1, 0),
                         ("office", "office", 0, 1), ("bedroom", "bedroom", 1, 1), ("office2", "office", 0, 2),
                         ("kitchen2", "kitchen", 1, 2)],
               "doors": [("livingroom", "kitchen"), ("livingroom", "office"), ("office", "bedroom"),
                         ("office", "office2"), ("office2", "kitchen2"), ("kitchen", "bedroom")]},
    "house4": {"rooms": [("bedroom", "bedroom", 0, 0), ("livingroom", "livingroom", 1, 0), ("kitchen", "kitchen", 2, 0),
                         ("office", "office", 3, 0), ("livingroom2", "livingroom", 1, 1), ("office2", "office", 2, 1),
                         ("livingroom3", "livingroom", 3, 1)],
               "doors": [("bedroom", "livingroom"), ("livingroom", "kitchen"), ("kitchen", "office"),
                         ("livingroom", "livingroom2"), ("livingroom2", "office2"), ("office2", "livingroom3"),
                         ("office", "livingroom3")]},
}
HOUSEHOLD_PLANS: dict[str, dict[str, Any]] = {
    "home1": {"rooms": [("kitchen", "kitchen", 0, 0), ("livingroom", "livingroom", 1, 0),
                        ("bathroom", "bathroom", 0, 1), ("bedroom", "bedroom", 1, 1)],
              "doors": [("kitchen", "livingroom"), ("livingroom", "bedroom"), ("bedroom", "bathroom")]},
    "home2": {"rooms": [("bedroom", "bedroom", 0, 0), ("livingroom", "livingroom", 1, 0), ("kitchen", "kitchen", 2, 0),
                        ("bathroom", "bathroom", 1, 1)],
              "doors": [("bedroom", "livingroom"), ("livingroom", "kitchen"), ("livingroom", "bathroom")]},
}

TRANSPORT_TASKS = {
    "food": {"targets": ["apple", "banana", "orange", "bread", "loaf_bread", "burger"],
             "containers": ["bowl", "plate", "tea_tray"],
             "others": ["vase", "book", "lamp", "cushion"],
             "room_weights": {"kitchen": 5, "livingroom": 3, "office": 1, "bedroom": 1}},
    "stuff": {"targets": ["calculator", "mouse", "pen", "lighter", "purse", "iphone"],
              "containers": ["plastic_basket", "wooden_basket", "wicker_basket"],
              "others": ["vase", "book", "lamp", "cushion"],
              "room_weights": {"kitchen": 1, "livingroom": 3, "office": 5, "bedroom": 2}},
}
CAPACITY_CONTAINERS = {"low": 2, "high": 5}

# C-WAH's five tasks (CoBel-World Table 6): relation, goal place suffix, object classes
HOUSEHOLD_TASKS = {
    "prepare-tea": ("ON", "coffeetable", ["cupcake", "pudding", "apple", "juice", "wine"]),
    "wash-dishes": ("IN", "dishwasher", ["plate", "fork"]),
    "prepare-meal": ("ON", "dinnertable", ["coffeepot", "cupcake", "pancake", "poundcake", "pudding", "apple",
                                           "juice", "wine"]),
    "put-groceries": ("IN", "fridge", ["cupcake", "pancake", "poundcake", "pudding", "apple", "juice", "wine"]),
    "set-up-table": ("ON", "dinnertable", ["plate", "fork"]),
}
# where household objects start: dishes in cabinets, on counters and tables; food in the fridge,
# on counters and tables; the goal place of a predicate is never a start
DISH_PLACES = ["kitchen_cabinet", "kitchen_cabinet2", "kitchen_cabinet3", "kitchen_counter", "kitchen_dinnertable",
               "livingroom_coffeetable", "kitchen_dishwasher", "livingroom_cabinet", "livingroom_cabinet2"]
FOOD_PLACES = ["kitchen_fridge", "kitchen_counter", "kitchen_cabinet", "kitchen_cabinet2", "kitchen_cabinet3",
               "kitchen_microwave", "kitchen_dinnertable", "livingroom_coffeetable", "livingroom_sofa",
               "livingroom_cabinet", "livingroom_cabinet2", "bedroom_nightstand", "bedroom_drawer"]
HOUSEHOLD_DISTRACTORS = ["book", "towel", "toothbrush", "remote", "candle", "mug"]


def _house(plan: dict[str, Any]) -> tuple[list[dict[str, Any]], list[list[str]], list[dict[str, Any]]]:
    rooms = [{"id": rid, "kind": kind, "xy": [round(CELL_W * (c + 0.5), 2), round(CELL_H * (r + 0.5), 2)],
              "size": [CELL_W, CELL_H]} for rid, kind, c, r in plan["rooms"]]
    doors = [[a, b] for a, b in plan["doors"]]
    places = []
    for rid, kind, _, _ in plan["rooms"]:
        for suffix, cls, pkind, openable in FURNITURE[kind]:
            place = {"id": f"{rid}_{suffix}", "class": cls, "room": rid, "kind": pkind}
            if openable:
                place.update(openable=True, open=False)
            places.append(place)
    return rooms, doors, places


def _pick(rng: np.random.Generator, options: list[Any], weights: list[float] | None = None) -> Any:
    p = None if weights is None else np.asarray(weights, float) / float(np.sum(weights))
    return options[int(rng.choice(len(options), p=p))]


class _Objects(list[dict[str, Any]]):
    """An episode's objects, each class numbered from 1 (``apple_1``, ``apple_2``) in the order added."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[str, int] = {}

    def add(self, cls: str, kind: str, at: str) -> None:
        """Add an object of ``cls`` at ``at``; a container carries three."""
        self.counts[cls] = self.counts.get(cls, 0) + 1
        obj: dict[str, Any] = {"id": f"{cls}_{self.counts[cls]}", "class": cls, "kind": kind, "at": at}
        if kind == "container":
            obj["capacity"] = 3
        self.append(obj)


def _household_goal(rng: np.random.Generator, task: str, units: tuple[int, int]
                    ) -> tuple[list[str], str, dict[str, int], list[dict[str, Any]]]:
    """A household task's classes, goal place, the units wanted of each class (``units[0]`` to
    ``units[1]`` in all, in the task's class order; plates and forks: both) and its predicates."""
    relation, goal_suffix, classes = HOUSEHOLD_TASKS[task]
    goal_place = f"kitchen_{goal_suffix}" if goal_suffix != "coffeetable" else "livingroom_coffeetable"
    total = int(rng.integers(units[0], units[1] + 1))
    wanted: dict[str, int] = {}
    if len(classes) == 2:
        first = int(rng.integers(1, total))
        wanted = {classes[0]: first, classes[1]: total - first}
    else:
        chosen = list(rng.choice(len(classes), size=min(total, len(classes)), replace=False))
        for i in range(total):
            cls = classes[int(chosen[i % len(chosen)])]
            wanted[cls] = wanted.get(cls, 0) + 1
    wanted = {c: wanted[c] for c in classes if c in wanted}  # task order, not draw order
    predicates = [{"relation": relation, "object": c, "place": goal_place, "count": n} for c, n in wanted.items()]
    return classes, goal_place, wanted, predicates


def _predicates_text(predicates: list[dict[str, Any]]) -> str:
    return "; ".join(f"{p['relation']}({p['object']}, {p['place']}) x{p['count']}" for p in predicates)


def _check_goals(world: HouseholdWorld, source: str, units: tuple[int, int]) -> None:
    """TDW-MAT's 10 targets and 2-5 containers of capacity 3, or ``units`` predicate units none of
    which is met at the start; the references' budgets."""
    if world.task == "transport":
        if len(world.targets) != 10:
            raise ValueError(f"{source}: expected 10 targets, found {len(world.targets)}")
        containers = [o for o in world.objects if o.kind == "container"]
        if not 2 <= len(containers) <= 5 or any(c.capacity != 3 for c in containers):
            raise ValueError(f"{source}: expected 2-5 containers of capacity 3")
    else:
        if not units[0] <= world.total_goals <= units[1]:
            raise ValueError(f"{source}: expected {units[0]}-{units[1]} predicate units, found {world.total_goals}")
        if world.progress(world.reset(0)) != 0:
            raise ValueError(f"{source}: a predicate is true before anyone acts")
    if world.budget != (3000 if world.task == "transport" else 250):
        raise ValueError(f"{source}: unexpected budget {world.budget}")


def transport_episode(rng: np.random.Generator, kind: str, capacity: str, index: int, plan_name: str) -> dict[str, Any]:
    spec = TRANSPORT_TASKS[kind]
    rooms, doors, places = _house(TRANSPORT_PLANS[plan_name])
    room_kind = {r["id"]: r["kind"] for r in rooms}
    goal = next(p["id"] for p in places if p["class"] == "bed")
    # targets and containers lie on open surfaces and floors (TDW-MAT has no opening), never on the bed
    spots = [p["id"] for p in places if p["kind"] == "surface" and p["id"] != goal] + [f"{r['id']}_floor" for r in rooms]
    spot_room = {s: (s[: -len("_floor")] if s.endswith("_floor") else next(p["room"] for p in places if p["id"] == s))
                 for s in spots}
    weights = [float(spec["room_weights"][room_kind[spot_room[s]]]) for s in spots]
    objects = _Objects()
    for i in range(10):
        objects.add(spec["targets"][i % 6] if i < 6 else _pick(rng, spec["targets"]), "target",
                    _pick(rng, spots, weights))
    for _ in range(CAPACITY_CONTAINERS[capacity]):
        objects.add(_pick(rng, spec["containers"]), "container", _pick(rng, spots, weights))
    for _ in range(int(rng.integers(2, 5))):
        objects.add(_pick(rng, spec["others"]), "item", _pick(rng, spots, [1.0] * len(spots)))
    room_ids = [r["id"] for r in rooms]
    agents = [{"id": name, "room": _pick(rng, room_ids)} for name in ("alice", "bob")]
    category = f"{kind}-{capacity}-capacity"
    return {
        "world": "household", "name": f"transport-{kind}-{capacity}-{index:02d}",
        "title": f"Transport {kind}, {capacity} capacity #{index} ({plan_name})",
        "description": (f"Bring the 10 {kind} targets to the bed within 3000 frames; "
                        f"{CAPACITY_CONTAINERS[capacity]} containers carry three each."),
        "category": category, "rooms": rooms, "doors": doors, "places": places, "objects": objects,
        "agents": agents, "task": {"kind": "transport", "goal": goal, "budget": 3000},
    }


def household_episode(rng: np.random.Generator, task: str, index: int, plan_name: str) -> dict[str, Any]:
    rooms, doors, places = _house(HOUSEHOLD_PLANS[plan_name])
    classes, goal_place, wanted, predicates = _household_goal(rng, task, (3, 5))
    starts = [p for p in (DISH_PLACES if len(classes) == 2 else FOOD_PLACES) if p != goal_place]
    objects = _Objects()
    for cls, n in wanted.items():
        for _ in range(n + int(rng.integers(0, 2))):  # sometimes one spare
            objects.add(cls, "item", _pick(rng, starts))
    surfaces = [p["id"] for p in places if p["kind"] == "surface" and p["id"] != goal_place]
    for _ in range(int(rng.integers(3, 6))):
        objects.add(_pick(rng, HOUSEHOLD_DISTRACTORS), "item", _pick(rng, surfaces))
    room_ids = [r["id"] for r in rooms]
    agents = [{"id": name, "room": _pick(rng, room_ids)} for name in ("alice", "bob")]
    nice = task.replace("-", " ")
    return {
        "world": "household", "name": f"household-{task}-{index:02d}",
        "title": f"{nice.capitalize()} #{index} ({plan_name})",
        "description": _predicates_text(predicates) + " within 250 steps.",
        "category": task, "rooms": rooms, "doors": doors, "places": places, "objects": objects,
        "agents": agents, "task": {"kind": "household", "budget": 250, "predicates": predicates},
    }


def generate(seed: int = DEFAULT_SEED) -> dict[str, dict[str, Any]]:
    """Every episode, by file name, from one seed."""
    rng = np.random.default_rng(seed)
    episodes: dict[str, dict[str, Any]] = {}
    plans = sorted(TRANSPORT_PLANS)
    for kind in ("food", "stuff"):
        for capacity in ("low", "high"):
            for i in range(6):
                ep = transport_episode(rng, kind, capacity, i + 1, plans[i % len(plans)])
                episodes[ep["name"] + ".json"] = ep
    homes = sorted(HOUSEHOLD_PLANS)
    for task in HOUSEHOLD_TASKS:
        for i in range(2):
            ep = household_episode(rng, task, i + 1, homes[i])
            episodes[ep["name"] + ".json"] = ep
    for name, ep in episodes.items():
        ep["seed"] = seed
        check(ep, name)
    return episodes


def check(episode: dict[str, Any], source: str) -> None:
    """Validate with the schema, then check that the goals can be reached at all."""
    _check_goals(HouseholdWorld(validate_household(episode, source)), source, (3, 5))


# ---------------------------------------------------------------------- the houses set

HOUSES_DIR = "houses"
HOUSES_SEED = 2025
HOUSE_GRID = (4, 3)  # columns x rows of CELL_W x CELL_H cells a house is grown on (at most 12 rooms)
HOUSE_SIZES = (6, 7, 8, 9, 10, 11, 12)
EXTRA_DOOR = 0.3  # chance of a door between two neighbouring rooms beyond the spanning tree
#: household tasks in the houses: one step of walking per 4 m (neighbouring rooms: 2 steps), as in
#: C-WAH, where walking to a room takes several steps
HOUSES_HOUSEHOLD_COSTS = {"frames_per_meter": 0.25}
AGENT_NAMES = ("alice", "bob", "carol", "dave")
HOUSEHOLD_UNITS = (5, 8)  # predicate units per household task in the houses
# where household objects start in the houses, by place class (any room of that kind)
DISH_CLASSES = ("kitchencabinet", "kitchencounter", "dinnertable", "coffeetable", "cabinet", "dishwasher")
FOOD_CLASSES = ("fridge", "kitchencounter", "kitchencabinet", "microwave", "dinnertable", "coffeetable", "sofa",
                "cabinet", "nightstand", "drawer", "desk")
MAX_TARGETS_PER_ROOM = 3


def _house_size(rng: np.random.Generator) -> int:
    return HOUSE_SIZES[int(rng.integers(len(HOUSE_SIZES)))]


def _together(rng: np.random.Generator, rooms: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Two agents that start together in a random room."""
    start = _pick(rng, [r["id"] for r in rooms])
    return [{"id": name, "room": start} for name in AGENT_NAMES[:2]]


def _houses_transport(rng: np.random.Generator, per_category: int) -> Iterator[dict[str, Any]]:
    """``per_category`` transport episodes in new houses of each of the four categories, in turn."""
    for kind in ("food", "stuff"):
        for capacity in ("low", "high"):
            for i in range(per_category):
                yield houses_transport_episode(rng, kind, capacity, i + 1, _house_size(rng))


def house_plan(rng: np.random.Generator, rooms: int) -> dict[str, Any]:
    """A house of ``rooms`` rooms grown cell by cell on the grid: a bedroom (the only one: its bed
    is the transport goal), a kitchen, a living room, an office, and the rest drawn from kitchens,
    living rooms, offices and bathrooms; doors along the growth (a spanning tree) and, with
    probability EXTRA_DOOR, between other neighbouring rooms."""
    cols, rows = HOUSE_GRID
    if not 4 <= rooms <= cols * rows:
        raise ValueError(f"a house has 4 to {cols * rows} rooms, got {rooms}")
    start = (int(rng.integers(cols)), int(rng.integers(rows)))
    cells = [start]
    tree: list[tuple[tuple[int, int], tuple[int, int]]] = []
    while len(cells) < rooms:
        frontier = sorted({(c, (c[0] + dx, c[1] + dy)) for c in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                           if 0 <= c[0] + dx < cols and 0 <= c[1] + dy < rows and (c[0] + dx, c[1] + dy) not in cells})
        parent, cell = frontier[int(rng.integers(len(frontier)))]
        cells.append(cell)
        tree.append((parent, cell))
    kinds = ["bedroom", "kitchen", "livingroom", "office"]
    kinds += [_pick(rng, ["kitchen", "livingroom", "office", "bathroom"], [1, 2, 2, 1]) for _ in range(rooms - 4)]
    order = [int(i) for i in rng.permutation(rooms)]
    counts: dict[str, int] = {}
    names: dict[tuple[int, int], tuple[str, str]] = {}
    for kind, i in zip(kinds, order):
        counts[kind] = counts.get(kind, 0) + 1
        names[cells[i]] = (kind if counts[kind] == 1 else f"{kind}{counts[kind]}", kind)
    doors = {frozenset(edge) for edge in tree}
    for a in cells:
        for b in cells:
            if a < b and abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 and frozenset((a, b)) not in doors \
                    and rng.random() < EXTRA_DOOR:
                doors.add(frozenset((a, b)))
    room_list = [(names[c][0], names[c][1], c[0], c[1]) for c in sorted(cells, key=lambda c: (c[1], c[0]))]
    door_list = sorted(tuple(sorted(names[c][0] for c in d)) for d in doors)
    return {"rooms": room_list, "doors": door_list}


def houses_transport_episode(rng: np.random.Generator, kind: str, capacity: str, index: int,
                             rooms: int) -> dict[str, Any]:
    """A transport episode in a new house: 10 targets spread over the rooms by kind (at most 3 a
    room, never in the bedroom), containers on floors and surfaces, two agents in random rooms."""
    spec = TRANSPORT_TASKS[kind]
    plan = house_plan(rng, rooms)
    rooms_, doors, places = _house(plan)
    room_kind = {r["id"]: r["kind"] for r in rooms_}
    goal = next(p["id"] for p in places if p["class"] == "bed")
    spots_of = {r["id"]: [p["id"] for p in places if p["room"] == r["id"] and p["kind"] == "surface"
                          and p["id"] != goal] + [f"{r['id']}_floor"] for r in rooms_}
    weights = {**spec["room_weights"], "bathroom": 1}
    candidates = [r for r in spots_of if room_kind[r] != "bedroom"]
    objects = _Objects()
    per_room: dict[str, int] = {}

    def add(cls: str, okind: str, room: str) -> None:
        objects.add(cls, okind, _pick(rng, spots_of[room]))

    for i in range(10):
        free = [r for r in candidates if per_room.get(r, 0) < MAX_TARGETS_PER_ROOM]
        room = _pick(rng, free, [float(weights[room_kind[r]]) for r in free])
        per_room[room] = per_room.get(room, 0) + 1
        add(spec["targets"][i % 6] if i < 6 else _pick(rng, spec["targets"]), "target", room)
    for _ in range(CAPACITY_CONTAINERS[capacity]):
        add(_pick(rng, spec["containers"]), "container", _pick(rng, list(spots_of)))
    for _ in range(int(rng.integers(2, 5))):
        add(_pick(rng, spec["others"]), "item", _pick(rng, list(spots_of)))
    agents = _together(rng, rooms_)
    return {
        "world": "household", "name": f"house-transport-{kind}-{capacity}-{index:02d}",
        "title": f"Transport {kind}, {capacity} capacity, {rooms} rooms #{index}",
        "description": (f"Bring the 10 {kind} targets, spread over a {rooms}-room house, to the bed within 3000 "
                        f"frames; {CAPACITY_CONTAINERS[capacity]} containers carry three each."),
        "category": f"{kind}-{capacity}-capacity", "rooms": rooms_, "doors": doors, "places": places,
        "objects": objects, "agents": agents, "task": {"kind": "transport", "goal": goal, "budget": 3000},
    }


def houses_household_episode(rng: np.random.Generator, task: str, index: int, rooms: int) -> dict[str, Any]:
    """A C-WAH-like episode in a new house: 5-8 predicate units, their objects (and sometimes a
    spare) spread over the rooms (a room drawn first, then a place of it), most of them inside
    closed receptacles; walking costs a step per 4 m."""
    plan = house_plan(rng, rooms)
    rooms_, doors, places = _house(plan)
    classes, goal_place, wanted, predicates = _household_goal(rng, task, HOUSEHOLD_UNITS)
    start_classes = DISH_CLASSES if len(classes) == 2 else FOOD_CLASSES
    starts: dict[str, list[str]] = {}
    for p in places:
        if p["class"] in start_classes and p["id"] != goal_place:
            starts.setdefault(p["room"], []).append(p["id"])
    start_rooms = sorted(starts)
    objects = _Objects()
    for cls, n in wanted.items():
        for _ in range(n + int(rng.integers(0, 2))):
            objects.add(cls, "item", _pick(rng, starts[_pick(rng, start_rooms)]))
    surfaces = [p["id"] for p in places if p["kind"] == "surface" and p["id"] != goal_place]
    for _ in range(int(rng.integers(3, 7))):
        objects.add(_pick(rng, HOUSEHOLD_DISTRACTORS), "item", _pick(rng, surfaces))
    agents = _together(rng, rooms_)
    nice = task.replace("-", " ")
    return {
        "world": "household", "name": f"house-{task}-{index:02d}",
        "title": f"{nice.capitalize()}, {rooms} rooms #{index}",
        "description": _predicates_text(predicates)
                       + f" within 250 steps, in a {rooms}-room house (a step of walking per 4 m).",
        "category": task, "rooms": rooms_, "doors": doors, "places": places, "objects": objects,
        "agents": agents, "task": {"kind": "household", "budget": 250, "predicates": predicates},
        "costs": dict(HOUSES_HOUSEHOLD_COSTS),
    }


def with_agents(episode: dict[str, Any], n: int) -> dict[str, Any]:
    """The same episode with ``n`` agents (Table 4's scaling), all starting in the same room."""
    out = json.loads(json.dumps(episode))
    out["agents"] = out["agents"][:2] + [{"id": name, "room": out["agents"][0]["room"]} for name in AGENT_NAMES[2:n]]
    out["name"] = f"{episode['name']}-{n}agents"
    out["title"] = f"{episode['title']}, {n} agents"
    return out


def generate_houses(seed: int = HOUSES_SEED) -> dict[str, dict[str, Any]]:
    """The houses set, by file name: 24 transport and 20 household episodes with two agents in
    houses of 6-12 rooms, and the first two houses of each household task again with 3 and 4
    agents (20 episodes)."""
    rng = np.random.default_rng(seed)
    episodes: dict[str, dict[str, Any]] = {}
    for ep in _houses_transport(rng, 6):
        episodes[ep["name"] + ".json"] = ep
    scaled = []
    for task in HOUSEHOLD_TASKS:
        for i in range(4):
            ep = houses_household_episode(rng, task, i + 1, _house_size(rng))
            episodes[ep["name"] + ".json"] = ep
            if i < 2:
                scaled.append(ep)
    for ep in scaled:
        for n in (3, 4):
            big = with_agents(ep, n)
            episodes[big["name"] + ".json"] = big
    for name, ep in episodes.items():
        ep["seed"] = seed
        check_house(ep, name)
    return episodes


UNSEEN_DIR = "unseen"
UNSEEN_SEED = 2026


def generate_unseen(seed: int = UNSEEN_SEED) -> dict[str, dict[str, Any]]:
    """The unseen houses, by file name: houses made like the houses set's from another seed, kept
    apart for a design declared after the houses set had been used: 8 transport episodes (each
    category twice) and 8 two-agent household episodes (the five tasks in turn), named
    ``unseen-...``."""
    rng = np.random.default_rng(seed)
    episodes: dict[str, dict[str, Any]] = {}
    for ep in _houses_transport(rng, 2):
        episodes[ep["name"]] = ep
    for i in range(8):
        task = list(HOUSEHOLD_TASKS)[i % len(HOUSEHOLD_TASKS)]
        ep = houses_household_episode(rng, task, i // len(HOUSEHOLD_TASKS) + 1, _house_size(rng))
        episodes[ep["name"]] = ep
    out = {}
    for name, ep in episodes.items():
        ep["name"] = f"unseen-{name}"
        ep["title"] = f"{ep['title']} (unseen)"
        ep["seed"] = seed
        check_house(ep, ep["name"])
        out[ep["name"] + ".json"] = ep
    return out


VOI_DIR = "voi"
VOI_SEED = 2027


def generate_voi(seed: int = VOI_SEED) -> dict[str, dict[str, Any]]:
    """The houses of the value-of-information design (``cobel-voi``), declared after the houses and
    unseen sets had been used: 10 two-agent household episodes (each of the five tasks twice), made
    like the houses set's from another seed, named ``voi-...``."""
    rng = np.random.default_rng(seed)
    out = {}
    for i in range(10):
        task = list(HOUSEHOLD_TASKS)[i % len(HOUSEHOLD_TASKS)]
        ep = houses_household_episode(rng, task, i // len(HOUSEHOLD_TASKS) + 1, _house_size(rng))
        ep["name"] = f"voi-{ep['name']}"
        ep["title"] = f"{ep['title']} (value-of-information houses)"
        ep["seed"] = seed
        check_house(ep, ep["name"])
        out[ep["name"] + ".json"] = ep
    return out


def check_house(episode: dict[str, Any], source: str) -> None:
    """The houses set: 6-12 rooms, 2-4 agents, one bed, TDW-MAT's 10 targets and 2-5 containers
    or C-WAH's predicates (5-8 units, none met at the start), the references' budgets."""
    spec = validate_household(episode, source)
    world = HouseholdWorld(spec)
    if not 6 <= len(world.room_ids) <= 12:
        raise ValueError(f"{source}: expected 6-12 rooms, found {len(world.room_ids)}")
    if not 2 <= len(world.agents) <= 4:
        raise ValueError(f"{source}: expected 2-4 agents, found {len(world.agents)}")
    if sum(1 for p in world.places if p.cls == "bed") != 1:
        raise ValueError(f"{source}: expected one bed")
    _check_goals(world, source, HOUSEHOLD_UNITS)


def render(episode: dict[str, Any]) -> str:
    return json.dumps(episode, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=("all", "easy", "houses", "unseen", "voi"), default="all",
                        help="easy: the first 34 episodes (scenarios/household/*.json); houses: the 64 episodes "
                             "in houses of 6-12 rooms (scenarios/household/houses/); unseen: 16 more houses from "
                             f"seed {UNSEEN_SEED} (scenarios/household/unseen/); voi: 10 household houses from seed {VOI_SEED} "
                             "(scenarios/household/voi/); all: the four")
    parser.add_argument("--seed", type=int, default=None,
                        help=f"the seed of the set (default {DEFAULT_SEED} for easy, {HOUSES_SEED} for houses)")
    parser.add_argument("--check", action="store_true", help="do not write; fail if the files differ")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    files: dict[Path, dict[str, Any]] = {}
    if args.set in ("all", "easy"):
        for name, ep in generate(DEFAULT_SEED if args.seed is None else args.seed).items():
            files[args.out / name] = ep
    if args.set in ("all", "houses"):
        for name, ep in generate_houses(HOUSES_SEED if args.seed is None else args.seed).items():
            files[args.out / HOUSES_DIR / name] = ep
    if args.set in ("all", "unseen"):
        for name, ep in generate_unseen(UNSEEN_SEED if args.seed is None else args.seed).items():
            files[args.out / UNSEEN_DIR / name] = ep
    if args.set in ("all", "voi"):
        for name, ep in generate_voi(VOI_SEED if args.seed is None else args.seed).items():
            files[args.out / VOI_DIR / name] = ep
    stale = []
    for path, ep in files.items():
        text = render(ep)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check:
        if stale:
            print(f"{len(stale)} episode files differ from the generator: {', '.join(stale)}")
            return 1
        print(f"{len(files)} episode files are up to date")
        return 0
    print(f"wrote {len(files)} episodes to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
