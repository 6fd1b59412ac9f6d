"""The view of the test world of ``tests/rooms_world.py``: walls, flags, agents; with a viewer,
only what that agent observes (its own room) is drawn, the rest is fog."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pygame

from tests.rooms_world import FLAGS, LAYOUT, MOVES, RoomsState, RoomsWorld
from ui.render.base import KeyBinding, Overlays, WorldRenderer

KEYS = {"up": "up", "down": "down", "left": "left", "right": "right", "space": "stay"}


class RoomsRenderer(WorldRenderer):
    family = "test-rooms"
    world: RoomsWorld

    def grid_shape(self) -> tuple[int, int]:
        return len(LAYOUT), len(LAYOUT[0])

    def draw(self, surface: pygame.Surface, state: RoomsState, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        surface.fill((30, 30, 36))
        visible = None
        if overlays.viewer is not None:
            obs = self.world.observe(state, overlays.viewer)
            visible = {obs.room, "door"}
            shown_agents = {a for a, _ in obs.seen}
        else:
            shown_agents = set(self.world.agents)
        for r, row in enumerate(LAYOUT):
            for c, ch in enumerate(row):
                rect = self.cell_rect(r, c)
                fog = visible is not None and ch != "#" and self.world.room((r, c)) not in visible
                color = (70, 70, 80) if ch == "#" else ((45, 45, 55) if fog else (235, 232, 220))
                pygame.draw.rect(surface, color, rect)
        for a, cell in FLAGS.items():
            rect = self.cell_rect(*cell)
            pygame.draw.polygon(surface, self.agent_color(a), [rect.midtop, rect.center, rect.bottomleft])
        for i, agent in enumerate(self.world.agents):
            if agent not in shown_agents:
                continue
            rect = self.cell_rect(*state.cells[i])
            pygame.draw.circle(surface, self.agent_color(agent), rect.center, max(3, self.tile // 3))

    def agent_anchor(self, state: RoomsState, agent: str) -> tuple[int, int] | None:
        rect = self.cell_rect(*state.cells[self.world.agents.index(agent)])
        return rect.centerx, rect.top

    def action_for_key(self, key: str, state: RoomsState, agent: str, legal: Sequence[Any]) -> Any | None:
        move = KEYS.get(key.lower())
        return move if move in legal else None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("arrows", "move"), KeyBinding("space", "stay")]

    def action_label(self, action: Any) -> str:
        return str(action) if action in MOVES else f"“{str(action)[4:]}”"
