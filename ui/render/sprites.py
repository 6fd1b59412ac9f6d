"""Sprites of ToM Arena, drawn procedurally with pygame.

One function per sprite draws it at any size onto a transparent Surface, so the world
view draws crisp tiles at whatever size the window gives it. ``assets/make_assets.py``
writes the same drawings to PNG files (``assets/sprites/``) for icons and documents;
the renderer prefers those files when they are present and falls back to drawing.
"""

from __future__ import annotations

import math
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

RGB = tuple[int, int, int]

#: item colours of the worlds (sim/dkg/scenario.py COLORS)
ITEM_COLORS: dict[str, RGB] = {
    "red": (220, 50, 47), "blue": (38, 110, 220), "yellow": (236, 196, 24), "green": (46, 160, 67),
    "purple": (140, 72, 190), "orange": (240, 130, 20), "pink": (236, 100, 170), "cyan": (20, 180, 200),
}

#: agents by seat order: Alice pink and Bob blue as in the ProToM study, then well-separated hues
AGENT_COLORS: tuple[RGB, ...] = (
    (231, 84, 128), (52, 101, 214), (38, 166, 91), (243, 156, 18),
    (142, 68, 173), (22, 160, 133), (192, 57, 43), (100, 110, 120),
)

WALL: RGB = (46, 52, 64)
WALL_EDGE: RGB = (67, 76, 94)
FLOOR: RGB = (236, 239, 244)
FLOOR_LINE: RGB = (216, 222, 233)
FEEDBACK_BLUE: RGB = (30, 110, 235)


def agent_color(index: int) -> RGB:
    return AGENT_COLORS[index % len(AGENT_COLORS)]


def _shade(color: RGB, factor: float) -> RGB:
    if factor >= 1:
        return tuple(int(c + (255 - c) * (factor - 1)) for c in color)  # type: ignore[return-value]
    return tuple(int(c * factor) for c in color)  # type: ignore[return-value]


def _surface(size: int) -> pygame.Surface:
    return pygame.Surface((size, size), pygame.SRCALPHA)


def floor_tile(size: int) -> pygame.Surface:
    s = pygame.Surface((size, size))
    s.fill(FLOOR)
    pygame.draw.rect(s, FLOOR_LINE, (0, 0, size, size), max(1, size // 32))
    return s


def wall_tile(size: int) -> pygame.Surface:
    s = pygame.Surface((size, size))
    s.fill(WALL)
    # two courses of bricks: readable as a wall, dark enough to read as "blocked"
    line = max(1, size // 24)
    half = size // 2
    pygame.draw.line(s, WALL_EDGE, (0, half), (size, half), line)
    pygame.draw.line(s, WALL_EDGE, (size // 2, 0), (size // 2, half), line)
    pygame.draw.line(s, WALL_EDGE, (size // 4, half), (size // 4, size), line)
    pygame.draw.line(s, WALL_EDGE, (3 * size // 4, half), (3 * size // 4, size), line)
    return s


def agent_sprite(size: int, color: RGB) -> pygame.Surface:
    """A round-headed figure in the agent's colour with a white outline."""
    s = _surface(size)
    c = size / 2
    outline = max(1, size // 20)
    body = pygame.Rect(0, 0, int(size * 0.62), int(size * 0.42))
    body.midbottom = (int(c), int(size * 0.9))
    pygame.draw.ellipse(s, (255, 255, 255), body.inflate(outline * 2, outline * 2))
    pygame.draw.ellipse(s, _shade(color, 0.8), body)
    head_r = int(size * 0.2)
    head = (int(c), int(size * 0.36))
    pygame.draw.circle(s, (255, 255, 255), head, head_r + outline)
    pygame.draw.circle(s, color, head, head_r)
    eye = max(1, size // 22)
    pygame.draw.circle(s, (30, 30, 40), (head[0] - head_r // 3, head[1] - head_r // 6), eye)
    pygame.draw.circle(s, (30, 30, 40), (head[0] + head_r // 3, head[1] - head_r // 6), eye)
    return s


def key_sprite(size: int, color: RGB) -> pygame.Surface:
    s = _surface(size)
    dark = _shade(color, 0.6)
    w = max(2, size // 10)
    ring_c = (int(size * 0.32), int(size * 0.5))
    ring_r = int(size * 0.16)
    pygame.draw.circle(s, dark, ring_c, ring_r + max(1, size // 28))
    pygame.draw.circle(s, color, ring_c, ring_r)
    pygame.draw.circle(s, (0, 0, 0, 0), ring_c, max(1, ring_r // 2))
    shaft = pygame.Rect(ring_c[0] + ring_r - 1, ring_c[1] - w // 2, int(size * 0.42), w)
    pygame.draw.rect(s, dark, shaft.inflate(2, 2))
    pygame.draw.rect(s, color, shaft)
    for dx in (0.62, 0.74):
        tooth = pygame.Rect(int(size * dx), ring_c[1], w, int(size * 0.12))
        pygame.draw.rect(s, dark, tooth.inflate(2, 2))
        pygame.draw.rect(s, color, tooth)
    return s


def door_sprite(size: int, color: RGB, open_: bool = False) -> pygame.Surface:
    """A coloured cell with a black keyhole (locked) or a faint frame (open)."""
    s = _surface(size)
    if open_:
        pygame.draw.rect(s, (*color, 70), (0, 0, size, size))
        pygame.draw.rect(s, color, (0, 0, size, size), max(2, size // 12))
        return s
    pygame.draw.rect(s, color, (0, 0, size, size))
    pygame.draw.rect(s, _shade(color, 0.6), (0, 0, size, size), max(2, size // 12))
    c = size // 2
    pygame.draw.circle(s, (20, 20, 20), (c, int(size * 0.42)), max(2, size // 9))
    hole = [(c - size // 12, int(size * 0.45)), (c + size // 12, int(size * 0.45)),
            (c + size // 7, int(size * 0.72)), (c - size // 7, int(size * 0.72))]
    pygame.draw.polygon(s, (20, 20, 20), hole)
    return s


def gem_sprite(size: int, color: RGB) -> pygame.Surface:
    """A hexagon with a lighter facet."""
    s = _surface(size)
    c = size / 2
    r = size * 0.36
    pts = [(c + r * math.cos(math.pi / 6 + k * math.pi / 3), c + r * math.sin(math.pi / 6 + k * math.pi / 3))
           for k in range(6)]
    pygame.draw.polygon(s, _shade(color, 0.55), [(x, y + max(1, size // 30)) for x, y in pts])
    pygame.draw.polygon(s, color, pts)
    inner = [(c + 0.5 * (x - c), c + 0.5 * (y - c)) for x, y in pts]
    pygame.draw.polygon(s, _shade(color, 1.45), inner)
    pygame.draw.polygon(s, (255, 255, 255), pts, max(1, size // 32))
    return s


def arrow_sprite(size: int, color: RGB = FEEDBACK_BLUE) -> pygame.Surface:
    """A right-pointing feedback arrow (rotated by the renderer)."""
    s = _surface(size)
    w = max(2, size // 6)
    body = pygame.Rect(int(size * 0.1), size // 2 - w // 2, int(size * 0.5), w)
    pygame.draw.rect(s, color, body)
    head = [(int(size * 0.55), int(size * 0.2)), (int(size * 0.92), size // 2), (int(size * 0.55), int(size * 0.8))]
    pygame.draw.polygon(s, color, head)
    return s


def sprite_names() -> dict[str, "callable"]:
    """Every sprite file of assets/sprites/: name -> function(size) -> Surface."""
    names: dict[str, object] = {"floor": floor_tile, "wall": wall_tile, "arrow": arrow_sprite}
    for cname, rgb in ITEM_COLORS.items():
        names[f"key-{cname}"] = lambda size, rgb=rgb: key_sprite(size, rgb)
        names[f"door-{cname}"] = lambda size, rgb=rgb: door_sprite(size, rgb)
        names[f"door-{cname}-open"] = lambda size, rgb=rgb: door_sprite(size, rgb, open_=True)
        names[f"gem-{cname}"] = lambda size, rgb=rgb: gem_sprite(size, rgb)
    for i, rgb in enumerate(AGENT_COLORS):
        names[f"agent-{i}"] = lambda size, rgb=rgb: agent_sprite(size, rgb)
    return names  # type: ignore[return-value]
