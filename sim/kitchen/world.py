"""The partially observable kitchen of ProToM (seed 003: Section 4.1, Appendix A.1, Figure A8),
built on gym-cooking's kitchen (Wu et al. 2021) and split into rooms by doors.

Cells are floor, doors (walkable; they split rooms), walls, counters, cutting boards and
delivery stations. Counters and boards hold one object each. Agents move at the same time;
actions are strings::

    up | down | left | right   move one cell; moving into a counter, board or delivery
                               station instead interacts with it (gym-cooking's rule):
                               pick up, put down, merge, chop or deliver
    stay                       do nothing

Objects: FreshTomato/FreshLettuce/FreshOnion --chop on a board--> Chopped* --merge with a
Plate--> Chopped*-Plate --deliver--> the recipe SimpleTomato/SimpleLettuce/SimpleOnion.
Each agent has its own goal dish and completes it by delivering that dish itself; the episode
ends when every agent has delivered, or after ``t_max`` ticks.

A spec with ``orders`` plays gym-cooking's own rules instead (team-orders mode): the cooks share
a list of recipes, any cook delivers any dish, chopped foods merge with each other and with at
most one plate in any order (multi-ingredient dishes: Salad, OnionSalad), any deliverable object
leaves the kitchen, and the episode succeeds when every order is delivered. An agent sees the objects and
agents of its own room only (docs/kitchen.md states every rule and conflict). The spec's
``rules`` says what an agent on a door sees: under rules 2 (the paper's: doors block vision) only
the stations next to that door and agents on it; under rules 1 (specs written before) both rooms.

For speed a state is four small tuples, and the layout's geometry (moves, rooms, what each
cell sees, distances) is computed once per World.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sim.kitchen.level import RECIPES
from sim.kitchen.overcooked import RULES_NAME, OvercookedWorld
from sim.world import AgentId, IllegalAction, StepResult, World, WorldEvent, require_joint

ACTIONS: tuple[str, ...] = ("up", "down", "left", "right", "stay")
ACTION_INDEX = {a: i for i, a in enumerate(ACTIONS)}
MOVES: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1), (0, 0))

# Object codes. Each ingredient k (0 tomato, 1 lettuce, 2 onion) has fresh 1+3k, chopped 2+3k,
# plated dish 3+3k, so chopping adds 1 and plating the chopped one adds 1 more. Codes 0-10 are
# those of every recording; 11-18, the merged chopped foods of two or three ingredients without
# and with a plate, occur only in team-orders mode (gym-cooking's rules).
NOTHING = 0
PLATE = 10
#: in a belief (never in a state): a station whose contents the believer has never seen
UNKNOWN = -1
INGREDIENTS: tuple[str, ...] = ("Tomato", "Lettuce", "Onion")
_COMBOS: tuple[int, ...] = (0b011, 0b101, 0b110, 0b111)  # ingredient masks of 2-3 ingredients, bit k: ingredient k
ITEM_NAMES: tuple[str, ...] = (
    "nothing",
    "FreshTomato", "ChoppedTomato", "ChoppedTomato-Plate",
    "FreshLettuce", "ChoppedLettuce", "ChoppedLettuce-Plate",
    "FreshOnion", "ChoppedOnion", "ChoppedOnion-Plate",
    "Plate",
    *("-".join([*(f"Chopped{INGREDIENTS[k]}" for k in range(3) if mask >> k & 1), *(["Plate"] * plate)])
      for mask in _COMBOS for plate in (0, 1)),
)
ITEM_CODE = {name: code for code, name in enumerate(ITEM_NAMES)}
N_ITEMS = len(ITEM_NAMES)
#: what each object is made of: (ingredient mask, has a plate, is a fresh ingredient)
ITEM_PARTS: tuple[tuple[int, bool, bool], ...] = (
    (0, False, False),
    *((1 << k, plate, fresh) for k in range(3)
      for fresh, plate in ((True, False), (False, False), (False, True))),
    (0, True, False),
    *((mask, bool(plate), False) for mask in _COMBOS for plate in (0, 1)),
)
#: (ingredient mask, plate) of chopped food and plates -> object code
PARTS_CODE: dict[tuple[int, bool], int] = {(m, p): code for code, (m, p, f) in enumerate(ITEM_PARTS)
                                          if code != NOTHING and not f}
#: recipe -> the code of its finished dish (the per-cook goals)
RECIPE_DISH = {"SimpleTomato": 3, "SimpleLettuce": 6, "SimpleOnion": 9}
DISH_RECIPE = {code: recipe for recipe, code in RECIPE_DISH.items()}
#: team-orders mode: every recipe gym-cooking has -> the code of its dish (chopped food on a plate)
ORDER_DISH = {**RECIPE_DISH, "Salad": PARTS_CODE[(0b011, True)], "OnionSalad": PARTS_CODE[(0b111, True)]}
#: map character -> object lying on that counter at the start
START_ITEMS = {"t": 1, "T": 2, "l": 4, "L": 5, "o": 7, "O": 8, "p": PLATE}
#: characters drawn for objects in ``render_text`` (merged foods: 's' without a plate, 'S' on one)
ITEM_CHARS = ("", "t", "T", "3", "l", "L", "6", "o", "O", "9", "p", "s", "S", "s", "S", "s", "S", "s", "S")


def is_fresh(item: int) -> bool:
    return 1 <= item <= 9 and item % 3 == 1


def is_chopped(item: int) -> bool:
    return 1 <= item <= 9 and item % 3 == 2


def is_dish(item: int) -> bool:
    return 1 <= item <= 9 and item % 3 == 0


def is_deliverable(item: int) -> bool:
    """gym-cooking's rule: a merged object (two parts or more) of chopped food and a plate."""
    mask, plate, fresh = ITEM_PARTS[item]
    return not fresh and bin(mask).count("1") + plate >= 2


def merged(a: int, b: int) -> int | None:
    """The object two objects make merged under gym-cooking's ``mergeable`` (both chopped food or
    a plate, at most one plate between them), or None. The same ingredient twice cannot be
    represented here, so such a merge does nothing (gym-cooking allows it; no recipe uses it)."""
    ma, pa, fa = ITEM_PARTS[a]
    mb, pb, fb = ITEM_PARTS[b]
    if fa or fb or (pa and pb) or ma & mb:
        return None
    return PARTS_CODE[(ma | mb, pa or pb)]


# Station kinds
COUNTER, BOARD, DELIVERY = 0, 1, 2
STATION_KIND_NAMES = ("counter", "cutting board", "delivery station")
STATION_CHARS = {"-": COUNTER, "/": BOARD, "*": DELIVERY, **{ch: COUNTER for ch in START_ITEMS}}

# Interaction outcomes (world event kinds)
PICKUP, PUT_DOWN, CHOP, MERGE, DELIVER = "pickup", "put_down", "chop", "merge", "deliver"


def _interaction(kind: int, held: int, content: int) -> tuple[int, int, str] | None:
    """(new held, new content, event) for an agent holding ``held`` moving into a station of
    ``kind`` that holds ``content``; None when nothing happens. Delivery is decided in ``step``
    (it depends on the agent's goal)."""
    if kind == DELIVERY:
        return None
    if held == NOTHING:
        return (content, NOTHING, PICKUP) if content != NOTHING else None
    if content == NOTHING:
        if kind == BOARD and is_fresh(held):
            return held + 1, NOTHING, CHOP  # chopped in hand, as in gym-cooking
        return NOTHING, held, PUT_DOWN
    if is_chopped(held) and content == PLATE:
        return held + 1, NOTHING, MERGE
    if held == PLATE and is_chopped(content):
        return content + 1, NOTHING, MERGE
    return None


def _orders_interaction(kind: int, held: int, content: int) -> tuple[int, int, str] | None:
    """As ``_interaction`` under gym-cooking's rules (team-orders mode): any two mergeable
    objects merge, in the hand."""
    if kind == DELIVERY:
        return None
    if held == NOTHING or content == NOTHING:
        return _interaction(kind, held, content)
    made = merged(held, content)
    return (made, NOTHING, MERGE) if made is not None else None


#: INTERACT[(kind * N_ITEMS + held) * N_ITEMS + content] -> outcome or None
INTERACT: tuple[tuple[int, int, str] | None, ...] = tuple(
    _interaction(kind, held, content)
    for kind in range(3) for held in range(N_ITEMS) for content in range(N_ITEMS))
#: the same under gym-cooking's rules (team-orders mode)
ORDERS_INTERACT: tuple[tuple[int, int, str] | None, ...] = tuple(
    _orders_interaction(kind, held, content)
    for kind in range(3) for held in range(N_ITEMS) for content in range(N_ITEMS))


@dataclass(frozen=True, slots=True)
class KitchenState:
    """The dynamic part of an episode; the layout lives in the World.

    ``positions[i]``: agent i's cell (row * width + col). ``held[i]``: the object code in its
    hand. ``contents[s]``: the object code on station s (stations in reading order).
    ``delivered[i]``: the tick at which agent i delivered its dish, or -1; in team-orders mode
    one entry per order instead: the tick at which order i was fulfilled, or -1.
    """

    t: int
    positions: tuple[int, ...]
    held: tuple[int, ...]
    contents: tuple[int, ...]
    delivered: tuple[int, ...]

    def key(self) -> tuple:
        return (self.t, self.positions, self.held, self.contents, self.delivered)


@dataclass(frozen=True, slots=True)
class KitchenObservation:
    """What one agent perceives: the tick, its own goal and whether it is delivered, and the
    agents (index, cell, held) and stations (index, content) of its own room. The layout is
    known to everyone through the World; objects and agents out of view are left out.
    In team-orders mode ``goal`` is "" (no cook has its own), ``delivered`` says whether every
    order is delivered and ``orders`` holds the tick each order was fulfilled (-1: not yet), as
    gym-cooking shows every cook the orders."""

    agent: AgentId
    index: int
    t: int
    goal: str
    delivered: bool
    agents: tuple[tuple[int, int, int], ...]
    stations: tuple[tuple[int, int], ...]
    orders: tuple[int, ...] = ()

    def key(self) -> tuple:
        if self.orders:
            return (self.agent, self.t, self.orders, self.agents, self.stations)
        return (self.agent, self.t, self.goal, self.delivered, self.agents, self.stations)

    @property
    def position(self) -> int:
        return next(cell for i, cell, _ in self.agents if i == self.index)

    @property
    def held(self) -> int:
        return next(item for i, _, item in self.agents if i == self.index)


class KitchenWorld(World[KitchenState, str, KitchenObservation]):
    family = "kitchen"
    simultaneous = True

    def __init__(self, spec: dict[str, Any]) -> None:
        self._spec = spec
        self.name: str = spec["name"]
        self.t_max: int = int(spec["t_max"])
        self.agents_block: bool = spec["collisions"] == "block"
        #: 2: doors block vision and cooks know nothing of other rooms at the start; 1: the rules
        #: older recordings were made with (docs/kitchen.md, "Rules versions")
        self.rules: int = int(spec.get("rules", 1))
        grid: list[str] = spec["map"]
        self.grid = tuple(grid)
        self.height, self.width = len(grid), len(grid[0])
        self._agents: tuple[str, ...] = tuple(a["name"] for a in spec["agents"])
        self.agent_index = {a: i for i, a in enumerate(self._agents)}
        self.n_agents = len(self._agents)
        #: team-orders mode (gym-cooking's rules): the recipes the team shares, in order; () when
        #: every cook has its own goal
        self.orders: tuple[str, ...] = tuple(spec.get("orders") or ())
        self.order_dish: tuple[int, ...] = tuple(ORDER_DISH[r] for r in self.orders)
        #: each cook's own goal (empty in team-orders mode, where no cook has one)
        self.goals: dict[str, str] = {} if self.orders else {a["name"]: a["goal"] for a in spec["agents"]}
        self.goal_dish: tuple[int, ...] = tuple(RECIPE_DISH[self.goals[a]] for a in self._agents) if not self.orders else ()
        for recipe in self.goals.values():
            assert recipe in RECIPES
        self._interact = ORDERS_INTERACT if self.orders else INTERACT

        n_cells = self.height * self.width
        chars = "".join(grid)
        self.walkable = bytes(1 if ch in ".D" else 0 for ch in chars)
        self.is_door = bytes(1 if ch == "D" else 0 for ch in chars)
        stations = [cell for cell, ch in enumerate(chars) if ch in STATION_CHARS]
        self.station_cells: tuple[int, ...] = tuple(stations)
        self.station_at: dict[int, int] = {cell: s for s, cell in enumerate(stations)}
        self.station_kind: tuple[int, ...] = tuple(STATION_CHARS[chars[cell]] for cell in stations)
        self.deliveries = tuple(s for s, k in enumerate(self.station_kind) if k == DELIVERY)
        self.boards = tuple(s for s, k in enumerate(self.station_kind) if k == BOARD)
        self.counters = tuple(s for s, k in enumerate(self.station_kind) if k == COUNTER)

        # trans[cell * 5 + action]: >= 0 the cell the agent would move to (its own cell when a
        # wall or the grid's edge is in the way, or for stay); < 0: -1 - the station it works.
        trans = [0] * (n_cells * 5)
        self.neighbors: list[tuple[int, ...]] = [()] * n_cells
        for cell in range(n_cells):
            r, c = divmod(cell, self.width)
            around = []
            for a, (dr, dc) in enumerate(MOVES):
                rr, cc = r + dr, c + dc
                target = cell
                if (dr or dc) and 0 <= rr < self.height and 0 <= cc < self.width:
                    other = rr * self.width + cc
                    if self.walkable[other]:
                        target = other
                        around.append(other)
                    elif other in self.station_at:
                        target = -1 - self.station_at[other]
                trans[cell * 5 + a] = target
            self.neighbors[cell] = tuple(around)
        self.trans: tuple[int, ...] = tuple(trans)

        self._build_rooms(n_cells)
        self._build_distances(n_cells)

        starts = tuple(a["start"][0] * self.width + a["start"][1] for a in spec["agents"])
        self._initial = KitchenState(
            t=0, positions=starts, held=(NOTHING,) * self.n_agents,
            contents=tuple(START_ITEMS.get(chars[cell], NOTHING) for cell in stations),
            delivered=(-1,) * (len(self.orders) if self.orders else self.n_agents))

    # ------------------------------------------------------------- geometry

    def _build_rooms(self, n_cells: int) -> None:
        """Rooms are the 4-connected groups of floor cells; doors, walls and stations split them.
        ``view[cell]`` is a bit set of rooms: a floor cell sees its room, a station the rooms of
        the floor cells next to it. Under rules 2 each door cell is a view of its own (doors block
        vision: an agent on a door sees the stations next to it and agents on that door); under
        rules 1 a door sees the rooms it joins and a station touched only by doors their rooms."""
        room = [-1] * n_cells
        floors = [cell for cell in range(n_cells) if self.walkable[cell] and not self.is_door[cell]]
        n_rooms = 0
        for start in floors:
            if room[start] >= 0:
                continue
            room[start] = n_rooms
            queue = deque([start])
            while queue:
                cell = queue.popleft()
                for other in self.neighbors[cell]:
                    if room[other] < 0 and not self.is_door[other]:
                        room[other] = n_rooms
                        queue.append(other)
            n_rooms += 1
        self.room_of: tuple[int, ...] = tuple(room)
        self.n_rooms = n_rooms
        view = [0] * n_cells
        for cell in range(n_cells):
            if room[cell] >= 0:
                view[cell] = 1 << room[cell]
        if self.rules >= 2:
            doors = [cell for cell in range(n_cells) if self.is_door[cell]]
            for k, cell in enumerate(doors):
                view[cell] = 1 << (n_rooms + k)
            for cell in self.station_cells:
                seen_from = 0
                for other in self._adjacent_walkable(cell):
                    seen_from |= view[other]
                view[cell] = seen_from
        else:
            for cell in range(n_cells):
                if self.is_door[cell]:
                    for other in self.neighbors[cell]:
                        if room[other] >= 0:
                            view[cell] |= 1 << room[other]
            for cell in self.station_cells:
                adjacent = self._adjacent_walkable(cell)
                floor_rooms = 0
                for other in adjacent:
                    if room[other] >= 0:
                        floor_rooms |= 1 << room[other]
                if not floor_rooms:
                    for other in adjacent:
                        floor_rooms |= view[other]
                view[cell] = floor_rooms
        self.view: tuple[int, ...] = tuple(view)
        # What an agent standing on each walkable cell sees, precomputed for observe().
        self.visible_stations: tuple[tuple[int, ...], ...] = tuple(
            tuple(s for s, sc in enumerate(self.station_cells) if view[sc] & view[cell]) if self.walkable[cell] else ()
            for cell in range(n_cells))

    def _adjacent_walkable(self, cell: int) -> tuple[int, ...]:
        r, c = divmod(cell, self.width)
        out = []
        for dr, dc in MOVES[:4]:
            rr, cc = r + dr, c + dc
            if 0 <= rr < self.height and 0 <= cc < self.width and self.walkable[rr * self.width + cc]:
                out.append(rr * self.width + cc)
        return tuple(out)

    def _build_distances(self, n_cells: int) -> None:
        """``dist[a][b]``: fewest moves between walkable cells (-1: unreachable).
        ``station_dist[s][cell]``: fewest actions from ``cell`` until the agent works station s
        (moves to a cell next to it, plus the move into it); -1 when it cannot."""
        self.dist: list[list[int]] = [[-1] * n_cells for _ in range(n_cells)]
        for start in range(n_cells):
            if not self.walkable[start]:
                continue
            row = self.dist[start]
            row[start] = 0
            queue = deque([start])
            while queue:
                cell = queue.popleft()
                for other in self.neighbors[cell]:
                    if row[other] < 0:
                        row[other] = row[cell] + 1
                        queue.append(other)
        self.station_access: tuple[tuple[int, ...], ...] = tuple(
            self._adjacent_walkable(cell) for cell in self.station_cells)
        self.station_dist: list[list[int]] = []
        for s in range(len(self.station_cells)):
            row = [-1] * n_cells
            queue = deque()
            for cell in self.station_access[s]:
                row[cell] = 1
                queue.append(cell)
            while queue:
                cell = queue.popleft()
                for other in self.neighbors[cell]:
                    if row[other] < 0:
                        row[other] = row[cell] + 1
                        queue.append(other)
            self.station_dist.append(row)

    def cell(self, row: int, col: int) -> int:
        return row * self.width + col

    def rc(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.width)

    def sees(self, viewer_cell: int, cell: int) -> bool:
        """True when an agent on ``viewer_cell`` sees what is on (or who stands on) ``cell``."""
        return bool(self.view[viewer_cell] & self.view[cell])

    def reachable(self, s: int, cell: int) -> bool:
        """Can an agent on ``cell`` work station ``s`` (walk next to it)?"""
        return self.station_dist[s][cell] >= 0

    def action_towards(self, cell: int, target: int) -> str | None:
        """The move from ``cell`` to the neighbouring walkable ``target``, or None."""
        for a in range(4):
            if self.trans[cell * 5 + a] == target and target != cell:
                return ACTIONS[a]
        return None

    def action_into(self, cell: int, s: int) -> str | None:
        """The move from ``cell`` into station ``s`` when it is next to it, else None."""
        for a in range(4):
            if self.trans[cell * 5 + a] == -1 - s:
                return ACTIONS[a]
        return None

    def station_name(self, s: int) -> str:
        r, c = self.rc(self.station_cells[s])
        return f"{STATION_KIND_NAMES[self.station_kind[s]]} ({r}, {c})"

    # ------------------------------------------------------------ interface

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return self._agents

    @property
    def initial_state(self) -> KitchenState:
        return self._initial

    def reset(self, seed: int) -> KitchenState:
        return self._initial  # the layout is fixed; seeds drive the agents

    def done(self, state: KitchenState) -> bool:
        return state.t >= self.t_max or -1 not in state.delivered

    def active_agents(self, state: KitchenState) -> tuple[AgentId, ...]:
        return () if self.done(state) else self._agents

    def legal_actions(self, state: KitchenState, agent: AgentId) -> tuple[str, ...]:
        return () if self.done(state) else ACTIONS

    def why_illegal(self, state: KitchenState, agent: AgentId, action: str) -> str | None:
        if agent not in self.agent_index:
            return f"{agent!r} is not an agent of this kitchen ({', '.join(self._agents)})"
        if self.done(state):
            return "the episode is over"
        if action not in ACTION_INDEX:
            return f"{action!r} is not an action; expected one of {', '.join(ACTIONS)}"
        return None

    def fallback_action(self, state: KitchenState, agent: AgentId) -> str:
        return "stay"

    def step(self, state: KitchenState, joint_action: Mapping[AgentId, str]) -> StepResult[KitchenState]:
        agents = self._agents
        n = self.n_agents
        if len(joint_action) != n or state.t >= self.t_max or -1 not in state.delivered:
            require_joint(self, state, joint_action)  # raises with the reason
        trans = self.trans
        pos = state.positions
        targets = []
        for i in range(n):
            try:
                targets.append(trans[pos[i] * 5 + ACTION_INDEX[joint_action[agents[i]]]])
            except KeyError:
                agent = agents[i]
                if agent not in joint_action:
                    require_joint(self, state, joint_action)
                raise IllegalAction(f"{agent}: {joint_action[agent]!r} is not an action; "
                                    f"expected one of {', '.join(ACTIONS)}") from None

        events: list[WorldEvent] | None = None
        held = state.held
        contents = state.contents
        delivered = state.delivered
        # Interactions: each against the contents at the start of the tick. Two agents working
        # the same station in one tick clash and neither acts.
        workers = [i for i in range(n) if targets[i] < 0]
        if workers:
            events = []
            new_held = list(held)
            new_contents = list(contents)
            new_delivered = delivered
            if len(workers) > 1:
                chosen = [targets[i] for i in workers]
                clashing = [i for i in workers if chosen.count(targets[i]) > 1]
                for i in clashing:
                    events.append(WorldEvent("clash", agents[i], {"at": list(self.rc(self.station_cells[-1 - targets[i]]))}))
                workers = [i for i in workers if i not in clashing]
            for i in workers:
                s = -1 - targets[i]
                h = held[i]
                kind = self.station_kind[s]
                if kind == DELIVERY:
                    if self.orders:
                        if is_deliverable(h):  # it leaves the kitchen, fulfilling the first open order for it
                            new_held[i] = NOTHING
                            k = next((k for k, d in enumerate(new_delivered) if d < 0 and self.order_dish[k] == h), None)
                            if k is not None:
                                new_delivered = new_delivered[:k] + (state.t + 1,) + new_delivered[k + 1:]
                            events.append(WorldEvent(DELIVER, agents[i], {
                                "item": ITEM_NAMES[h], "recipe": self.orders[k] if k is not None else None,
                                "order": k, "at": list(self.rc(self.station_cells[s]))}))
                        continue
                    if h == self.goal_dish[i] and delivered[i] < 0:
                        new_held[i] = NOTHING
                        new_delivered = new_delivered[:i] + (state.t + 1,) + new_delivered[i + 1:]
                        events.append(WorldEvent(DELIVER, agents[i], {"item": ITEM_NAMES[h], "recipe": DISH_RECIPE[h],
                                                                      "at": list(self.rc(self.station_cells[s]))}))
                    continue
                c = contents[s]
                outcome = self._interact[(kind * N_ITEMS + h) * N_ITEMS + c]
                if outcome is None:
                    continue
                new_held[i], new_contents[s], what = outcome
                # the object the event is about: what was taken, put down, chopped, or made
                item = c if what == PICKUP else h if what in (PUT_DOWN, CHOP) else outcome[0]
                events.append(WorldEvent(what, agents[i], {"item": ITEM_NAMES[item],
                                                           "at": list(self.rc(self.station_cells[s]))}))
            held = tuple(new_held)
            contents = tuple(new_contents)
            delivered = new_delivered

        # Moves: an agent that works a station or stays keeps its cell.
        new_pos = [t if t >= 0 else p for t, p in zip(targets, pos)]
        if self.agents_block and n > 1:
            new_pos, bumps = self._resolve_blocking(pos, new_pos)
            if bumps:
                events = (events or []) + bumps
        return StepResult(KitchenState(state.t + 1, tuple(new_pos), held, contents, delivered),
                          tuple(events) if events else ())

    def _resolve_blocking(self, pos: Sequence[int], wanted: list[int]) -> tuple[list[int], list[WorldEvent]]:
        """gym-cooking's collisions: agents never share a cell or swap places. Two agents moving
        into one cell both stay; so do two that would swap; an agent moving into the cell of an
        agent that does not leave it (staying, working a station, or itself blocked) stays."""
        n = len(pos)
        new = list(wanted)
        blocked = [False] * n
        for i in range(n):
            if new[i] == pos[i]:
                continue
            for j in range(n):
                if j != i and new[j] != pos[j] and (new[j] == new[i] or (new[j] == pos[i] and new[i] == pos[j])):
                    blocked[i] = True
        changed = True
        while changed:
            changed = False
            for i in range(n):
                if blocked[i]:
                    if new[i] != pos[i]:
                        new[i] = pos[i]
                        changed = True
                    continue
                if new[i] != pos[i] and any(j != i and new[j] == pos[j] == new[i] for j in range(n)):
                    blocked[i] = True
                    new[i] = pos[i]
                    changed = True
        bumps = [WorldEvent("collision", self._agents[i], {"at": list(self.rc(pos[i])),
                                                          "towards": list(self.rc(wanted[i]))})
                 for i in range(n) if blocked[i]]
        return new, bumps

    def observe(self, state: KitchenState, agent: AgentId) -> KitchenObservation:
        i = self.agent_index[agent]
        here = state.positions[i]
        view = self.view
        mine = view[here]
        seen_agents = tuple((j, cell, state.held[j]) for j, cell in enumerate(state.positions)
                            if j == i or view[cell] & mine)
        contents = state.contents
        seen_stations = tuple((s, contents[s]) for s in self.visible_stations[here])
        if self.orders:
            return KitchenObservation(agent=agent, index=i, t=state.t, goal="", delivered=-1 not in state.delivered,
                                      agents=seen_agents, stations=seen_stations, orders=state.delivered)
        return KitchenObservation(agent=agent, index=i, t=state.t, goal=self.goals[agent],
                                  delivered=state.delivered[i] >= 0, agents=seen_agents, stations=seen_stations)

    def state_key(self, state: KitchenState) -> tuple:
        return state.key()

    def outcome(self, state: KitchenState) -> dict[str, Any]:
        success = -1 not in state.delivered
        if self.orders:  # no cook has a goal: the orders and when each was delivered
            return {
                "success": success,
                "ticks": state.t,
                "length": state.t if success else None,
                "orders": [{"recipe": r, "delivered": d if d >= 0 else None}
                           for r, d in zip(self.orders, state.delivered)],
                "orders_delivered": sum(d >= 0 for d in state.delivered),
                "t_max": self.t_max,
            }
        return {
            "success": success,
            "ticks": state.t,
            "length": state.t if success else None,
            "delivered": {a: (state.delivered[i] if state.delivered[i] >= 0 else None)
                          for i, a in enumerate(self._agents)},
            "goals": dict(self.goals),
            "t_max": self.t_max,
        }

    def spec(self) -> dict[str, Any]:
        return self._spec

    def render_text(self, state: KitchenState, viewer: AgentId | None = None) -> str:
        """The grid with objects on stations and agents as digits 1-9; with ``viewer``, only
        what that agent sees (unseen station contents show as '?')."""
        rows = [list(row) for row in self.grid]
        chars = "".join(self.grid)
        base = {"-": "-", "/": "/", "*": "*", **{ch: "-" for ch in START_ITEMS}}
        look = None if viewer is None else state.positions[self.agent_index[viewer]]
        for s, cell in enumerate(self.station_cells):
            r, c = self.rc(cell)
            item = state.contents[s]
            if look is not None and not self.sees(look, cell):
                rows[r][c] = "?" if self.station_kind[s] != DELIVERY else "*"
            else:
                rows[r][c] = ITEM_CHARS[item] if item else base[chars[cell]]
        for i, cell in enumerate(state.positions):
            if look is None or cell == look or self.sees(look, cell):
                r, c = self.rc(cell)
                rows[r][c] = str(i + 1)
        lines = ["".join(row) for row in rows]
        lines.append(f"t={state.t}/{self.t_max}")
        if self.orders:
            lines.append("orders: " + ", ".join(f"{r} ({'delivered at ' + str(d) if d >= 0 else 'open'})"
                                                for r, d in zip(self.orders, state.delivered)))
            for i, a in enumerate(self._agents):
                if look is None or state.positions[i] == look or self.sees(look, state.positions[i]):
                    lines.append(f"{i + 1} {a}: holds {ITEM_NAMES[state.held[i]]}")
            return "\n".join(lines)
        for i, a in enumerate(self._agents):
            if look is not None and not (state.positions[i] == look or self.sees(look, state.positions[i])):
                continue
            d = state.delivered[i]
            status = f"delivered at {d}" if d >= 0 else "not delivered"
            lines.append(f"{i + 1} {a}: holds {ITEM_NAMES[state.held[i]]}, wants {self.goals[a]} ({status})")
        return "\n".join(lines)

    def describe_item(self, code: int) -> str:
        return ITEM_NAMES[code]


def build_kitchen(spec: dict[str, Any]) -> World:
    """The kitchen of ``spec``: under overcooked_ai's rules (``rules: overcooked``) or ours."""
    return OvercookedWorld(spec) if spec.get("rules") == RULES_NAME else KitchenWorld(spec)
