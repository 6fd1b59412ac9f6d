"""Item icons of TradeCraft, drawn for this project: 16x16 pixel art made from an item's name.

Every item of any rule set gets an icon, also items of a datapack nobody drew: the name
gives a *shape* (ingot, planks, log, pickaxe, helmet, dye, bucket, flower...; the last
matching word wins, so ``iron_pickaxe`` is a pickaxe and ``pickaxe`` alone too) and a
*material colour* (oak, iron, diamond, red, sandstone...; the first matching word wins).
Items that match nothing become an orb in a colour of their own with their initial.

``item_icon(name, size)`` returns a pygame Surface (cached) and prefers a PNG written by
``assets/make_item_icons.py`` to ``assets/items/<namespace>/<name>.png`` when there is one,
so a drawing can be replaced by hand. ``item_pixmap`` gives the same icon to Qt widgets.
"""

from __future__ import annotations

import colorsys
import hashlib
import math
import os
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

RGB = tuple[int, int, int]
GRID = 16  # logical pixels per side
ITEMS_DIR = Path(__file__).resolve().parents[2] / "assets" / "items"

# ------------------------------------------------------------------ colours

DYES: dict[str, RGB] = {
    "white": (240, 240, 240), "orange": (240, 130, 30), "magenta": (200, 75, 190), "light_blue": (90, 170, 230),
    "yellow": (250, 215, 50), "lime": (130, 200, 40), "pink": (240, 140, 170), "gray": (85, 90, 95),
    "light_gray": (160, 160, 155), "cyan": (30, 150, 160), "purple": (125, 50, 175), "blue": (55, 65, 170),
    "brown": (120, 80, 45), "green": (85, 110, 30), "red": (175, 40, 35), "black": (30, 30, 35),
}
WOODS: dict[str, RGB] = {
    "dark_oak": (75, 50, 28), "oak": (184, 148, 90), "spruce": (118, 86, 50), "birch": (214, 200, 140),
    "jungle": (172, 122, 86), "acacia": (172, 92, 50), "mangrove": (120, 52, 48), "cherry": (226, 178, 170),
    "bamboo": (205, 190, 90), "crimson": (125, 55, 80), "warped": (45, 125, 120), "wooden": (170, 135, 80),
}
MATERIALS: dict[str, RGB] = {
    "netherite": (75, 65, 70), "diamond": (95, 225, 215), "emerald": (45, 195, 95), "golden": (250, 210, 60),
    "gold": (250, 210, 60), "iron": (216, 216, 220), "copper": (205, 112, 78), "chainmail": (170, 170, 175),
    "lapis": (40, 75, 175), "redstone": (205, 30, 30), "charcoal": (62, 52, 45), "coal": (48, 48, 52),
    "quartz": (236, 230, 222), "amethyst": (155, 105, 205), "obsidian": (42, 26, 62), "prismarine": (100, 175, 155),
    "glowstone": (250, 210, 110), "blaze": (250, 170, 40), "ender": (30, 110, 95), "slime": (120, 200, 90),
    "magma": (200, 90, 30), "honey": (240, 170, 40), "leather": (140, 82, 42), "rabbit": (170, 130, 95),
    "string": (235, 235, 235), "paper": (242, 242, 232), "book": (125, 72, 40), "bone": (232, 226, 204),
    "clay": (160, 166, 182), "mud": (92, 72, 58), "deepslate": (78, 78, 84),
    "blackstone": (42, 36, 44), "basalt": (80, 80, 86), "tuff": (110, 110, 100), "calcite": (222, 222, 218),
    "granite": (156, 106, 86), "diorite": (205, 205, 205), "andesite": (136, 136, 138), "end_stone": (222, 222, 160),
    "purpur": (170, 125, 170), "nether": (110, 40, 40), "netherrack": (110, 40, 40), "soul": (85, 65, 50),
    "red_sand": (190, 102, 50), "sandstone": (218, 205, 152), "sand": (222, 210, 160), "gravel": (130, 124, 122),
    "terracotta": (160, 92, 66), "cobblestone": (118, 118, 118), "cobbled": (90, 90, 96), "mossy": (100, 130, 80),
    "stone": (128, 128, 128), "snow": (245, 250, 252), "ice": (160, 190, 250), "glass": (190, 222, 236),
    "kelp": (60, 112, 60), "cactus": (82, 142, 60), "pumpkin": (222, 132, 32), "melon": (112, 172, 60),
    "wheat": (222, 192, 92), "hay": (222, 192, 92), "sugar_cane": (132, 192, 92), "sugar": (250, 250, 250),
    "cocoa": (120, 70, 35), "apple": (210, 40, 40), "carrot": (240, 132, 30), "potato": (202, 162, 82),
    "beetroot": (160, 40, 60), "beef": (190, 60, 55), "porkchop": (230, 140, 130), "mutton": (200, 70, 70),
    "chicken": (235, 200, 170), "cod": (180, 160, 120), "salmon": (200, 90, 70), "egg": (240, 226, 190),
    "milk": (250, 250, 250), "lava": (240, 110, 20), "water": (60, 120, 220), "feather": (245, 245, 245),
    "flint": (62, 62, 66), "gunpowder": (92, 92, 92), "sponge": (210, 200, 70), "moss": (90, 125, 50),
    "tnt": (205, 50, 40), "scute": (70, 160, 60), "ink": (30, 30, 40), "chorus": (150, 110, 150),
    # alchemy-style elements
    "fire": (240, 100, 30), "earth": (130, 92, 52), "air": (200, 232, 250), "metal": (180, 185, 195),
    "wood": (150, 110, 60), "plank": (184, 148, 90), "life": (230, 80, 120), "energy": (250, 220, 60),
    "light": (255, 235, 140), "sun": (252, 205, 40), "moon": (220, 225, 235), "sky": (140, 200, 250),
    "cloud": (235, 240, 248), "rain": (90, 150, 230), "storm": (90, 95, 120), "sea": (40, 100, 200),
    "ocean": (30, 80, 180), "lake": (60, 130, 210), "pond": (70, 140, 200), "steam": (215, 220, 228),
    "smoke": (120, 120, 125), "dust": (190, 170, 140), "ash": (130, 130, 130), "grass": (90, 170, 60),
    "plant": (70, 160, 60), "tree": (60, 140, 50), "forest": (40, 110, 40), "swamp": (80, 100, 60),
    "brick": (152, 78, 60),  # last: stone_bricks, mud_bricks... take their stone's colour
}
BARK = {"birch": (230, 230, 225), "cherry": (60, 35, 40), "bamboo": (120, 150, 50)}
MEAT_WORDS = ("beef", "porkchop", "mutton", "chicken", "rabbit", "cod", "salmon", "meat", "steak")


def _tint(c: RGB, f: float) -> RGB:
    """Lighter (f > 1) or darker (f < 1) shade of a colour."""
    if f >= 1:
        return tuple(min(255, int(v + (255 - v) * (f - 1))) for v in c)  # type: ignore[return-value]
    return tuple(max(0, int(v * f)) for v in c)  # type: ignore[return-value]


def _words(name: str) -> list[str]:
    short = name.split(":", 1)[-1].lower()
    return short.replace("-", "_").replace(" ", "_").split("_")


def _hash_color(name: str) -> RGB:
    h = int(hashlib.blake2b(name.encode(), digest_size=4).hexdigest(), 16)
    r, g, b = colorsys.hls_to_rgb((h % 360) / 360, 0.55, 0.55)
    return int(r * 255), int(g * 255), int(b * 255)


def material_color(name: str) -> RGB:
    """The colour an item's name suggests (dyes and woods first, then materials), else its own hue."""
    short = name.split(":", 1)[-1].lower()
    words = _words(name)
    joined = "_" + short + "_"
    for table in (DYES, WOODS):
        for key, color in table.items():
            if f"_{key}_" in joined:
                return color
    for key, color in MATERIALS.items():
        if f"_{key}_" in joined or (len(key) > 3 and any(w.startswith(key) for w in words)):
            return color
    return _hash_color(short)


# ------------------------------------------------------------------ pixel art at 16 x 16

class Pen:
    """Draws on a 16x16 transparent surface in logical pixels."""

    def __init__(self) -> None:
        self.s = pygame.Surface((GRID, GRID), pygame.SRCALPHA)

    def px(self, x: int, y: int, c: RGB) -> None:
        if 0 <= x < GRID and 0 <= y < GRID:
            self.s.set_at((x, y), (*c, 255))

    def rect(self, x: int, y: int, w: int, h: int, c: RGB) -> None:
        pygame.draw.rect(self.s, (*c, 255), (x, y, w, h))

    def line(self, x0: int, y0: int, x1: int, y1: int, c: RGB, width: int = 1) -> None:
        pygame.draw.line(self.s, (*c, 255), (x0, y0), (x1, y1), width)

    def poly(self, points: list[tuple[int, int]], c: RGB) -> None:
        pygame.draw.polygon(self.s, (*c, 255), points)

    def circle(self, x: int, y: int, r: int, c: RGB) -> None:
        pygame.draw.circle(self.s, (*c, 255), (x, y), r)

    def outline(self, c: RGB = (30, 30, 34)) -> None:
        """A one-pixel dark outline around everything drawn (keeps icons readable on any background)."""
        mask = pygame.mask.from_surface(self.s)
        solid = {(x, y) for x in range(GRID) for y in range(GRID) if mask.get_at((x, y))}
        for x, y in solid:
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                q = (x + dx, y + dy)
                if q not in solid and 0 <= q[0] < GRID and 0 <= q[1] < GRID:
                    self.s.set_at(q, (*c, 255))

    def speckle(self, x: int, y: int, w: int, h: int, c: RGB, seed: str, every: int = 5) -> None:
        """Deterministic texture dots (same name, same dots)."""
        digest = hashlib.blake2b(seed.encode(), digest_size=32).digest()
        k = 0
        for yy in range(y, y + h):
            for xx in range(x, x + w):
                if digest[k % 32] % every == 0:
                    self.px(xx, yy, c)
                k += 7


def _block(p: Pen, c: RGB, seed: str, texture: RGB | None = None) -> None:
    p.rect(2, 2, 12, 12, c)
    p.rect(2, 2, 12, 1, _tint(c, 1.3))
    p.rect(2, 2, 1, 12, _tint(c, 1.2))
    p.rect(2, 13, 12, 1, _tint(c, 0.6))
    p.rect(13, 2, 1, 12, _tint(c, 0.7))
    p.speckle(3, 3, 10, 10, texture or _tint(c, 0.85), seed)


def draw_block(p: Pen, c: RGB, name: str) -> None:
    _block(p, c, name)


def draw_ore(p: Pen, c: RGB, name: str) -> None:
    base = MATERIALS["deepslate"] if "deepslate" in name else MATERIALS["netherrack"] if "nether" in name else (
        MATERIALS["stone"])
    _block(p, base, name)
    for x, y in ((4, 4), (9, 5), (6, 9), (10, 10), (4, 11)):
        p.rect(x, y, 2, 2, c)
        p.px(x, y, _tint(c, 1.3))


def draw_planks(p: Pen, c: RGB, name: str) -> None:
    p.rect(2, 2, 12, 12, c)
    for y in (5, 9, 13):
        p.rect(2, y, 12, 1, _tint(c, 0.7))
    for x, y in ((6, 2), (10, 6), (5, 10)):
        p.rect(x, y, 1, 3, _tint(c, 0.7))
    p.rect(2, 2, 12, 1, _tint(c, 1.25))


def draw_log(p: Pen, c: RGB, name: str) -> None:
    bark = next((b for k, b in BARK.items() if k in name), _tint(c, 0.55))
    if "stripped" in name:
        bark = _tint(c, 0.85)
    p.rect(2, 2, 12, 12, bark)
    p.rect(4, 4, 8, 8, c)
    p.rect(6, 6, 4, 4, _tint(c, 0.8))
    p.rect(7, 7, 2, 2, c)
    p.speckle(2, 2, 12, 2, _tint(bark, 0.7), name, 3)


def draw_ingot(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 11), (5, 6), (14, 6), (11, 11)], c)
    p.poly([(2, 11), (11, 11), (11, 13), (2, 13)], _tint(c, 0.7))
    p.poly([(11, 11), (14, 6), (14, 8), (11, 13)], _tint(c, 0.55))
    p.line(6, 7, 12, 7, _tint(c, 1.35))


def draw_nugget(p: Pen, c: RGB, name: str) -> None:
    p.poly([(3, 10), (5, 6), (9, 4), (13, 7), (12, 11), (7, 12)], c)
    p.rect(5, 6, 4, 2, _tint(c, 1.3))
    p.line(7, 12, 12, 11, _tint(c, 0.6))
    p.px(9, 8, _tint(c, 1.45))


def draw_raw(p: Pen, c: RGB, name: str) -> None:
    p.poly([(3, 9), (5, 5), (9, 3), (12, 5), (13, 10), (10, 13), (5, 13)], _tint(c, 0.85))
    p.speckle(4, 5, 9, 8, _tint(c, 0.6), name, 3)
    p.rect(6, 6, 2, 2, _tint(c, 1.3))


def draw_gem(p: Pen, c: RGB, name: str) -> None:
    p.poly([(8, 2), (14, 8), (8, 14), (2, 8)], c)
    p.poly([(8, 2), (8, 8), (2, 8)], _tint(c, 1.35))
    p.poly([(8, 14), (14, 8), (8, 8)], _tint(c, 0.65))
    p.px(6, 6, (255, 255, 255))


def draw_dust(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 13), (8, 6), (14, 13)], c)
    p.speckle(3, 7, 11, 6, _tint(c, 0.65), name, 3)
    p.speckle(3, 7, 11, 6, _tint(c, 1.4), name + "!", 5)


def draw_stick(p: Pen, c: RGB, name: str) -> None:
    p.line(3, 13, 12, 3, _tint(c, 0.65), 3)
    p.line(3, 13, 12, 3, c, 1)


def _handle(p: Pen) -> None:
    p.line(3, 13, 10, 6, (110, 75, 40), 2)
    p.line(3, 13, 10, 6, (150, 105, 60), 1)


def draw_pickaxe(p: Pen, c: RGB, name: str) -> None:
    _handle(p)
    p.poly([(3, 4), (6, 2), (10, 2), (14, 6), (14, 10), (12, 10), (11, 6), (8, 4), (4, 6)], c)
    p.line(6, 3, 11, 4, _tint(c, 1.3))


def draw_axe(p: Pen, c: RGB, name: str) -> None:
    _handle(p)
    p.poly([(8, 3), (11, 1), (14, 4), (13, 9), (10, 8)], c)
    p.line(11, 2, 13, 4, _tint(c, 1.3))


def draw_shovel(p: Pen, c: RGB, name: str) -> None:
    _handle(p)
    p.poly([(9, 4), (12, 1), (15, 4), (12, 7)], c)
    p.px(12, 3, _tint(c, 1.3))


def draw_hoe(p: Pen, c: RGB, name: str) -> None:
    _handle(p)
    p.poly([(7, 3), (13, 3), (13, 7), (11, 7), (11, 5), (7, 5)], c)


def draw_sword(p: Pen, c: RGB, name: str) -> None:
    p.line(4, 12, 13, 3, c, 3)
    p.line(5, 11, 13, 3, _tint(c, 1.35), 1)
    p.line(3, 9, 7, 13, (80, 55, 30), 2)
    p.line(2, 14, 4, 12, (110, 75, 40), 2)


def draw_helmet(p: Pen, c: RGB, name: str) -> None:
    p.poly([(3, 12), (3, 6), (6, 3), (10, 3), (13, 6), (13, 12), (11, 12), (11, 8), (5, 8), (5, 12)], c)
    p.line(4, 6, 7, 4, _tint(c, 1.3))


def draw_chestplate(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 3), (6, 3), (8, 5), (10, 3), (14, 3), (14, 7), (12, 7), (12, 14), (4, 14), (4, 7), (2, 7)], c)
    p.line(5, 8, 5, 13, _tint(c, 1.3))
    p.line(8, 6, 8, 13, _tint(c, 0.75))


def draw_leggings(p: Pen, c: RGB, name: str) -> None:
    p.poly([(3, 2), (13, 2), (13, 14), (10, 14), (8, 7), (6, 14), (3, 14)], c)
    p.rect(3, 2, 10, 2, _tint(c, 0.75))


def draw_boots(p: Pen, c: RGB, name: str) -> None:
    for x in (2, 9):
        p.poly([(x, 6), (x + 3, 6), (x + 3, 11), (x + 5, 11), (x + 5, 14), (x, 14)], c)
        p.line(x, 6, x + 3, 6, _tint(c, 1.3))


def draw_slab(p: Pen, c: RGB, name: str) -> None:
    p.rect(2, 8, 12, 6, c)
    p.rect(2, 8, 12, 1, _tint(c, 1.3))
    p.rect(2, 13, 12, 1, _tint(c, 0.6))
    p.speckle(3, 9, 10, 4, _tint(c, 0.85), name)


def draw_stairs(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 14), (2, 8), (8, 8), (8, 2), (14, 2), (14, 14)], c)
    p.line(2, 8, 8, 8, _tint(c, 1.3))
    p.line(8, 2, 14, 2, _tint(c, 1.3))
    p.line(2, 14, 14, 14, _tint(c, 0.6))


def draw_wall(p: Pen, c: RGB, name: str) -> None:
    p.rect(2, 4, 4, 10, c)
    p.rect(10, 4, 4, 10, c)
    p.rect(6, 6, 4, 8, _tint(c, 0.85))
    p.rect(2, 4, 12, 1, _tint(c, 1.3))


def draw_fence(p: Pen, c: RGB, name: str) -> None:
    for x in (3, 11):
        p.rect(x, 2, 2, 12, c)
    for y in (5, 10):
        p.rect(2, y, 12, 2, _tint(c, 0.85))
    if "gate" in name:
        p.line(5, 6, 10, 11, _tint(c, 0.7))


def draw_door(p: Pen, c: RGB, name: str) -> None:
    p.rect(4, 1, 8, 14, c)
    p.rect(5, 2, 6, 5, _tint(c, 0.75))
    p.rect(5, 8, 6, 6, _tint(c, 0.85))
    p.px(10, 8, (40, 40, 40))


def draw_trapdoor(p: Pen, c: RGB, name: str) -> None:
    p.rect(2, 2, 12, 12, c)
    for x, y in ((4, 4), (9, 4), (4, 9), (9, 9)):
        p.rect(x, y, 3, 3, _tint(c, 0.55))


def draw_button(p: Pen, c: RGB, name: str) -> None:
    p.rect(5, 6, 6, 4, c)
    p.rect(5, 6, 6, 1, _tint(c, 1.3))
    p.rect(5, 9, 6, 1, _tint(c, 0.6))


def draw_plate(p: Pen, c: RGB, name: str) -> None:
    p.rect(2, 10, 12, 3, c)
    p.rect(2, 10, 12, 1, _tint(c, 1.3))


def draw_sign(p: Pen, c: RGB, name: str) -> None:
    if "hanging" in name:
        p.line(4, 1, 4, 5, (90, 90, 90))
        p.line(11, 1, 11, 5, (90, 90, 90))
        p.rect(2, 5, 12, 7, c)
    else:
        p.rect(2, 3, 12, 7, c)
        p.rect(7, 10, 2, 5, _tint(c, 0.6))
    for y in (6, 8):
        p.line(4, y, 11, y, _tint(c, 0.55))


def draw_boat(p: Pen, c: RGB, name: str) -> None:
    p.poly([(1, 7), (15, 7), (12, 12), (4, 12)], c)
    p.line(1, 7, 15, 7, _tint(c, 1.3))
    p.line(4, 12, 12, 12, _tint(c, 0.6))
    if "chest" in name:
        p.rect(6, 3, 5, 4, (150, 100, 40))
        p.px(8, 5, (220, 200, 80))


def draw_bed(p: Pen, c: RGB, name: str) -> None:
    p.rect(1, 7, 14, 5, c)
    p.rect(1, 7, 4, 5, (240, 240, 240))
    p.rect(1, 12, 2, 2, (120, 80, 40))
    p.rect(13, 12, 2, 2, (120, 80, 40))


def draw_banner(p: Pen, c: RGB, name: str) -> None:
    p.line(3, 1, 3, 15, (120, 80, 40), 1)
    p.line(3, 2, 13, 2, (120, 80, 40), 1)
    p.rect(4, 3, 8, 10, c)
    p.rect(6, 6, 4, 3, _tint(c, 0.7))


def draw_carpet(p: Pen, c: RGB, name: str) -> None:
    p.rect(1, 11, 14, 3, c)
    p.rect(1, 11, 14, 1, _tint(c, 1.25))


def draw_wool(p: Pen, c: RGB, name: str) -> None:
    _block(p, c, name, _tint(c, 1.15))
    p.speckle(3, 3, 10, 10, _tint(c, 0.85), name + "w", 4)


def draw_glass(p: Pen, c: RGB, name: str) -> None:
    frame = _tint(c, 0.8)
    if "pane" in name:
        p.rect(6, 1, 4, 14, c)
        p.rect(6, 1, 4, 1, frame)
        p.rect(6, 14, 4, 1, frame)
        return
    p.s.fill((*c, 120), pygame.Rect(2, 2, 12, 12))
    for x0, y0, x1, y1 in ((2, 2, 13, 2), (2, 13, 13, 13), (2, 2, 2, 13), (13, 2, 13, 13)):
        p.line(x0, y0, x1, y1, frame)
    p.line(5, 5, 8, 4, (255, 255, 255))


def draw_dye(p: Pen, c: RGB, name: str) -> None:
    p.poly([(8, 2), (12, 8), (12, 11), (9, 14), (7, 14), (4, 11), (4, 8)], c)
    p.px(6, 9, _tint(c, 1.4))


def draw_candle(p: Pen, c: RGB, name: str) -> None:
    p.rect(6, 6, 4, 9, c)
    p.line(8, 4, 8, 5, (40, 40, 40))
    p.px(8, 2, (255, 200, 60))
    p.px(8, 3, (255, 140, 30))


def draw_bucket(p: Pen, c: RGB, name: str) -> None:
    metal = MATERIALS["iron"]
    p.poly([(3, 5), (13, 5), (11, 14), (5, 14)], metal)
    p.line(3, 5, 13, 5, _tint(metal, 0.7))
    fill = next((MATERIALS[k] for k in ("lava", "milk", "water") if k in name), None)
    if fill is not None:
        p.rect(4, 6, 8, 2, fill)
    p.line(4, 4, 8, 1, _tint(metal, 0.6))
    p.line(8, 1, 12, 4, _tint(metal, 0.6))


def draw_food(p: Pen, c: RGB, name: str) -> None:
    if any(w in name for w in MEAT_WORDS):
        meat = _tint(c, 0.7) if "cooked" in name else c
        p.poly([(3, 7), (7, 3), (12, 4), (13, 9), (9, 13), (4, 12)], meat)
        p.rect(11, 10, 3, 2, (235, 230, 210))
        return
    if "bread" in name:
        p.poly([(2, 10), (4, 6), (12, 5), (14, 9), (12, 12), (4, 12)], (200, 150, 70))
        for x in (5, 8, 11):
            p.px(x, 7, (150, 100, 40))
        return
    p.circle(8, 9, 5, c)
    p.px(6, 7, _tint(c, 1.4))
    p.line(8, 3, 8, 5, (100, 70, 30))
    p.rect(9, 3, 3, 2, (70, 150, 50))


def draw_bowl(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 8), (14, 8), (11, 13), (5, 13)], (150, 105, 60))
    if not name.endswith("bowl"):
        p.rect(3, 7, 10, 2, c)


def draw_flower(p: Pen, c: RGB, name: str) -> None:
    p.line(8, 8, 8, 15, (60, 140, 50), 1)
    p.px(7, 12, (60, 140, 50))
    for dx, dy in ((0, -2), (2, 0), (0, 2), (-2, 0)):
        p.rect(7 + dx, 5 + dy, 2, 2, c)
    p.rect(7, 5, 2, 2, (250, 220, 60))


def draw_sapling(p: Pen, c: RGB, name: str) -> None:
    p.line(8, 9, 8, 15, (110, 75, 40), 1)
    p.circle(8, 6, 4, (60, 140, 50) if "cherry" not in name else (240, 170, 200))
    p.px(7, 5, (110, 190, 90))


def draw_mushroom(p: Pen, c: RGB, name: str) -> None:
    cap = (200, 40, 40) if "red" in name else (150, 105, 70)
    p.rect(7, 8, 2, 6, (235, 225, 200))
    p.poly([(3, 8), (5, 4), (11, 4), (13, 8)], cap)
    if "red" in name:
        p.px(6, 6, (255, 255, 255))
        p.px(10, 5, (255, 255, 255))


def draw_torch(p: Pen, c: RGB, name: str) -> None:
    flame = (100, 200, 240) if "soul" in name else (250, 60, 40) if "redstone" in name else (255, 200, 50)
    if "lantern" in name:
        p.rect(5, 5, 6, 8, (70, 70, 80))
        p.rect(6, 6, 4, 6, flame)
        p.line(8, 2, 8, 4, (70, 70, 80))
        return
    p.rect(7, 6, 2, 9, (130, 90, 50))
    p.rect(7, 3, 2, 3, flame)
    p.px(7, 2, _tint(flame, 1.3))


def draw_rail(p: Pen, c: RGB, name: str) -> None:
    for y in (3, 6, 9, 12):
        p.rect(2, y, 12, 2, (120, 85, 50))
    rail = (250, 210, 60) if "powered" in name else MATERIALS["iron"]
    p.rect(4, 1, 1, 14, rail)
    p.rect(11, 1, 1, 14, rail)
    if "detector" in name or "activator" in name:
        p.px(8, 8, (205, 30, 30))


def draw_minecart(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 5), (14, 5), (12, 11), (4, 11)], (140, 140, 150))
    p.circle(5, 12, 2, (50, 50, 55))
    p.circle(11, 12, 2, (50, 50, 55))
    if name != "minecart":
        p.rect(5, 3, 6, 3, c)


def draw_book(p: Pen, c: RGB, name: str) -> None:
    if "shelf" in name:
        _block(p, (160, 120, 70), name)
        for x, col in zip(range(3, 13, 2), ((175, 40, 35), (55, 65, 170), (85, 110, 30), (250, 215, 50), (125, 50, 175))):
            p.rect(x, 4, 2, 4, col)
            p.rect(x, 9, 2, 4, col)
        return
    p.rect(3, 3, 10, 11, (125, 72, 40))
    p.rect(4, 4, 8, 1, (160, 100, 60))
    p.rect(12, 4, 1, 10, (240, 238, 225))
    if "writable" in name or "written" in name:
        p.line(6, 7, 13, 1, (240, 240, 240))


def draw_paper(p: Pen, c: RGB, name: str) -> None:
    p.rect(3, 2, 10, 12, (242, 242, 232))
    for y in (5, 7, 9, 11):
        p.line(5, y, 11, y, (190, 190, 200))
    if name == "map":
        p.rect(4, 3, 8, 10, (220, 200, 150))
        p.rect(6, 5, 3, 3, (90, 160, 80))


def draw_coil(p: Pen, c: RGB, name: str) -> None:
    for r, col in ((5, c), (3, _tint(c, 0.8)), (1, c)):
        pygame.draw.circle(p.s, (*col, 255), (8, 8), r, 1)


def draw_feather(p: Pen, c: RGB, name: str) -> None:
    p.line(3, 13, 12, 3, (200, 200, 200), 1)
    p.poly([(5, 10), (9, 3), (13, 2), (11, 8)], (245, 245, 245))


def draw_bone(p: Pen, c: RGB, name: str) -> None:
    if "meal" in name:
        draw_dust(p, (240, 240, 240), name)
        return
    p.line(4, 12, 12, 4, c, 2)
    for x, y in ((3, 12), (4, 13), (12, 3), (13, 4)):
        p.rect(x - 1, y - 1, 2, 2, c)


def draw_ball(p: Pen, c: RGB, name: str) -> None:
    p.circle(8, 8, 4, c)
    p.rect(6, 6, 2, 2, _tint(c, 1.35))
    p.px(10, 10, _tint(c, 0.65))


def draw_bottle(p: Pen, c: RGB, name: str) -> None:
    p.rect(7, 2, 2, 3, (180, 140, 90))
    p.circle(8, 10, 4, (190, 222, 236))
    if "honey" in name:
        p.circle(8, 11, 3, MATERIALS["honey"])


def draw_arrow(p: Pen, c: RGB, name: str) -> None:
    p.line(3, 13, 12, 4, (130, 90, 50), 1)
    p.poly([(10, 3), (13, 3), (13, 6)], (150, 150, 155))
    p.poly([(2, 11), (5, 14), (3, 14)], (240, 240, 240))


def draw_bow(p: Pen, c: RGB, name: str) -> None:
    pygame.draw.arc(p.s, (130, 90, 50, 255), pygame.Rect(2, 2, 16, 16), 1.5, 3.3, 2)
    p.line(3, 10, 10, 3, (230, 230, 230), 1)
    if "crossbow" in name:
        p.line(4, 12, 12, 4, (90, 60, 30), 2)


def draw_shears(p: Pen, c: RGB, name: str) -> None:
    metal = MATERIALS["iron"]
    p.line(3, 3, 10, 10, metal, 2)
    p.line(10, 3, 3, 10, metal, 2)
    pygame.draw.circle(p.s, (160, 40, 40, 255), (12, 12), 2, 1)
    pygame.draw.circle(p.s, (160, 40, 40, 255), (12, 5), 2, 1)


def draw_dial(p: Pen, c: RGB, name: str) -> None:
    rim = (250, 210, 60) if "clock" in name else MATERIALS["iron"]
    p.circle(8, 8, 6, rim)
    p.circle(8, 8, 4, (240, 240, 235) if "compass" in name else (90, 140, 220))
    p.line(8, 8, 10, 5, (200, 30, 30))


def draw_egg(p: Pen, c: RGB, name: str) -> None:
    pygame.draw.ellipse(p.s, (*c, 255), (4, 3, 8, 11))
    p.px(6, 5, _tint(c, 1.3))


def draw_tnt(p: Pen, c: RGB, name: str) -> None:
    _block(p, (205, 50, 40), name)
    p.rect(2, 6, 12, 4, (240, 240, 240))
    p.rect(5, 7, 6, 2, (40, 40, 40))


def draw_workstation(p: Pen, c: RGB, name: str) -> None:
    base = (150, 110, 60) if any(w in name for w in ("crafting", "table", "lectern", "loom", "composter",
                                                       "barrel", "chest", "beehive", "jukebox", "note"))\
        else MATERIALS["cobblestone"]
    _block(p, base, name)
    if "furnace" in name or "smoker" in name:
        p.rect(5, 8, 6, 4, (40, 40, 40))
        p.rect(6, 10, 4, 2, (250, 140, 30))
    elif "chest" in name or "barrel" in name:
        p.rect(2, 7, 12, 1, _tint(base, 0.55))
        p.rect(7, 6, 2, 3, (220, 200, 90))
    else:
        p.rect(3, 3, 10, 3, _tint(base, 0.7))
        for x in (5, 8, 11):
            p.px(x, 4, (40, 40, 40))


def draw_cloth_item(p: Pen, c: RGB, name: str) -> None:
    p.poly([(2, 5), (8, 2), (14, 5), (13, 13), (3, 13)], c)
    p.line(3, 6, 8, 3, _tint(c, 1.3))


# alchemy-style glyphs
def draw_flame(p: Pen, c: RGB, name: str) -> None:
    p.poly([(8, 1), (12, 7), (12, 11), (9, 14), (7, 14), (4, 11), (4, 7), (6, 8)], (240, 90, 30))
    p.poly([(8, 6), (10, 10), (9, 13), (7, 13), (6, 10)], (255, 210, 60))


def draw_drop(p: Pen, c: RGB, name: str) -> None:
    p.poly([(8, 1), (12, 8), (12, 11), (9, 14), (7, 14), (4, 11), (4, 8)], c)
    p.px(6, 9, _tint(c, 1.5))


def draw_cloud(p: Pen, c: RGB, name: str) -> None:
    for x, y, r in ((5, 9, 3), (9, 7, 4), (12, 10, 3)):
        p.circle(x, y, r, c)
    p.rect(4, 10, 9, 3, c)
    if "rain" in name or "storm" in name:
        for x in (5, 8, 11):
            p.line(x, 13, x - 1, 15, MATERIALS["rain"])


def draw_sun(p: Pen, c: RGB, name: str) -> None:
    for k in range(8):
        a = k * math.pi / 4
        p.line(8, 8, int(8 + 7 * math.cos(a)), int(8 + 7 * math.sin(a)), _tint(c, 0.85))
    p.circle(8, 8, 4, c)


def draw_moon(p: Pen, c: RGB, name: str) -> None:
    p.circle(8, 8, 6, c)
    pygame.draw.circle(p.s, (0, 0, 0, 0), (11, 6), 5)  # drawing replaces alpha too: carves the crescent


def draw_tree(p: Pen, c: RGB, name: str) -> None:
    p.rect(7, 9, 2, 6, (110, 75, 40))
    p.circle(8, 6, 5, c)
    p.px(6, 4, _tint(c, 1.3))


def draw_swirl(p: Pen, c: RGB, name: str) -> None:
    for y, x0, x1 in ((4, 2, 12), (8, 4, 14), (12, 2, 10)):
        p.line(x0, y, x1, y, _tint(c, 0.8), 2)
        p.px(x1, y - 1, _tint(c, 0.8))


def draw_mound(p: Pen, c: RGB, name: str) -> None:
    p.poly([(1, 14), (5, 6), (8, 9), (11, 4), (15, 14)], c)
    p.line(9, 6, 11, 4, _tint(c, 1.3))


def draw_house(p: Pen, c: RGB, name: str) -> None:
    wall = (200, 170, 120) if c == _hash_color(name) else c
    p.rect(3, 8, 10, 7, wall)
    p.poly([(1, 8), (8, 2), (15, 8)], (170, 60, 50))
    p.rect(7, 11, 2, 4, (90, 60, 35))
    if name in ("city", "metropolis", "village"):
        p.rect(11, 4, 3, 11, _tint(wall, 0.8))


def draw_person(p: Pen, c: RGB, name: str) -> None:
    p.circle(8, 4, 3, (240, 200, 160))
    p.poly([(4, 15), (5, 8), (11, 8), (12, 15)], c)
    p.px(7, 4, (40, 40, 40))
    p.px(9, 4, (40, 40, 40))


def draw_orb(p: Pen, c: RGB, name: str) -> None:
    p.circle(8, 8, 6, c)
    p.circle(6, 6, 2, _tint(c, 1.3))


#: (word, drawing), matched against the words of the name; the last word that matches wins
SHAPES: dict[str, Callable[[Pen, RGB, str], None]] = {
    # materials and blocks
    "block": draw_block, "bricks": draw_block, "stone": draw_block, "cobblestone": draw_block,
    "deepslate": draw_block, "granite": draw_block, "diorite": draw_block, "andesite": draw_block,
    "sandstone": draw_block, "terracotta": draw_block, "concrete": draw_block, "powder": draw_block,
    "tiles": draw_block, "obsidian": draw_block, "netherrack": draw_block, "blackstone": draw_block,
    "prismarine": draw_block, "purpur": draw_block, "sand": draw_dust, "gravel": draw_dust, "clay": draw_block,
    "mud": draw_block, "soil": draw_block, "pillar": draw_block, "quartz": draw_gem, "glowstone": draw_block,
    "sponge": draw_block, "snow": draw_block, "pumpkin": draw_block, "melon": draw_block,
    "ore": draw_ore, "planks": draw_planks, "plank": draw_planks, "log": draw_log, "wood": draw_log,
    "stem": draw_log, "hyphae": draw_log, "ingot": draw_ingot, "nugget": draw_nugget, "scrap": draw_nugget,
    "raw": draw_raw, "debris": draw_raw, "flint": draw_raw, "diamond": draw_gem, "emerald": draw_gem,
    "lazuli": draw_gem, "shard": draw_gem, "crystals": draw_gem, "pearl": draw_ball, "eye": draw_ball,
    "redstone": draw_dust, "dust": draw_dust, "sugar": draw_dust, "gunpowder": draw_dust, "coal": draw_raw,
    "charcoal": draw_raw, "stick": draw_stick, "rod": draw_stick, "bamboo": draw_stick, "cane": draw_stick,
    # tools and armour
    "pickaxe": draw_pickaxe, "axe": draw_axe, "shovel": draw_shovel, "hoe": draw_hoe, "sword": draw_sword,
    "helmet": draw_helmet, "chestplate": draw_chestplate, "leggings": draw_leggings, "boots": draw_boots,
    "shears": draw_shears, "bow": draw_bow, "crossbow": draw_bow, "arrow": draw_arrow, "shield": draw_cloth_item,
    "compass": draw_dial, "clock": draw_dial, "spyglass": draw_stick, "lead": draw_coil, "string": draw_coil,
    "chain": draw_coil, "vine": draw_coil, "kelp": draw_coil, "fishing": draw_stick, "steel": draw_shears,
    # building parts
    "slab": draw_slab, "stairs": draw_stairs, "wall": draw_wall, "fence": draw_fence, "gate": draw_fence,
    "bars": draw_fence, "door": draw_door, "trapdoor": draw_trapdoor, "button": draw_button,
    "plate": draw_plate, "sign": draw_sign, "boat": draw_boat, "raft": draw_boat, "bed": draw_bed,
    "banner": draw_banner, "carpet": draw_carpet, "wool": draw_wool, "glass": draw_glass, "pane": draw_glass,
    "ladder": draw_fence, "scaffolding": draw_fence, "frame": draw_paper, "painting": draw_paper,
    # stations
    "table": draw_workstation, "furnace": draw_workstation, "smoker": draw_workstation, "chest": draw_workstation,
    "barrel": draw_workstation, "loom": draw_workstation, "lectern": draw_workstation, "composter": draw_workstation,
    "stonecutter": draw_workstation, "grindstone": draw_workstation, "dispenser": draw_workstation,
    "dropper": draw_workstation, "observer": draw_workstation, "piston": draw_workstation, "hopper": draw_bucket,
    "jukebox": draw_workstation, "beehive": draw_workstation, "anvil": draw_workstation, "cauldron": draw_bucket,
    "lodestone": draw_workstation, "target": draw_workstation, "tnt": draw_tnt, "lamp": draw_torch,
    # things
    "dye": draw_dye, "candle": draw_candle, "bucket": draw_bucket, "bowl": draw_bowl, "stew": draw_bowl,
    "soup": draw_bowl, "torch": draw_torch, "lantern": draw_torch, "campfire": draw_torch, "rail": draw_rail,
    "minecart": draw_minecart, "book": draw_book, "bookshelf": draw_book, "paper": draw_paper, "map": draw_paper,
    "feather": draw_feather, "bone": draw_bone, "meal": draw_bone, "ball": draw_ball, "snowball": draw_ball,
    "cream": draw_ball, "slime": draw_ball, "bottle": draw_bottle, "egg": draw_egg, "honeycomb": draw_gem,
    "leather": draw_cloth_item, "hide": draw_cloth_item, "scute": draw_gem, "sac": draw_ball,
    "template": draw_paper, "charge": draw_ball, "beans": draw_ball, "seeds": draw_dust, "wheat": draw_stick,
    # food and plants
    "apple": draw_food, "bread": draw_food, "carrot": draw_food, "potato": draw_food, "beetroot": draw_food,
    "beef": draw_food, "porkchop": draw_food, "mutton": draw_food, "chicken": draw_food, "rabbit": draw_food,
    "cod": draw_food, "salmon": draw_food, "cookie": draw_ball, "cake": draw_block, "pie": draw_food,
    "slice": draw_food, "fruit": draw_ball, "kelp_block": draw_block, "sapling": draw_sapling,
    "propagule": draw_sapling, "azalea": draw_sapling, "bush": draw_sapling, "cactus": draw_sapling,
    "mushroom": draw_mushroom, "poppy": draw_flower, "dandelion": draw_flower, "tulip": draw_flower,
    "orchid": draw_flower, "allium": draw_flower, "bluet": draw_flower, "daisy": draw_flower,
    "cornflower": draw_flower, "lily": draw_flower, "rose": draw_flower, "sunflower": draw_flower,
    "flower": draw_flower, "roots": draw_coil,
    # elements and the like (alchemy rule sets)
    "fire": draw_flame, "lava": draw_flame, "energy": draw_flame, "explosion": draw_flame, "water": draw_drop,
    "rain": draw_cloud, "puddle": draw_drop, "sea": draw_drop, "ocean": draw_drop, "lake": draw_drop,
    "pond": draw_drop, "cloud": draw_cloud, "steam": draw_cloud, "mist": draw_cloud, "fog": draw_cloud,
    "smog": draw_cloud, "storm": draw_cloud, "sun": draw_sun, "light": draw_sun, "moon": draw_moon,
    "tree": draw_tree, "forest": draw_tree, "plant": draw_sapling, "grass": draw_sapling, "air": draw_swirl,
    "wind": draw_swirl, "earth": draw_mound, "land": draw_mound, "mountain": draw_mound, "hill": draw_mound,
    "continent": draw_mound, "metal": draw_ingot, "ash": draw_dust, "meat": draw_food, "steak": draw_food,
    "watch": draw_dial, "wave": draw_drop, "house": draw_house, "hut": draw_house, "village": draw_house,
    "city": draw_house, "metropolis": draw_house, "castle": draw_house, "school": draw_house,
    "library": draw_house, "university": draw_house, "farm": draw_house, "human": draw_person,
    "farmer": draw_person, "hunter": draw_person, "knight": draw_person, "soldier": draw_person,
    "scholar": draw_person, "astronomer": draw_person, "tourist": draw_person,
}
#: names whose whole short form picks a shape before the word rule (exceptions to it)
WHOLE: dict[str, Callable[[Pen, RGB, str], None]] = {
    "stick": draw_stick, "blaze_rod": draw_stick, "end_rod": draw_stick, "blaze_powder": draw_dust,
    "redstone": draw_dust, "glowstone_dust": draw_dust, "bone_meal": draw_bone, "crafting_table": draw_workstation,
    "smithing_table": draw_workstation, "fletching_table": draw_workstation, "cartography_table": draw_workstation,
    "enchanting_table": draw_book, "sugar_cane": draw_stick, "dried_kelp": draw_coil, "ink_sac": draw_ball,
    "clay_ball": draw_ball, "slime_ball": draw_ball, "magma_cream": draw_ball, "ender_pearl": draw_ball,
    "ender_eye": draw_ball, "fire_charge": draw_ball, "lapis_lazuli": draw_gem, "amethyst_shard": draw_gem,
    "flint_and_steel": draw_shears, "carrot_on_a_stick": draw_stick, "armor_stand": draw_fence,
    "iron_bars": draw_fence, "light_weighted_pressure_plate": draw_plate, "heavy_weighted_pressure_plate": draw_plate,
    "daylight_detector": draw_plate, "tripwire_hook": draw_stick, "lever": draw_stick, "brewing_stand": draw_stick,
    "flower_pot": draw_bowl, "item_frame": draw_paper, "glass_bottle": draw_bottle, "honey_bottle": draw_bottle,
    "repeater": draw_plate, "comparator": draw_plate, "sea_lantern": draw_block, "jack_o_lantern": draw_block,
    "carved_pumpkin": draw_block, "hay_block": draw_block, "sea_pickle": draw_ball, "popped_chorus_fruit": draw_ball,
    "turtle_helmet": draw_helmet, "bamboo_block": draw_log, "bamboo_planks": draw_planks, "coal_block": draw_block,
    "dried_kelp_block": draw_block, "respawn_anchor": draw_workstation, "lightning_rod": draw_stick,
    "glistering_melon_slice": draw_food, "golden_apple": draw_food, "golden_carrot": draw_food,
}


def shape_for(name: str) -> Callable[[Pen, RGB, str], None]:
    short = name.split(":", 1)[-1].lower()
    if short in WHOLE:
        return WHOLE[short]
    words = _words(name)
    found = None
    for w in words:
        if w in SHAPES:
            found = SHAPES[w]
    if found is None and "_".join(words[-2:]) in SHAPES:
        found = SHAPES["_".join(words[-2:])]
    return found or draw_orb


def pixel_art(name: str) -> pygame.Surface:
    """The 16x16 drawing of item ``name`` (an id like ``minecraft:iron_pickaxe`` or a short name)."""
    short = name.split(":", 1)[-1].lower()
    pen = Pen()
    shape = shape_for(name)
    color = material_color(name)
    if shape is draw_stick and color == _hash_color(short):
        color = WOODS["oak"]  # a stick of no known material is wooden
    shape(pen, color, short)
    pen.outline()
    return pen.s


def scale_art(art: pygame.Surface, size: int) -> pygame.Surface:
    """Pixel art at ``size`` px: whole-pixel enlargement (crisp), then a smooth step to the size."""
    if art.get_width() != GRID:
        return pygame.transform.smoothscale(art, (size, size))  # a hand-made PNG of another size
    factor = max(1, -(-size // GRID))
    icon = pygame.transform.scale(art, (GRID * factor, GRID * factor))
    return icon if GRID * factor == size else pygame.transform.smoothscale(icon, (size, size))


def draw_item_icon(name: str, size: int, art: pygame.Surface | None = None) -> pygame.Surface:
    """The icon of item ``name`` at ``size`` px (from ``art`` when given, else drawn)."""
    icon = scale_art(art if art is not None else pixel_art(name), size)
    if shape_for(name) is draw_orb:
        _letter(icon, name.split(":", 1)[-1].lower(), size)
    return icon


def _letter(icon: pygame.Surface, short: str, size: int) -> None:
    if size < 14:
        return
    if not pygame.font.get_init():
        pygame.font.init()
    font = pygame.font.Font(None, max(10, int(size * 0.55)))
    glyph = font.render(short[:1].upper(), True, (255, 255, 255))
    shadow = font.render(short[:1].upper(), True, (30, 30, 34))
    rect = glyph.get_rect(center=(size // 2, size // 2 + 1))
    icon.blit(shadow, rect.move(1, 1))
    icon.blit(glyph, rect)


_CACHE: dict[tuple[str, int], pygame.Surface] = {}


def icon_file(name: str) -> Path:
    namespace, _, short = name.rpartition(":")
    return ITEMS_DIR / (namespace or "_") / f"{short}.png"


def item_icon(name: str, size: int) -> pygame.Surface:
    """The icon of ``name`` at ``size`` px: the PNG in assets/items when present, else drawn (cached)."""
    key = (name, size)
    icon = _CACHE.get(key)
    if icon is None:
        art = None
        path = icon_file(name)
        if path.exists():
            try:
                art = pygame.image.load(str(path))
            except pygame.error:
                art = None  # an unreadable file: draw it instead
        icon = draw_item_icon(name, size, art)
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = icon
    return icon


_PIXMAPS: dict[tuple[str, int], object] = {}


def item_pixmap(name: str, size: int = 24):
    """The icon as a QPixmap for Qt widgets (cached; GUI thread only, like every QPixmap)."""
    key = (name, size)
    pixmap = _PIXMAPS.get(key)
    if pixmap is None:
        from PyQt6.QtGui import QImage, QPixmap

        surface = item_icon(name, size)
        data = pygame.image.tobytes(surface, "RGBA")
        image = QImage(data, size, size, 4 * size, QImage.Format.Format_RGBA8888).copy()
        pixmap = _PIXMAPS[key] = QPixmap.fromImage(image)
    return pixmap
