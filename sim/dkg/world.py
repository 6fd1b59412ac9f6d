"""Multi-agent Doors, Keys and Gems (mDKG), with the rules of the ProToM paper.

A fully observable grid of walls, floor, coloured locked doors, coloured keys and
gems. Agents take turns; one action is one tick. Actions are strings:

    up | down | left | right       move one cell; walls and locked doors block, agents do not
    wait                            do nothing
    pickup <item>                   take the key or gem lying on one's own cell
    unlock <door>                   open a locked door next to one's cell (4-neighbourhood)
                                    with a key of its colour; the key is used up
                                    (the lowest-numbered matching key held)
    unlock <door> <key>             the same with that key (a held key of the door's colour)
    handover <item> <agent>         give a held item to an agent on a neighbouring cell
                                    (``options.handover = "same_cell_or_adjacent"``: also
                                    on the same cell, the rule of recordings written before
                                    the option existed)

A **plate** (``{"plate": colour}`` in the legend) is floor. A door of a colour that has plates
is a *plate door*: it opens, and stays open, at the end of a step in which every plate of its
colour has an agent on it, so two plates need two agents there at once (a vault opened by two
people together, the joint tasks of ``generators/make_joint.py``).

An agent with a goal wants one gem and has reached it while it holds that gem; an agent
without a goal (a helper) only helps. ``options.forbidden`` (agent -> item ids, the reference
domain's ``(forbidden AGENT ITEM)``) names items an agent may not pick up, hand over or be handed. The episode ends when every agent with a goal holds
its gem, or after ``t_max`` ticks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.world import AgentId, IllegalAction, StepResult, World, WorldEvent, require_joint

MOVES: dict[str, tuple[int, int]] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
CONSUMED = -1_000_000  # item location of a key used on a door
HANDOVER_RULES = ("adjacent", "same_cell_or_adjacent")
#: the handover rule of a spec that does not name one: only recordings written before the
#: option existed lack it (validated scenarios always carry it), and they used this rule
LEGACY_HANDOVER = "same_cell_or_adjacent"


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    kind: str  # "key" or "gem"
    color: str
    char: str


@dataclass(frozen=True, slots=True)
class Door:
    id: str
    color: str
    cell: int
    char: str


@dataclass(frozen=True, slots=True)
class DKGState:
    """The dynamic part of an mDKG episode. The layout lives in the World.

    ``item_locs[i]``: a cell index (>= 0) when item i lies on the floor, ``-1 - a``
    when agent a holds it, ``CONSUMED`` when a key was used on a door.
    ``reached_at[a]``: the tick at which agent a first held its goal gem, or -1.
    ``plate_ticks[p]``: the tick at which the world's p-th plate door opened, or -1 (empty in a
    world without plate doors, so the key of such a state is what it always was).
    """

    t: int
    turn: int
    agent_cells: tuple[int, ...]
    item_locs: tuple[int, ...]
    open_doors: int  # bit d set when door d is unlocked
    reached_at: tuple[int, ...]
    plate_ticks: tuple[int, ...] = ()

    def key(self) -> tuple:
        base = (self.t, self.turn, self.agent_cells, self.item_locs, self.open_doors, self.reached_at)
        return (*base, self.plate_ticks) if self.plate_ticks else base


@dataclass(frozen=True, slots=True)
class DKGObservation:
    """What an agent perceives: everything (mDKG is fully observable) plus its own goal
    (None for a helper without a gem of its own)."""

    state: DKGState
    agent: AgentId
    goal: str | None

    def key(self) -> tuple:
        return (self.state.key(), self.agent, self.goal)


class DKGWorld(World[DKGState, str, DKGObservation]):
    family = "dkg"

    def __init__(self, spec: dict[str, Any]) -> None:
        self._spec = spec
        self.name: str = spec["name"]
        grid = spec["map"]
        legend = spec["legend"]
        self.height, self.width = len(grid), len(grid[0])
        self.t_max: int = spec["options"]["t_max"]
        self._agents: tuple[str, ...] = tuple(spec["options"]["turn_order"])
        self.agent_index = {a: i for i, a in enumerate(self._agents)}
        self.handover_rule: str = spec["options"].get("handover", LEGACY_HANDOVER)
        if self.handover_rule not in HANDOVER_RULES:
            raise ValueError(f"options.handover must be one of {', '.join(HANDOVER_RULES)}, got {self.handover_rule!r}")

        walls = bytearray(self.height * self.width)
        items: list[Item] = []
        item_cells: list[int] = []
        doors: list[Door] = []
        starts: dict[str, int] = {}
        self.agent_chars: dict[str, str] = {}
        counts = {"key": 0, "gem": 0}
        plates: dict[str, list[int]] = {}
        #: the legend character of each plate cell (for the text view)
        self.plate_chars: dict[int, str] = {}
        for r, row in enumerate(grid):
            for c, ch in enumerate(row):
                entry, cell = legend[ch], r * self.width + c
                kind = entry["kind"]
                if kind == "wall":
                    walls[cell] = 1
                elif kind in ("key", "gem"):
                    counts[kind] += 1
                    items.append(Item(f"{kind}{counts[kind]}", kind, entry["color"], ch))
                    item_cells.append(cell)
                elif kind == "door":
                    doors.append(Door(f"door{len(doors) + 1}", entry["color"], cell, ch))
                elif kind == "agent":
                    starts[entry["agent"]] = cell
                    self.agent_chars[entry["agent"]] = ch
                elif kind == "plate":
                    plates.setdefault(entry["color"], []).append(cell)
                    self.plate_chars[cell] = ch
        self.walls = bytes(walls)
        self.items: tuple[Item, ...] = tuple(items)
        self.doors: tuple[Door, ...] = tuple(doors)
        self.item_index = {it.id: i for i, it in enumerate(self.items)}
        self.door_index = {d.id: i for i, d in enumerate(self.doors)}
        self.door_at: dict[int, int] = {d.cell: i for i, d in enumerate(self.doors)}
        #: the plate doors (indices into doors) and the plate cells that open each
        self.plate_doors: tuple[int, ...] = tuple(i for i, d in enumerate(self.doors) if d.color in plates)
        self.door_plates: dict[int, tuple[int, ...]] = {d: tuple(plates[self.doors[d].color]) for d in self.plate_doors}
        self.plate_cells: frozenset[int] = frozenset(self.plate_chars)
        self.goals: dict[str, str] = {a: g for a, g in spec["goals"].items() if g is not None}
        # (agent index, item index) pairs the agent may not pick up, hand over or be handed
        self.forbidden: frozenset[tuple[int, int]] = frozenset(
            (self.agent_index[a], self.item_index[i])
            for a, items in (spec["options"].get("forbidden") or {}).items() for i in items)
        # None for an agent without a goal (a helper): indexing item_locs with it fails loudly
        self.goal_item: tuple[int | None, ...] = tuple(
            self.item_index[self.goals[a]] if a in self.goals else None for a in self._agents)
        self.goal_agents: tuple[int, ...] = tuple(a for a, g in enumerate(self.goal_item) if g is not None)
        self.gem_ids: tuple[str, ...] = tuple(it.id for it in self.items if it.kind == "gem")
        self._initial = DKGState(t=0, turn=0, agent_cells=tuple(starts[a] for a in self._agents),
                                 item_locs=tuple(item_cells), open_doors=0,
                                 reached_at=tuple(-1 for _ in self._agents),
                                 plate_ticks=tuple(-1 for _ in self.plate_doors))
        # Neighbours of each cell inside the grid (walls included; passability is checked per state).
        self.neighbors: tuple[tuple[tuple[str, int], ...], ...] = tuple(
            tuple((name, (cell // self.width + dr) * self.width + cell % self.width + dc)
                  for name, (dr, dc) in MOVES.items()
                  if 0 <= cell // self.width + dr < self.height and 0 <= cell % self.width + dc < self.width)
            for cell in range(self.height * self.width))

    # ------------------------------------------------------------- geometry

    def names(self) -> frozenset[str]:
        """Items (keys, gems) and doors, by id (``key1``, ``gem3``, ``door2``)."""
        return frozenset((*self.item_index, *self.door_index))

    def cell(self, row: int, col: int) -> int:
        return row * self.width + col

    def rc(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.width)

    def passable(self, cell: int, open_doors: int) -> bool:
        if self.walls[cell]:
            return False
        d = self.door_at.get(cell)
        return d is None or bool(open_doors >> d & 1)

    def adjacent(self, a: int, b: int) -> bool:
        (ra, ca), (rb, cb) = self.rc(a), self.rc(b)
        return abs(ra - rb) + abs(ca - cb) == 1

    def can_hand_over(self, giver_cell: int, taker_cell: int) -> bool:
        """Whether an agent on ``giver_cell`` can hand an item to one on ``taker_cell``."""
        if giver_cell == taker_cell:
            return self.handover_rule == "same_cell_or_adjacent"
        return self.adjacent(giver_cell, taker_cell)

    def handover_cells(self, taker_cell: int) -> frozenset[int]:
        """The cells from which an item can be handed to an agent on ``taker_cell``."""
        cells = {n for _, n in self.neighbors[taker_cell] if not self.walls[n]}
        if self.handover_rule == "same_cell_or_adjacent":
            cells.add(taker_cell)
        return frozenset(cells)

    def goal_of(self, agent: AgentId) -> str | None:
        """The gem ``agent`` wants, or None for a helper without a goal."""
        return self.goals.get(agent)

    # ------------------------------------------------------------ interface

    @property
    def agents(self) -> tuple[AgentId, ...]:
        return self._agents

    def reset(self, seed: int) -> DKGState:
        return self._initial  # the layout is fixed; seeds drive the agents

    def active_agents(self, state: DKGState) -> tuple[AgentId, ...]:
        return () if self.done(state) else (self._agents[state.turn],)

    def held_by(self, state: DKGState, agent: AgentId) -> list[int]:
        code = -1 - self.agent_index[agent]
        return [i for i, loc in enumerate(state.item_locs) if loc == code]

    def legal_actions(self, state: DKGState, agent: AgentId) -> tuple[str, ...]:
        a = self.agent_index[agent]
        if self.done(state) or state.turn != a:
            return ()
        here = state.agent_cells[a]
        actions = [name for name, n in self.neighbors[here] if self.passable(n, state.open_doors)]
        actions.append("wait")
        held = [i for i, loc in enumerate(state.item_locs) if loc == -1 - a]
        forbidden = self.forbidden
        actions += [f"pickup {self.items[i].id}" for i, loc in enumerate(state.item_locs)
                    if loc == here and (a, i) not in forbidden]
        held_keys = [i for i in held if self.items[i].kind == "key"]
        for _, n in self.neighbors[here]:
            d = self.door_at.get(n)
            if d is None or state.open_doors >> d & 1:
                continue
            matching = [i for i in held_keys if self.items[i].color == self.doors[d].color]
            if matching:
                actions.append(f"unlock {self.doors[d].id}")  # the lowest-numbered matching key
                actions += [f"unlock {self.doors[d].id} {self.items[i].id}" for i in matching]  # a chosen key
        for b, other in enumerate(self._agents):
            if b != a and self.can_hand_over(here, state.agent_cells[b]):
                actions += [f"handover {self.items[i].id} {other}" for i in held
                            if (a, i) not in forbidden and (b, i) not in forbidden]
        return tuple(actions)

    def step(self, state: DKGState, joint_action: Mapping[AgentId, str]) -> StepResult[DKGState]:
        require_joint(self, state, joint_action)
        agent = self._agents[state.turn]
        action = joint_action[agent]
        a = state.turn
        cells, locs, doors = state.agent_cells, state.item_locs, state.open_doors
        events: list[WorldEvent] = []
        verb, _, rest = action.partition(" ")
        here = cells[a]
        if verb in MOVES:
            target = next((n for name, n in self.neighbors[here] if name == verb), None)
            if target is None or not self.passable(target, doors):
                raise IllegalAction(f"{agent} cannot move {verb} from {self.rc(here)}: blocked")
            cells = cells[:a] + (target,) + cells[a + 1:]
        elif verb == "wait" and not rest:
            pass
        elif verb == "pickup":
            i = self.item_index.get(rest)
            if i is None or locs[i] != here:
                raise IllegalAction(f"{agent} cannot pick up {rest!r}: it is not on its cell")
            if (a, i) in self.forbidden:
                raise IllegalAction(f"{agent} may not pick up {rest}: it is forbidden to {agent}")
            locs = locs[:i] + (-1 - a,) + locs[i + 1:]
            events.append(WorldEvent("pickup", agent, {"item": rest}))
        elif verb == "unlock":
            door_id, _, key_id = rest.partition(" ")
            d = self.door_index.get(door_id)
            if d is None or doors >> d & 1 or not self.adjacent(here, self.doors[d].cell):
                raise IllegalAction(f"{agent} cannot unlock {door_id!r}: not a locked door next to it")
            color = self.doors[d].color
            if key_id:
                key = self.item_index.get(key_id)
                if key is None or self.items[key].kind != "key" or locs[key] != -1 - a:
                    raise IllegalAction(f"{agent} cannot unlock {door_id} with {key_id!r}: it holds no such key")
                if self.items[key].color != color:
                    raise IllegalAction(f"{agent} cannot unlock {door_id} with {key_id}: "
                                        f"a {self.items[key].color} key does not open a {color} door")
            else:
                key = next((i for i, loc in enumerate(locs) if loc == -1 - a and self.items[i].kind == "key"
                            and self.items[i].color == color), None)
                if key is None:
                    raise IllegalAction(f"{agent} cannot unlock {door_id}: it holds no {color} key")
            locs = locs[:key] + (CONSUMED,) + locs[key + 1:]
            doors |= 1 << d
            events.append(WorldEvent("unlock", agent, {"door": door_id, "key": self.items[key].id}))
        elif verb == "handover":
            item_id, _, other = rest.partition(" ")
            i, b = self.item_index.get(item_id), self.agent_index.get(other)
            if i is None or b is None or b == a or locs[i] != -1 - a:
                raise IllegalAction(f"{agent} cannot hand over {item_id!r} to {other!r}")
            for who in (a, b):
                if (who, i) in self.forbidden:
                    raise IllegalAction(f"{agent} cannot hand over {item_id} to {other}: it is forbidden to "
                                        f"{self._agents[who]}")
            if not self.can_hand_over(here, cells[b]):
                where = "next to" if self.handover_rule == "adjacent" else "on or next to"
                raise IllegalAction(f"{agent} cannot hand over to {other}: not {where} its cell")
            locs = locs[:i] + (-1 - b,) + locs[i + 1:]
            events.append(WorldEvent("handover", agent, {"item": item_id, "to": other}))
        else:
            raise IllegalAction(f"{agent}: unknown action {action!r}")

        t = state.t + 1
        plate_ticks = state.plate_ticks
        if self.plate_doors and cells is not state.agent_cells:
            standing = set(cells)
            for p, d in enumerate(self.plate_doors):
                if not doors >> d & 1 and standing.issuperset(self.door_plates[d]):
                    doors |= 1 << d
                    plate_ticks = plate_ticks[:p] + (t,) + plate_ticks[p + 1:]
                    on = [self._agents[b] for b, c in enumerate(cells) if c in self.door_plates[d]]
                    events.append(WorldEvent("plates_open", agent, {"door": self.doors[d].id, "agents": on}))
        reached = state.reached_at
        if locs is not state.item_locs:
            new_reached = tuple(r if r >= 0 or g is None or locs[g] != -1 - b else t
                                for b, (r, g) in enumerate(zip(reached, self.goal_item)))
            for b, (old, new) in enumerate(zip(reached, new_reached)):
                if old < 0 <= new:
                    events.append(WorldEvent("goal_reached", self._agents[b], {"gem": self.goals[self._agents[b]]}))
            reached = new_reached
        new_state = DKGState(t=t, turn=(state.turn + 1) % len(self._agents), agent_cells=cells,
                             item_locs=locs, open_doors=doors, reached_at=reached, plate_ticks=plate_ticks)
        return StepResult(new_state, tuple(events))

    def fallback_action(self, state: DKGState, agent: AgentId) -> str:
        """Wait: an agent that fails to act should not move or use up anything it did not choose."""
        if agent not in self.active_agents(state):
            raise IllegalAction(f"{agent} has no legal action: it is not its turn")
        return "wait"

    def observe(self, state: DKGState, agent: AgentId) -> DKGObservation:
        return DKGObservation(state, agent, self.goals.get(agent))

    def holds_goal(self, state: DKGState, a: int) -> bool:
        """Whether agent ``a`` holds its gem (False for a helper without a goal)."""
        g = self.goal_item[a]
        return g is not None and state.item_locs[g] == -1 - a

    def done(self, state: DKGState) -> bool:
        if state.t >= self.t_max:
            return True
        return all(self.holds_goal(state, a) for a in self.goal_agents)

    def state_key(self, state: DKGState) -> tuple:
        return state.key()

    def outcome(self, state: DKGState) -> dict[str, Any]:
        # agents with a goal only: a helper has nothing to hold
        holding = {self._agents[a]: self.holds_goal(state, a) for a in self.goal_agents}
        success = all(holding.values())
        out = {"success": success, "holding_goal": holding,
               "goal_tick": {self._agents[a]: (state.reached_at[a] if state.reached_at[a] >= 0 else None)
                             for a in self.goal_agents},
               "length": state.t if success else None, "ticks": state.t, "t_max": self.t_max}
        if self.plate_doors:  # the joint tasks: when each vault opened and whose gems it holds
            out["vaults"] = {self.doors[d].id: {"opened": state.plate_ticks[p] if state.plate_ticks[p] >= 0 else None,
                                                "for": list(self.vault_agents()[d])}
                             for p, d in enumerate(self.plate_doors)}
        return out

    def vault_agents(self) -> dict[int, tuple[AgentId, ...]]:
        """For each plate door, the agents whose gem lies in the room behind it (the cells reached
        from the gem without crossing a wall or a door, next to that door)."""
        found = self.__dict__.get("_vault_agents")
        if found is not None:
            return found
        out: dict[int, list[AgentId]] = {d: [] for d in self.plate_doors}
        for a, g in enumerate(self.goal_item):
            if g is None:
                continue
            start = self._initial.item_locs[g]
            seen, stack = {start}, [start]
            while stack:
                cell = stack.pop()
                for _, n in self.neighbors[cell]:
                    if n not in seen and not self.walls[n] and n not in self.door_at:
                        seen.add(n)
                        stack.append(n)
            for d in self.plate_doors:
                if any(n in seen for _, n in self.neighbors[self.doors[d].cell]):
                    out[d].append(self._agents[a])
        result = {d: tuple(v) for d, v in out.items()}
        self.__dict__["_vault_agents"] = result
        return result

    def spec(self) -> dict[str, Any]:
        return self._spec

    # ------------------------------------------- PettingZoo hooks (sim/pettingzoo.py)

    def pettingzoo_actions(self) -> list[str]:
        from sim.dkg.pettingzoo_env import action_list
        return action_list(self)

    def pettingzoo_observation_space(self, agent: AgentId) -> Any:
        from sim.dkg.pettingzoo_env import observation_space
        return observation_space(self)

    def pettingzoo_observation(self, observation: DKGObservation, agent: AgentId) -> Any:
        from sim.dkg.pettingzoo_env import encode
        return encode(self, observation)

    def pettingzoo_reward(self, before: DKGState, after: DKGState, agent: AgentId) -> float:
        """1 when ``agent`` first holds its goal gem."""
        a = self.agent_index[agent]
        return 1.0 if before.reached_at[a] < 0 <= after.reached_at[a] else 0.0

    def pettingzoo_truncated(self, state: DKGState) -> bool:
        """Over at ``t_max`` with a gem still missing."""
        return not all(self.holds_goal(state, a) for a in self.goal_agents)

    # ------------------------------- feature extractor phi(s, a) (agents/teams, embedding=features)

    @property
    def feature_names(self) -> tuple[str, ...]:
        from sim.dkg.features import FEATURE_NAMES
        return FEATURE_NAMES

    def action_features(self, state: DKGState, agent: AgentId, action: str) -> tuple[tuple[float, ...], DKGState]:
        """phi(s, a) of ``agent`` doing ``action`` in ``state``, and the state after it when
        ``agent`` acts alone (``sim/dkg/features.py``)."""
        extractor = self.__dict__.get("_features")
        if extractor is None:
            from sim.dkg.features import DKGFeatures
            extractor = self.__dict__["_features"] = DKGFeatures(self)
        return extractor.step(state, agent, action)

    # ---------------------------------------------------------- description

    def describe_location(self, state: DKGState, i: int) -> str:
        loc = state.item_locs[i]
        if loc == CONSUMED:
            return "used"
        if loc < 0:
            return f"held by {self._agents[-1 - loc]}"
        r, c = self.rc(loc)
        return f"at row {r}, column {c}"

    def render_text(self, state: DKGState) -> str:
        legend = self._spec["legend"]
        wall_char = next((ch for ch, e in legend.items() if e["kind"] == "wall"), "#")
        floor_char = next((ch for ch, e in legend.items() if e["kind"] == "floor"), ".")
        chars = [wall_char if w else floor_char for w in self.walls]
        for cell, ch in self.plate_chars.items():
            chars[cell] = ch
        for d, door in enumerate(self.doors):
            chars[door.cell] = floor_char if state.open_doors >> d & 1 else door.char
        for i, item in enumerate(self.items):
            if state.item_locs[i] >= 0:
                chars[state.item_locs[i]] = item.char
        for a, agent in enumerate(self._agents):
            chars[state.agent_cells[a]] = self.agent_chars[agent]
        rows = ["".join(chars[r * self.width + c] for c in range(self.width)) for r in range(self.height)]
        lines = [f"{self.name}  tick {state.t}/{self.t_max}" +
                 ("  (over)" if self.done(state) else f"  turn: {self._agents[state.turn]}"), *rows, ""]
        for a, agent in enumerate(self._agents):
            r, c = self.rc(state.agent_cells[a])
            held = ", ".join(f"{self.items[i].id} ({self.items[i].color})" for i in self.held_by(state, agent))
            if agent in self.goals:
                status = "has it" if self.holds_goal(state, a) else "not yet"
                wants = f"wants {self.goals[agent]} ({status})"
            else:
                wants = "helps (no gem of its own)"
            lines.append(f"{self.agent_chars[agent]} {agent}: row {r}, column {c}; holds [{held}]; {wants}")
        for i, item in enumerate(self.items):
            lines.append(f"{item.char} {item.id} ({item.color} {item.kind}) {self.describe_location(state, i)}")
        for d, door in enumerate(self.doors):
            r, c = self.rc(door.cell)
            plates = (f", opened by agents on the {len(self.door_plates[d])} {door.color} plates at once"
                      if d in self.door_plates else "")
            lines.append(f"{door.char} {door.id} ({door.color} door{plates}) at row {r}, column {c}: "
                         f"{'open' if state.open_doors >> d & 1 else 'locked'}")
        return "\n".join(lines)
