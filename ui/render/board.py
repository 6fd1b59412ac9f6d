"""Views of worlds without a grid (boards: TradeCraft's table, the team room): one palette,
and a renderer base whose ``layout`` places everything itself."""

from __future__ import annotations

import pygame

from ui.render.base import WorldRenderer

BG = (28, 32, 40)
CARD = (42, 48, 60)
CARD_ACTIVE = (52, 60, 76)
TEXT = (232, 236, 242)
MUTED = (150, 160, 176)
GOLD = (250, 205, 60)
GREEN = (90, 200, 120)
RED = (230, 90, 80)
BLUE = (90, 160, 250)


class BoardRenderer(WorldRenderer):
    """A world drawn as a board, not a grid of cells."""

    def grid_shape(self) -> tuple[int, int]:
        return 1, 1  # a board, not a grid: ``layout`` places everything itself

    def cell_at(self, x: int, y: int) -> tuple[int, int] | None:
        return None

    def chip(self, surface: pygame.Surface, text: str, x: int, y: int, tint: tuple[int, int, int], px: int,
             pad: int = 2) -> int:
        """A rounded label of ``text`` on ``tint`` at (x, y); returns where the next one starts."""
        label = self.text(text, px, BG)
        box = pygame.Rect(x, y, label.get_width() + 10, label.get_height() + 2 * pad)
        pygame.draw.rect(surface, tint, box, border_radius=6)
        surface.blit(label, (x + 5, y + pad))
        return box.right + 6

    def wrap(self, text: str, px: int, width: int) -> list[str]:
        """``text`` broken into lines no wider than ``width`` pixels at ``px`` (a long word stays whole)."""
        words, lines, line = text.split(), [], ""
        for w in words:
            trial = f"{line} {w}".strip()
            if self.font(px).size(trial)[0] <= width or not line:
                line = trial
            else:
                lines.append(line)
                line = w
        if line:
            lines.append(line)
        return lines
