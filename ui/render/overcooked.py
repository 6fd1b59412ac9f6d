"""The map of a kitchen under overcooked_ai's rules (``rules: overcooked``): terrain as coloured
tiles (counters, onion and tomato dispensers, dishes, pots, serving spots), objects as discs
(soups show their ingredients and a cooking bar), players as discs with a notch towards where they
face. ``KitchenView`` picks this view or the kitchen's own for a kitchen world."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pygame

from sim.kitchen.overcooked import OvercookedState, OvercookedWorld
from ui.render import sprites
from ui.render.base import KeyBinding, Overlays, WorldRenderer
from ui.render.kitchen_beliefs import KitchenWords

TERRAIN_COLORS = {"X": (150, 120, 90), "O": (236, 226, 190), "T": (240, 190, 180), "D": (205, 215, 230),
                  "P": (90, 90, 100), "S": (150, 210, 150), " ": (236, 232, 222)}
OBJECT_COLORS = {"onion": (226, 200, 120), "tomato": (220, 70, 60), "dish": (245, 245, 250), "soup": (235, 160, 60)}
TERRAIN_LETTERS = {"O": "onions", "T": "tomatoes", "D": "dishes", "S": "serve"}


class KitchenView(KitchenWords, WorldRenderer):
    """The kitchen plug-in's view: making one gives this module's OvercookedRenderer for a kitchen
    under overcooked_ai's rules, the kitchen's own KitchenRenderer for any other."""

    def __new__(cls, world: Any) -> WorldRenderer:  # type: ignore[misc]
        if isinstance(world, OvercookedWorld):
            return OvercookedRenderer(world)
        from ui.render.kitchen import KitchenRenderer
        return KitchenRenderer(world)


class OvercookedRenderer(KitchenWords, WorldRenderer):
    family = "kitchen"

    def __init__(self, world: OvercookedWorld) -> None:
        super().__init__(world)
        self.world: OvercookedWorld = world

    def grid_shape(self) -> tuple[int, int]:
        return self.world.height, self.world.width

    def _disc(self, surface: pygame.Surface, rect: pygame.Rect, name: str, ingredients: Sequence[str] = (),
              scale: float = 0.3) -> None:
        r = max(2, int(self.tile * scale))
        pygame.draw.circle(surface, OBJECT_COLORS.get(name, (200, 200, 200)), rect.center, r)
        pygame.draw.circle(surface, (60, 60, 60), rect.center, r, width=1)
        for k, item in enumerate(ingredients):  # a soup's ingredients as small dots along its rim
            x = rect.centerx + int((k - (len(ingredients) - 1) / 2) * r * 0.7)
            pygame.draw.circle(surface, OBJECT_COLORS[item], (x, rect.centery), max(1, r // 3))

    def draw(self, surface: pygame.Surface, state: OvercookedState, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        surface.fill((250, 250, 250))
        px = max(8, self.tile // 5)
        for y, row in enumerate(self.world.grid):
            for x, ch in enumerate(row):
                rect = self.cell_rect(y, x)
                pygame.draw.rect(surface, TERRAIN_COLORS[ch], rect)
                pygame.draw.rect(surface, (120, 110, 100), rect, width=1)
                if ch in TERRAIN_LETTERS and self.tile >= 24:
                    surface.blit(self.text(TERRAIN_LETTERS[ch], px, (40, 40, 40)), (rect.x + 2, rect.y + 1))
        for (x, y), obj in state.objects:
            rect = self.cell_rect(y, x)
            self._disc(surface, rect, obj[0], obj[1])
            if obj[0] == "soup" and obj[2] >= 0:  # the cooking bar, full when the soup is ready
                cook = self.world.layout.time(tuple(sorted(obj[1])))
                share = 1.0 if cook <= 0 else min(1.0, obj[2] / cook)
                bar = pygame.Rect(rect.x + 2, rect.bottom - 5, int((rect.width - 4) * share), 3)
                pygame.draw.rect(surface, (60, 170, 60) if share >= 1 else (230, 120, 40), bar)
        for i, p in enumerate(state.players):
            rect = self.cell_rect(p[1], p[0])
            color = sprites.agent_color(i)
            pygame.draw.circle(surface, color, rect.center, max(3, int(self.tile * 0.38)))
            tip = (rect.centerx + p[2] * int(self.tile * 0.45), rect.centery + p[3] * int(self.tile * 0.45))
            pygame.draw.line(surface, (30, 30, 30), rect.center, tip, width=max(2, self.tile // 12))
            if p[4] is not None:
                self._disc(surface, rect, p[4][0], p[4][1], scale=0.18)

    def status_text(self, state: OvercookedState) -> str:
        return f"score {sum(state.score)}, soups {state.served}"

    def agent_anchor(self, state: OvercookedState, agent: str) -> tuple[int, int] | None:
        p = state.players[self.world.agent_index[agent]]
        rect = self.cell_rect(p[1], p[0])
        return rect.centerx, rect.top

    def action_for_key(self, key: str, state: OvercookedState, agent: str, legal: Sequence[Any]) -> Any | None:
        action = {"up": "up", "down": "down", "left": "left", "right": "right", "space": "stay",
                  "return": "interact"}.get(key.lower())
        return action if action in legal else None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("arrows", "move (and face)"), KeyBinding("Enter", "interact with the faced cell"),
                KeyBinding("Space", "stay")]
