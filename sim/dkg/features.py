"""Doors, Keys and Gems feature extractor phi(s, a): what an action does in a state.

Seed 000's Appendix A measures a non-LLM agent's belief-action alignment by embedding
state-action pairs with a domain-specific feature extractor phi(s, a) and taking the cosine of
the embedded predicted and actual trajectories. This is that extractor for mDKG. For agent a
doing action x in state s, with s' the state after it when a acts alone (the others held still):

| feature | value |
|---|---|
| ``dx``, ``dy`` | the move's displacement (columns, rows); 0 for anything else |
| ``gem`` | progress toward a's own gem: D(s) - D(s'), D the walking distance to the gem (its cell, or the cell of the agent holding it) over the cells passable in s; 0 when a holds it, has no gem, or cannot reach it |
| ``key`` | progress toward the nearest key lying on the floor that opens a door still locked (same distance, every such key a target) |
| ``door`` | progress toward the nearest locked door that a key a holds opens (to a cell next to the door) |
| ``pickup_gem``, ``pickup_key`` | 1 when x picks up a gem / a key |
| ``unlock`` | 1 when x unlocks a door |
| ``handover`` | 1 when x hands an item to another agent |
| ``plate`` | progress toward the nearest plate of a locked plate door that no other agent stands on (0 in a world without plates) |
| ``opens`` | 1 when x opens a plate door (a's step completes the set of agents on its plates) |

Each progress value is -1, 0 or 1 for one step. ``wait``, and an action that a cannot take in s
(it does nothing), is the zero vector: it does nothing, so it describes nothing. A move that gets
nowhere nearer anything is its displacement alone. Distances ignore agents (they never block).

The world exposes it as ``DKGWorld.action_features(state, agent, action)`` -> (features,
next state) and ``DKGWorld.feature_names``: the hook the team mechanism's ``embedding=features``
looks for on any world.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import TYPE_CHECKING

from sim.world import IllegalAction

if TYPE_CHECKING:  # pragma: no cover
    from sim.dkg.world import DKGState, DKGWorld

FEATURE_NAMES: tuple[str, ...] = ("dx", "dy", "gem", "key", "door", "pickup_gem", "pickup_key", "unlock",
                                  "handover", "plate", "opens")
ZERO: tuple[float, ...] = (0.0,) * len(FEATURE_NAMES)
UNREACHABLE = -1


class DKGFeatures:
    """phi(s, a) on one world, with the distance maps it needs cached by (open doors, targets)."""

    def __init__(self, world: DKGWorld) -> None:
        self.world = world
        self._maps: dict[tuple[int, tuple[int, ...]], tuple[int, ...]] = {}

    # ------------------------------------------------------------ distances

    def distances(self, open_doors: int, targets: tuple[int, ...]) -> tuple[int, ...]:
        """Walking distance of every cell to the nearest target over the cells passable with
        ``open_doors`` (``UNREACHABLE`` where none can be reached)."""
        key = (open_doors, targets)
        found = self._maps.get(key)
        if found is not None:
            return found
        world = self.world
        dist = [UNREACHABLE] * (world.height * world.width)
        queue: deque[int] = deque()
        for cell in targets:
            if dist[cell] == UNREACHABLE:
                dist[cell] = 0
                queue.append(cell)
        while queue:
            cell = queue.popleft()
            for _, n in world.neighbors[cell]:
                # a target itself may be impassable (a locked door's neighbours are the targets, not it)
                if dist[n] == UNREACHABLE and world.passable(n, open_doors):
                    dist[n] = dist[cell] + 1
                    queue.append(n)
        if len(self._maps) > 4096:
            self._maps.clear()
        self._maps[key] = found = tuple(dist)
        return found

    def _progress(self, open_doors: int, targets: tuple[int, ...], before: int, after: int) -> float:
        if not targets:
            return 0.0
        dist = self.distances(open_doors, targets)
        if dist[before] == UNREACHABLE or dist[after] == UNREACHABLE:
            return 0.0
        return float(max(-1, min(1, dist[before] - dist[after])))

    def _targets(self, state: DKGState, a: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """Target cells of a's gem, of the useful floor keys, of the doors a can open."""
        world = self.world
        locs = state.item_locs
        gem: tuple[int, ...] = ()
        g = world.goal_item[a]
        if g is not None and locs[g] != -1 - a:
            loc = locs[g]
            if loc >= 0:
                gem = (loc,)
            elif loc > -1 - len(world.agents):  # held by another agent: go to it
                gem = (state.agent_cells[-1 - loc],)
        locked = [d for d in range(len(world.doors)) if not state.open_doors >> d & 1]
        locked_colors = {world.doors[d].color for d in locked}
        keys = tuple(sorted({loc for i, loc in enumerate(locs) if loc >= 0 and world.items[i].kind == "key"
                             and world.items[i].color in locked_colors}))
        held_colors = {world.items[i].color for i, loc in enumerate(locs)
                       if loc == -1 - a and world.items[i].kind == "key"}
        door_cells = tuple(sorted({n for d in locked if world.doors[d].color in held_colors
                                   for _, n in world.neighbors[world.doors[d].cell]
                                   if world.passable(n, state.open_doors)}))
        return gem, keys, door_cells

    # ------------------------------------------------------------ phi(s, a)

    def step(self, state: DKGState, agent: str, action: str) -> tuple[tuple[float, ...], DKGState]:
        """(phi(s, a), s'): the features of ``agent`` doing ``action`` in ``state`` and the state
        after it when ``agent`` acts alone. An action it cannot take there does nothing: the zero
        vector and the same state."""
        world = self.world
        a = world.agent_index[agent]
        if world.done(state):
            return ZERO, state
        s = state if state.turn == a else dataclasses.replace(state, turn=a)
        if action == "wait":
            return ZERO, state
        try:
            result = world.step(s, {agent: action})
        except IllegalAction:
            return ZERO, state
        after = result.state
        before_cell, after_cell = s.agent_cells[a], after.agent_cells[a]
        (r0, c0), (r1, c1) = world.rc(before_cell), world.rc(after_cell)
        gem, keys, doors = self._targets(s, a)
        plates: tuple[int, ...] = ()
        if world.plate_doors:  # the free plates of the vaults still locked
            others = {c for b, c in enumerate(s.agent_cells) if b != a}
            plates = tuple(sorted({p for d in world.plate_doors if not s.open_doors >> d & 1
                                   for p in world.door_plates[d] if p not in others}))
        verb = action.split(" ", 1)[0]
        picked = ""
        if verb == "pickup":
            item = world.item_index.get(action.split(" ", 1)[1])
            picked = world.items[item].kind if item is not None else ""
        features = (
            float(c1 - c0), float(r1 - r0),
            self._progress(s.open_doors, gem, before_cell, after_cell),
            self._progress(s.open_doors, keys, before_cell, after_cell),
            self._progress(s.open_doors, doors, before_cell, after_cell),
            1.0 if picked == "gem" else 0.0,
            1.0 if picked == "key" else 0.0,
            1.0 if verb == "unlock" else 0.0,
            1.0 if verb == "handover" else 0.0,
            self._progress(s.open_doors, plates, before_cell, after_cell),
            1.0 if after.plate_ticks != s.plate_ticks else 0.0,
        )
        # the world's turn moves on; an imagined rollout keeps the same agent acting
        return features, after
