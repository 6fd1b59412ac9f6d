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
    names.update(_world_sprites())
    return names  # type: ignore[return-value]


# ============================================================================ the kitchen
# Drawn for ProToM's partially observable kitchen (sim/kitchen): stations, ingredients fresh and
# chopped, plates and plated dishes. Names start with "k-".

COUNTER_TOP: RGB = (205, 170, 128)
COUNTER_EDGE: RGB = (150, 112, 74)
KITCHEN_FLOOR: RGB = (238, 234, 224)
KITCHEN_FLOOR_LINE: RGB = (222, 216, 202)

#: ingredient -> (main colour, accent colour)
INGREDIENT_COLORS: dict[str, tuple[RGB, RGB]] = {
    "tomato": ((222, 56, 44), (60, 150, 60)),
    "lettuce": ((110, 190, 70), (60, 130, 40)),
    "onion": ((176, 98, 150), (236, 214, 180)),
}


def kitchen_floor_tile(size: int) -> pygame.Surface:
    """Cream tiles in a checker of two tones."""
    s = pygame.Surface((size, size))
    s.fill(KITCHEN_FLOOR)
    half = size // 2
    pygame.draw.rect(s, KITCHEN_FLOOR_LINE, (0, 0, half, half))
    pygame.draw.rect(s, KITCHEN_FLOOR_LINE, (half, half, size - half, size - half))
    return s


def counter_tile(size: int) -> pygame.Surface:
    """A wooden worktop seen from above: planks and a darker rim."""
    s = pygame.Surface((size, size))
    s.fill(COUNTER_EDGE)
    rim = max(1, size // 14)
    top = pygame.Rect(rim, rim, size - 2 * rim, size - 2 * rim)
    pygame.draw.rect(s, COUNTER_TOP, top)
    for k in (1, 2):
        y = top.y + top.height * k // 3
        pygame.draw.line(s, _shade(COUNTER_TOP, 0.88), (top.x, y), (top.right - 1, y), max(1, size // 40))
    return s


def cutting_board_tile(size: int) -> pygame.Surface:
    """A counter with a pale board and a knife on it."""
    s = counter_tile(size)
    board = pygame.Rect(0, 0, int(size * 0.74), int(size * 0.62))
    board.center = (size // 2, size // 2)
    pygame.draw.rect(s, (120, 84, 50), board.move(0, max(1, size // 30)), border_radius=max(2, size // 10))
    pygame.draw.rect(s, (238, 214, 170), board, border_radius=max(2, size // 10))
    pygame.draw.circle(s, (120, 84, 50), (board.right - size // 8, board.top + size // 8), max(1, size // 24))
    blade = pygame.Rect(board.x + size // 10, board.bottom - size // 5, int(size * 0.36), max(2, size // 14))
    pygame.draw.rect(s, (200, 206, 214), blade, border_radius=max(1, size // 40))
    handle = pygame.Rect(blade.right, blade.y - max(0, size // 80), int(size * 0.16), max(2, size // 12))
    pygame.draw.rect(s, (50, 46, 44), handle, border_radius=max(1, size // 40))
    return s


def delivery_tile(size: int) -> pygame.Surface:
    """A steel serving hatch with a green arrow: dishes leave the kitchen here."""
    s = pygame.Surface((size, size))
    s.fill((96, 104, 116))
    rim = max(1, size // 14)
    hatch = pygame.Rect(rim, rim, size - 2 * rim, size - 2 * rim)
    pygame.draw.rect(s, (168, 176, 188), hatch)
    for k in range(1, 4):
        x = hatch.x + hatch.width * k // 4
        pygame.draw.line(s, (140, 148, 160), (x, hatch.y), (x, hatch.bottom - 1), max(1, size // 48))
    c = size // 2
    w = max(2, size // 7)
    pygame.draw.rect(s, (46, 160, 67), (int(size * 0.22), c - w // 2, int(size * 0.36), w))
    pygame.draw.polygon(s, (46, 160, 67), [(int(size * 0.56), int(size * 0.3)), (int(size * 0.8), c),
                                           (int(size * 0.56), int(size * 0.7))])
    return s


def kitchen_door_tile(size: int) -> pygame.Surface:
    """An open doorway: floor with a wooden frame on both sides and a threshold."""
    s = kitchen_floor_tile(size)
    post = max(2, size // 8)
    pygame.draw.rect(s, (139, 94, 60), (0, 0, size, post))
    pygame.draw.rect(s, (139, 94, 60), (0, size - post, size, post))
    pygame.draw.rect(s, (139, 94, 60), (0, 0, post, size))
    pygame.draw.rect(s, (139, 94, 60), (size - post, 0, post, size))
    inner = pygame.Rect(post, post, size - 2 * post, size - 2 * post)
    pygame.draw.rect(s, (196, 160, 116), inner, max(1, size // 32))
    return s


def _tomato(s: pygame.Surface, size: int, cx: float, cy: float, r: float) -> None:
    main, leaf = INGREDIENT_COLORS["tomato"]
    pygame.draw.circle(s, _shade(main, 0.7), (int(cx), int(cy + r * 0.08)), int(r))
    pygame.draw.circle(s, main, (int(cx), int(cy)), int(r * 0.95))
    pygame.draw.circle(s, _shade(main, 1.45), (int(cx - r * 0.35), int(cy - r * 0.35)), max(1, int(r * 0.22)))
    for k in range(5):
        a = -math.pi / 2 + k * 2 * math.pi / 5
        tip = (cx + math.cos(a) * r * 0.45, cy - r * 0.7 + math.sin(a) * r * 0.3)
        pygame.draw.line(s, leaf, (cx, cy - r * 0.72), tip, max(1, int(r * 0.16)))


def _lettuce(s: pygame.Surface, size: int, cx: float, cy: float, r: float) -> None:
    main, dark = INGREDIENT_COLORS["lettuce"]
    for k in range(7):
        a = k * 2 * math.pi / 7
        px, py = cx + math.cos(a) * r * 0.45, cy + math.sin(a) * r * 0.45
        pygame.draw.circle(s, dark, (int(px), int(py)), int(r * 0.55))
    for k in range(7):
        a = k * 2 * math.pi / 7 + 0.4
        px, py = cx + math.cos(a) * r * 0.35, cy + math.sin(a) * r * 0.35
        pygame.draw.circle(s, main, (int(px), int(py)), int(r * 0.48))
    pygame.draw.circle(s, _shade(main, 1.35), (int(cx), int(cy)), int(r * 0.3))


def _onion(s: pygame.Surface, size: int, cx: float, cy: float, r: float) -> None:
    main, light = INGREDIENT_COLORS["onion"]
    bulb = pygame.Rect(0, 0, int(r * 1.9), int(r * 1.75))
    bulb.center = (int(cx), int(cy + r * 0.12))
    pygame.draw.ellipse(s, _shade(main, 0.7), bulb.inflate(2, 2))
    pygame.draw.ellipse(s, main, bulb)
    pygame.draw.polygon(s, main, [(cx - r * 0.3, cy - r * 0.6), (cx + r * 0.3, cy - r * 0.6), (cx, cy - r * 1.05)])
    for dx in (-0.4, 0.0, 0.4):
        pygame.draw.line(s, _shade(main, 1.3), (cx + dx * r, cy - r * 0.45), (cx + dx * r * 0.6, cy + r * 0.8),
                         max(1, int(r * 0.08)))
    pygame.draw.line(s, light, (cx - r * 0.1, cy + r * 0.95), (cx + r * 0.1, cy + r * 0.95), max(1, int(r * 0.12)))


def _chopped(s: pygame.Surface, size: int, cx: float, cy: float, r: float, ingredient: str) -> None:
    """Pieces of the ingredient: wedges (tomato), leaves (lettuce), rings (onion)."""
    main, accent = INGREDIENT_COLORS[ingredient]
    spots = [(-0.45, -0.3), (0.4, -0.35), (-0.1, 0.05), (-0.45, 0.45), (0.42, 0.38)]
    piece = r * 0.42
    for dx, dy in spots:
        px, py = cx + dx * r, cy + dy * r
        if ingredient == "tomato":
            pygame.draw.circle(s, _shade(main, 0.75), (int(px), int(py)), int(piece))
            pygame.draw.circle(s, main, (int(px), int(py)), int(piece * 0.85))
            pygame.draw.circle(s, (250, 200, 120), (int(px), int(py)), max(1, int(piece * 0.35)))
        elif ingredient == "lettuce":
            leaf = pygame.Rect(0, 0, int(piece * 2.1), int(piece * 1.3))
            leaf.center = (int(px), int(py))
            pygame.draw.ellipse(s, accent, leaf.inflate(2, 2))
            pygame.draw.ellipse(s, main, leaf)
        else:
            pygame.draw.circle(s, main, (int(px), int(py)), int(piece))
            pygame.draw.circle(s, (250, 240, 245), (int(px), int(py)), int(piece * 0.62))
            pygame.draw.circle(s, main, (int(px), int(py)), max(1, int(piece * 0.32)), max(1, int(piece * 0.14)))


def ingredient_sprite(size: int, ingredient: str, chopped: bool = False) -> pygame.Surface:
    s = _surface(size)
    c, r = size / 2, size * 0.34
    if chopped:
        _chopped(s, size, c, c, r * 1.05, ingredient)
    else:
        {"tomato": _tomato, "lettuce": _lettuce, "onion": _onion}[ingredient](s, size, c, c, r)
    return s


def plate_sprite(size: int, ingredient: str | None = None) -> pygame.Surface:
    """A white plate; with ``ingredient``, the plated dish (the chopped ingredient on it)."""
    s = _surface(size)
    c = size // 2
    r = int(size * 0.42)
    pygame.draw.circle(s, (150, 156, 166), (c, c + max(1, size // 40)), r)
    pygame.draw.circle(s, (250, 251, 253), (c, c), r)
    pygame.draw.circle(s, (214, 220, 228), (c, c), int(r * 0.68), max(1, size // 40))
    if ingredient is not None:
        _chopped(s, size, c, c, r * 0.62, ingredient)
    return s


def mixed_sprite(size: int, ingredients: tuple[str, ...], plate: bool) -> pygame.Surface:
    """Chopped foods merged (gym-cooking's salads): each ingredient's pieces in its own part of
    the sprite, on a plate when ``plate`` (a salad on a plate is a deliverable dish)."""
    s = plate_sprite(size) if plate else _surface(size)
    c = size / 2
    r = size * (0.3 if plate else 0.38)
    n = len(ingredients)
    for k, ingredient in enumerate(ingredients):
        angle = -math.pi / 2 + 2 * math.pi * k / n
        _chopped(s, size, c + math.cos(angle) * r * 0.5, c + math.sin(angle) * r * 0.5, r * 0.78, ingredient)
    return s


# ============================================================================ the household
# Drawn for the 2D household (sim/household): furniture (surfaces), receptacles open and
# closed, containers and objects. Names start with "hh-".

WOOD: RGB = (170, 120, 78)
WOOD_DARK: RGB = (116, 78, 48)
STEEL: RGB = (200, 206, 214)
STEEL_DARK: RGB = (130, 138, 150)

#: place class -> the drawing that stands for it
SURFACE_SHAPES = {"table": "table", "dinnertable": "table", "coffeetable": "table", "desk": "desk",
                  "sofa": "sofa", "bed": "bed", "nightstand": "nightstand", "bookshelf": "bookshelf",
                  "kitchencounter": "counter", "bathroomcounter": "counter", "counter": "counter"}
RECEPTACLE_SHAPES = {"fridge": "fridge", "dishwasher": "dishwasher", "microwave": "microwave",
                     "cabinet": "cabinet", "kitchencabinet": "cabinet", "bathroomcabinet": "cabinet",
                     "wardrobe": "wardrobe", "drawer": "drawer"}
CONTAINER_SHAPES = {"plastic_basket": "basket", "wicker_basket": "basket", "wooden_basket": "basket",
                    "tea_tray": "tray", "bowl": "bowl", "plate": "plate"}
#: object class -> (shape, colour)
OBJECT_LOOKS: dict[str, tuple[str, RGB]] = {
    "apple": ("fruit", (214, 48, 49)), "orange": ("fruit", (243, 146, 30)), "banana": ("banana", (245, 214, 60)),
    "bread": ("bread", (205, 150, 80)), "loaf_bread": ("bread", (180, 120, 60)), "burger": ("burger", (180, 110, 50)),
    "cupcake": ("cupcake", (236, 120, 170)), "pudding": ("cupcake", (200, 150, 90)), "poundcake": ("bread", (220, 180, 100)),
    "calculator": ("gadget", (70, 80, 96)), "iphone": ("gadget", (40, 44, 52)), "mouse": ("mouse", (120, 126, 140)),
    "remote": ("gadget", (60, 60, 70)), "pen": ("stick", (38, 110, 220)), "fork": ("stick", (160, 166, 176)),
    "toothbrush": ("stick", (20, 180, 200)), "lighter": ("lighter", (220, 50, 47)), "purse": ("purse", (150, 60, 110)),
    "book": ("book", (46, 120, 90)), "juice": ("bottle", (250, 170, 40)), "wine": ("bottle", (120, 30, 60)),
    "mug": ("mug", (90, 140, 200)), "vase": ("vase", (80, 150, 190)), "candle": ("candle", (250, 240, 200)),
    "lamp": ("lamp", (240, 200, 80)), "cushion": ("cushion", (170, 110, 200)), "towel": ("towel", (120, 200, 220)),
    "plate": ("plate", (250, 251, 253)),
    # the false-belief scenarios' things, each its own shape (colours from the Okabe-Ito palette, told
    # apart without colour vision by shape and by the label the view writes under each object)
    "ball": ("ball", (213, 94, 0)), "cup": ("cup", (86, 180, 233)), "car": ("car", (0, 114, 178)),
    "sugar": ("cubes", (250, 250, 250)), "salt": ("shaker", (235, 235, 240)),
    "wineglass": ("glass", (204, 121, 167)), "pancake": ("pancake", (230, 159, 0)),
    "coffeepot": ("coffeepot", (110, 80, 60)),
}

#: object class -> the short word written under its objects where the class name is long
SHORT_NAMES: dict[str, str] = {
    "wineglass": "glass", "coffeepot": "pot", "loaf_bread": "loaf", "toothbrush": "brush", "calculator": "calc",
    "poundcake": "pound",
}


def short_name(cls: str) -> str:
    """The word for an object class on the map: its short name, else the class (underscores as
    spaces) cut to 7 letters."""
    return SHORT_NAMES.get(cls) or cls.replace("_", " ")[:7]


def surface_sprite(size: int, shape: str) -> pygame.Surface:
    """Furniture seen from above: tables, desk, sofa, bed, nightstand, bookshelf, counter."""
    s = _surface(size)
    line = max(1, size // 32)
    if shape == "bed":
        frame = pygame.Rect(int(size * 0.14), int(size * 0.06), int(size * 0.72), int(size * 0.88))
        pygame.draw.rect(s, WOOD_DARK, frame, border_radius=size // 12)
        mattress = frame.inflate(-size // 10, -size // 10)
        pygame.draw.rect(s, (246, 246, 250), mattress, border_radius=size // 14)
        blanket = pygame.Rect(mattress.x, mattress.y + int(mattress.height * 0.36), mattress.width,
                              int(mattress.height * 0.64))
        pygame.draw.rect(s, (92, 130, 200), blanket, border_radius=size // 14)
        pygame.draw.line(s, (70, 104, 170), (blanket.x, blanket.y + size // 14), (blanket.right - 1, blanket.y + size // 14), line * 2)
        pillow = pygame.Rect(0, 0, int(mattress.width * 0.7), int(mattress.height * 0.2))
        pillow.midtop = (mattress.centerx, mattress.y + size // 24)
        pygame.draw.rect(s, (255, 255, 255), pillow, border_radius=size // 16)
        pygame.draw.rect(s, (200, 204, 214), pillow, line, border_radius=size // 16)
    elif shape == "sofa":
        back = pygame.Rect(int(size * 0.06), int(size * 0.2), int(size * 0.88), int(size * 0.22))
        seat = pygame.Rect(int(size * 0.14), int(size * 0.38), int(size * 0.72), int(size * 0.4))
        color = (196, 98, 82)
        pygame.draw.rect(s, _shade(color, 0.75), back, border_radius=size // 12)
        pygame.draw.rect(s, _shade(color, 0.75), (int(size * 0.06), int(size * 0.3), int(size * 0.14), int(size * 0.5)), border_radius=size // 14)
        pygame.draw.rect(s, _shade(color, 0.75), (int(size * 0.8), int(size * 0.3), int(size * 0.14), int(size * 0.5)), border_radius=size // 14)
        pygame.draw.rect(s, color, seat, border_radius=size // 14)
        pygame.draw.line(s, _shade(color, 0.8), (seat.centerx, seat.y + 2), (seat.centerx, seat.bottom - 3), line * 2)
    elif shape == "bookshelf":
        shelf = pygame.Rect(int(size * 0.08), int(size * 0.3), int(size * 0.84), int(size * 0.4))
        pygame.draw.rect(s, WOOD_DARK, shelf, border_radius=size // 24)
        x = shelf.x + size // 20
        colors = [(200, 60, 50), (50, 110, 200), (60, 160, 90), (230, 180, 40), (140, 70, 170)]
        k = 0
        while x < shelf.right - size // 12:
            w = size // 14 + (k % 3) * size // 60
            pygame.draw.rect(s, colors[k % len(colors)], (x, shelf.y + size // 24, w, shelf.height - size // 12))
            x += w + max(1, size // 64)
            k += 1
    elif shape == "counter":
        top = pygame.Rect(int(size * 0.04), int(size * 0.24), int(size * 0.92), int(size * 0.52))
        pygame.draw.rect(s, (120, 124, 132), top.move(0, max(1, size // 30)), border_radius=size // 20)
        pygame.draw.rect(s, (222, 222, 214), top, border_radius=size // 20)
        sink = pygame.Rect(0, 0, int(size * 0.3), int(size * 0.3))
        sink.center = (int(size * 0.7), top.centery)
        pygame.draw.rect(s, STEEL, sink, border_radius=size // 16)
        pygame.draw.rect(s, STEEL_DARK, sink, line, border_radius=size // 16)
    else:  # tables, desk, nightstand: a wooden top with its grain
        dims = {"table": (0.84, 0.6), "desk": (0.88, 0.5), "nightstand": (0.5, 0.5)}.get(shape, (0.8, 0.6))
        top = pygame.Rect(0, 0, int(size * dims[0]), int(size * dims[1]))
        top.center = (size // 2, size // 2)
        pygame.draw.rect(s, WOOD_DARK, top.move(0, max(1, size // 30)), border_radius=size // 16)
        pygame.draw.rect(s, WOOD, top, border_radius=size // 16)
        for k in (1, 2):
            y = top.y + top.height * k // 3
            pygame.draw.line(s, _shade(WOOD, 0.88), (top.x + size // 20, y), (top.right - size // 20, y), line)
        if shape == "desk":
            pygame.draw.rect(s, (60, 66, 80), (top.x + size // 10, top.y + size // 14, int(size * 0.3), int(size * 0.2)))
        if shape == "nightstand":
            pygame.draw.circle(s, (250, 220, 120), top.center, int(size * 0.1))
    return s


def receptacle_sprite(size: int, shape: str, opened: bool) -> pygame.Surface:
    """An openable piece seen from the front: closed with its door and handle, open with its
    dark inside and the door swung aside."""
    s = _surface(size)
    line = max(1, size // 32)
    steel = shape in ("fridge", "dishwasher", "microwave")
    body_color = STEEL if steel else WOOD
    edge = STEEL_DARK if steel else WOOD_DARK
    dims = {"fridge": (0.6, 0.9), "wardrobe": (0.7, 0.9), "dishwasher": (0.66, 0.66), "microwave": (0.76, 0.46),
            "drawer": (0.76, 0.5), "cabinet": (0.66, 0.66)}.get(shape, (0.66, 0.66))
    body = pygame.Rect(0, 0, int(size * dims[0]), int(size * dims[1]))
    body.center = (size // 2, size // 2)
    pygame.draw.rect(s, edge, body.inflate(line * 2, line * 2), border_radius=size // 20)
    pygame.draw.rect(s, body_color, body, border_radius=size // 20)
    inside = body.inflate(-size // 8, -size // 8)
    if opened:
        pygame.draw.rect(s, (40, 42, 50), inside, border_radius=size // 24)
        if shape == "fridge":
            for k in (1, 2):
                y = inside.y + inside.height * k // 3
                pygame.draw.line(s, (150, 200, 230), (inside.x, y), (inside.right - 1, y), line)
        door = pygame.Rect(body.right - line, inside.y, int(size * 0.1), inside.height)
        pygame.draw.rect(s, _shade(body_color, 0.85), door, border_radius=size // 32)
        pygame.draw.rect(s, edge, door, line, border_radius=size // 32)
    else:
        if shape == "fridge":
            split = body.y + int(body.height * 0.36)
            pygame.draw.line(s, edge, (body.x, split), (body.right - 1, split), line * 2)
            pygame.draw.rect(s, edge, (body.right - size // 8, body.y + size // 12, max(2, size // 28), size // 6))
            pygame.draw.rect(s, edge, (body.right - size // 8, split + size // 12, max(2, size // 28), size // 5))
        elif shape == "wardrobe":
            pygame.draw.line(s, edge, (body.centerx, body.y), (body.centerx, body.bottom - 1), line * 2)
            for dx in (-1, 1):
                pygame.draw.circle(s, edge, (body.centerx + dx * size // 14, body.centery), max(2, size // 30))
        elif shape == "microwave":
            window = pygame.Rect(body.x + size // 16, body.y + size // 16, int(body.width * 0.62), body.height - size // 8)
            pygame.draw.rect(s, (60, 66, 80), window, border_radius=size // 32)
            for k in range(3):
                pygame.draw.circle(s, edge, (body.right - size // 10, body.y + size // 10 + k * size // 10), max(1, size // 40))
        elif shape == "drawer":
            pygame.draw.line(s, edge, (body.x, body.centery), (body.right - 1, body.centery), line * 2)
            for y in (body.y + body.height // 4, body.y + 3 * body.height // 4):
                pygame.draw.rect(s, edge, (body.centerx - size // 10, y - 1, size // 5, max(2, size // 30)))
        elif shape == "dishwasher":
            pygame.draw.rect(s, edge, (body.x, body.y, body.width, size // 10))
            pygame.draw.rect(s, (240, 240, 240), (body.centerx - size // 8, body.y + size // 7, size // 4, max(2, size // 28)))
        else:  # cabinet: two doors with knobs
            pygame.draw.line(s, edge, (body.centerx, body.y), (body.centerx, body.bottom - 1), line * 2)
            for dx in (-1, 1):
                pygame.draw.circle(s, edge, (body.centerx + dx * size // 12, body.centery), max(2, size // 28))
    return s


def container_sprite(size: int, shape: str) -> pygame.Surface:
    """Containers seen from above: baskets (woven), a tea tray, a bowl, a plate."""
    s = _surface(size)
    c = size // 2
    line = max(1, size // 32)
    if shape == "basket":
        body = pygame.Rect(0, 0, int(size * 0.8), int(size * 0.62))
        body.center = (c, c + size // 16)
        pygame.draw.rect(s, (140, 96, 50), body, border_radius=size // 8)
        inner = body.inflate(-size // 8, -size // 8)
        pygame.draw.rect(s, (196, 150, 90), inner, border_radius=size // 10)
        for k in range(1, 5):
            x = inner.x + inner.width * k // 5
            pygame.draw.line(s, (160, 116, 64), (x, inner.y), (x, inner.bottom - 1), line)
        pygame.draw.arc(s, (140, 96, 50), pygame.Rect(body.x + size // 8, body.y - size // 4, body.width - size // 4, size // 2),
                        0, math.pi, max(2, size // 20))
    elif shape == "tray":
        body = pygame.Rect(0, 0, int(size * 0.86), int(size * 0.56))
        body.center = (c, c)
        pygame.draw.rect(s, (120, 70, 40), body, border_radius=size // 10)
        pygame.draw.rect(s, (190, 130, 80), body.inflate(-size // 8, -size // 8), border_radius=size // 12)
        for dx in (-1, 1):
            pygame.draw.rect(s, (120, 70, 40), (c + dx * int(size * 0.43) - size // 20, c - size // 14, size // 10, size // 7))
    elif shape == "bowl":
        pygame.draw.circle(s, (60, 110, 180), (c, c), int(size * 0.4))
        pygame.draw.circle(s, (140, 186, 236), (c, c), int(size * 0.3))
        pygame.draw.circle(s, (250, 250, 255), (c - size // 10, c - size // 10), max(1, size // 16))
    else:
        return plate_sprite(size)
    return s


def object_sprite(size: int, shape: str, color: RGB) -> pygame.Surface:
    """A household object: each shape readable at 16 px, in the colour of its class."""
    s = _surface(size)
    c = size / 2
    dark = _shade(color, 0.65)
    line = max(1, size // 24)
    if shape == "fruit":
        pygame.draw.circle(s, dark, (int(c), int(c + size * 0.04)), int(size * 0.34))
        pygame.draw.circle(s, color, (int(c), int(c)), int(size * 0.32))
        pygame.draw.circle(s, _shade(color, 1.5), (int(c - size * 0.1), int(c - size * 0.1)), max(1, size // 12))
        pygame.draw.line(s, (90, 60, 30), (c, c - size * 0.3), (c + size * 0.05, c - size * 0.42), max(1, size // 16))
        pygame.draw.ellipse(s, (60, 150, 60), (int(c + size * 0.04), int(c - size * 0.44), int(size * 0.2), int(size * 0.1)))
    elif shape == "banana":
        rect = pygame.Rect(int(size * 0.12), int(size * 0.1), int(size * 0.76), int(size * 0.7))
        pygame.draw.arc(s, dark, rect.move(0, line), math.pi * 1.05, math.pi * 1.95, max(3, size // 5))
        pygame.draw.arc(s, color, rect, math.pi * 1.05, math.pi * 1.95, max(3, size // 6))
    elif shape in ("bread", "burger", "cupcake"):
        if shape == "burger":
            pygame.draw.ellipse(s, (220, 160, 80), (int(size * 0.14), int(size * 0.2), int(size * 0.72), int(size * 0.34)))
            pygame.draw.rect(s, (80, 170, 60), (int(size * 0.14), int(size * 0.48), int(size * 0.72), max(2, size // 14)))
            pygame.draw.rect(s, (110, 60, 30), (int(size * 0.16), int(size * 0.54), int(size * 0.68), int(size * 0.12)))
            pygame.draw.rect(s, (220, 160, 80), (int(size * 0.14), int(size * 0.66), int(size * 0.72), int(size * 0.12)),
                             border_radius=size // 16)
        elif shape == "cupcake":
            pygame.draw.polygon(s, (220, 200, 150), [(c - size * 0.26, c), (c + size * 0.26, c),
                                                     (c + size * 0.18, c + size * 0.32), (c - size * 0.18, c + size * 0.32)])
            pygame.draw.circle(s, color, (int(c), int(c - size * 0.02)), int(size * 0.27))
            pygame.draw.circle(s, (220, 40, 60), (int(c), int(c - size * 0.28)), max(2, size // 12))
        else:
            body = pygame.Rect(int(size * 0.14), int(size * 0.26), int(size * 0.72), int(size * 0.46))
            pygame.draw.rect(s, dark, body.move(0, line), border_radius=size // 5)
            pygame.draw.rect(s, color, body, border_radius=size // 5)
            for k in range(3):
                x = body.x + body.width * (k + 1) // 4
                pygame.draw.line(s, _shade(color, 1.3), (x - size // 16, body.y + size // 10), (x + size // 16, body.bottom - size // 10), line)
    elif shape in ("gadget", "lighter"):
        w, h = (0.4, 0.66) if shape == "gadget" else (0.3, 0.56)
        body = pygame.Rect(0, 0, int(size * w), int(size * h))
        body.center = (int(c), int(c))
        pygame.draw.rect(s, color, body, border_radius=size // 12)
        if shape == "gadget":
            pygame.draw.rect(s, (150, 200, 230), body.inflate(-size // 8, -size // 4), border_radius=size // 24)
        else:
            pygame.draw.rect(s, STEEL, (body.x, body.y - size // 10, body.width, size // 8))
            pygame.draw.circle(s, (250, 180, 40), (body.centerx, body.y - size // 6), max(2, size // 12))
    elif shape == "mouse":
        body = pygame.Rect(0, 0, int(size * 0.44), int(size * 0.62))
        body.center = (int(c), int(c))
        pygame.draw.ellipse(s, dark, body.inflate(line * 2, line * 2))
        pygame.draw.ellipse(s, color, body)
        pygame.draw.line(s, dark, (body.centerx, body.y), (body.centerx, body.y + body.height // 3), line)
    elif shape == "stick":
        pygame.draw.line(s, dark, (size * 0.22, size * 0.8), (size * 0.78, size * 0.2), max(3, size // 7))
        pygame.draw.line(s, color, (size * 0.22, size * 0.8), (size * 0.78, size * 0.2), max(2, size // 10))
    elif shape == "purse":
        body = pygame.Rect(int(size * 0.16), int(size * 0.36), int(size * 0.68), int(size * 0.44))
        pygame.draw.arc(s, dark, pygame.Rect(int(size * 0.3), int(size * 0.16), int(size * 0.4), int(size * 0.44)), 0, math.pi, max(2, size // 16))
        pygame.draw.rect(s, color, body, border_radius=size // 8)
        pygame.draw.circle(s, (240, 200, 80), (body.centerx, body.y + size // 10), max(1, size // 16))
    elif shape == "book":
        body = pygame.Rect(int(size * 0.2), int(size * 0.16), int(size * 0.6), int(size * 0.68))
        pygame.draw.rect(s, (240, 236, 220), body.move(line * 2, line))
        pygame.draw.rect(s, color, body)
        pygame.draw.rect(s, dark, (body.x, body.y, max(2, size // 10), body.height))
    elif shape == "bottle":
        body = pygame.Rect(int(size * 0.34), int(size * 0.36), int(size * 0.32), int(size * 0.5))
        pygame.draw.rect(s, color, body, border_radius=size // 10)
        pygame.draw.rect(s, color, (int(size * 0.44), int(size * 0.14), int(size * 0.12), int(size * 0.26)))
        pygame.draw.rect(s, (250, 250, 250), (body.x, body.y + body.height // 3, body.width, body.height // 4))
    elif shape == "mug":
        body = pygame.Rect(int(size * 0.22), int(size * 0.26), int(size * 0.44), int(size * 0.5))
        pygame.draw.circle(s, dark, (body.right, body.centery), int(size * 0.14), max(2, size // 14))
        pygame.draw.rect(s, color, body, border_radius=size // 12)
    elif shape == "vase":
        pygame.draw.ellipse(s, color, (int(size * 0.26), int(size * 0.34), int(size * 0.48), int(size * 0.5)))
        pygame.draw.rect(s, color, (int(size * 0.4), int(size * 0.14), int(size * 0.2), int(size * 0.3)))
        pygame.draw.ellipse(s, dark, (int(size * 0.36), int(size * 0.1), int(size * 0.28), int(size * 0.1)))
    elif shape == "candle":
        pygame.draw.rect(s, color, (int(size * 0.38), int(size * 0.34), int(size * 0.24), int(size * 0.5)))
        pygame.draw.rect(s, (200, 190, 160), (int(size * 0.38), int(size * 0.34), int(size * 0.24), int(size * 0.5)), line)
        pygame.draw.ellipse(s, (250, 170, 30), (int(size * 0.43), int(size * 0.1), int(size * 0.14), int(size * 0.22)))
    elif shape == "lamp":
        pygame.draw.polygon(s, color, [(c - size * 0.12, size * 0.16), (c + size * 0.12, size * 0.16),
                                       (c + size * 0.28, size * 0.52), (c - size * 0.28, size * 0.52)])
        pygame.draw.line(s, (80, 80, 90), (c, size * 0.52), (c, size * 0.8), max(2, size // 14))
        pygame.draw.line(s, (80, 80, 90), (c - size * 0.18, size * 0.82), (c + size * 0.18, size * 0.82), max(2, size // 12))
    elif shape in ("cushion", "towel"):
        body = pygame.Rect(int(size * 0.18), int(size * 0.22), int(size * 0.64), int(size * 0.56))
        pygame.draw.rect(s, dark, body.move(0, line), border_radius=size // 6 if shape == "cushion" else size // 20)
        pygame.draw.rect(s, color, body, border_radius=size // 6 if shape == "cushion" else size // 20)
        if shape == "towel":
            for k in (1, 2):
                y = body.y + body.height * k // 3
                pygame.draw.line(s, (250, 250, 250), (body.x, y), (body.right - 1, y), line)
    elif shape == "plate":
        return plate_sprite(size)
    elif shape == "ball":  # a beach ball: a disc with a seam and a white band
        r = int(size * 0.36)
        pygame.draw.circle(s, dark, (int(c), int(c)), r + line)
        pygame.draw.circle(s, color, (int(c), int(c)), r)
        pygame.draw.ellipse(s, (250, 250, 250), (int(c - r), int(c - r * 0.3), 2 * r, int(r * 0.6)))
        pygame.draw.line(s, dark, (c, c - r), (c, c + r), max(1, size // 16))
        pygame.draw.circle(s, dark, (int(c), int(c)), r + line, max(1, size // 20))
    elif shape == "cup":  # a tea cup on its saucer, handle to the right
        pygame.draw.ellipse(s, dark, (int(size * 0.12), int(size * 0.7), int(size * 0.76), int(size * 0.16)))
        body = [(size * 0.22, size * 0.3), (size * 0.7, size * 0.3), (size * 0.62, size * 0.74), (size * 0.3, size * 0.74)]
        pygame.draw.circle(s, dark, (int(size * 0.72), int(size * 0.46)), int(size * 0.12), max(2, size // 14))
        pygame.draw.polygon(s, color, body)
        pygame.draw.polygon(s, dark, body, max(1, size // 24))
        pygame.draw.line(s, (250, 250, 250), (size * 0.24, size * 0.34), (size * 0.68, size * 0.34), max(1, size // 16))
    elif shape == "car":  # a toy car from the side: body, cabin, two wheels
        body = pygame.Rect(int(size * 0.08), int(size * 0.42), int(size * 0.84), int(size * 0.26))
        cabin = pygame.Rect(int(size * 0.26), int(size * 0.22), int(size * 0.44), int(size * 0.24))
        pygame.draw.rect(s, color, cabin, border_radius=size // 10)
        pygame.draw.rect(s, (180, 220, 245), cabin.inflate(-size // 8, -size // 10), border_radius=size // 16)
        pygame.draw.rect(s, color, body, border_radius=size // 12)
        for wx in (0.28, 0.72):
            pygame.draw.circle(s, (30, 30, 34), (int(size * wx), int(size * 0.7)), max(2, int(size * 0.12)))
            pygame.draw.circle(s, (200, 200, 206), (int(size * wx), int(size * 0.7)), max(1, int(size * 0.05)))
    elif shape == "cubes":  # sugar cubes: three white cubes with grey edges
        k = max(3, int(size * 0.26))
        for bx, by in ((0.18, 0.48), (0.5, 0.48), (0.34, 0.2)):
            cube = pygame.Rect(int(size * bx), int(size * by), k, k)
            pygame.draw.rect(s, color, cube)
            pygame.draw.rect(s, (120, 120, 130), cube, max(1, size // 24))
    elif shape == "shaker":  # a salt shaker: a jar with a steel cap and its holes
        body = pygame.Rect(int(size * 0.3), int(size * 0.34), int(size * 0.4), int(size * 0.52))
        pygame.draw.rect(s, color, body, border_radius=size // 10)
        pygame.draw.rect(s, (120, 120, 130), body, max(1, size // 24), border_radius=size // 10)
        cap = pygame.Rect(int(size * 0.3), int(size * 0.16), int(size * 0.4), int(size * 0.2))
        pygame.draw.rect(s, STEEL_DARK, cap, border_radius=size // 12)
        for hx in (0.42, 0.5, 0.58):
            pygame.draw.circle(s, (40, 40, 46), (int(size * hx), int(size * 0.25)), max(1, size // 28))
    elif shape == "glass":  # a wine glass: bowl, stem, foot
        pygame.draw.polygon(s, color, [(c - size * 0.2, size * 0.14), (c + size * 0.2, size * 0.14),
                                       (c + size * 0.12, size * 0.46), (c - size * 0.12, size * 0.46)])
        pygame.draw.line(s, dark, (c, size * 0.46), (c, size * 0.78), max(2, size // 14))
        pygame.draw.line(s, dark, (c - size * 0.16, size * 0.8), (c + size * 0.16, size * 0.8), max(2, size // 12))
    elif shape == "pancake":  # a stack of three
        for k in range(3):
            pygame.draw.ellipse(s, dark, (int(size * 0.14), int(size * (0.56 - k * 0.14)), int(size * 0.72), int(size * 0.2)))
            pygame.draw.ellipse(s, color, (int(size * 0.14), int(size * (0.53 - k * 0.14)), int(size * 0.72), int(size * 0.18)))
    elif shape == "coffeepot":  # a pot with a spout and a handle
        body = pygame.Rect(int(size * 0.3), int(size * 0.28), int(size * 0.4), int(size * 0.54))
        pygame.draw.line(s, dark, (body.x, body.y + size * 0.12), (size * 0.12, size * 0.26), max(2, size // 10))
        pygame.draw.circle(s, dark, (body.right, body.centery), int(size * 0.13), max(2, size // 14))
        pygame.draw.rect(s, color, body, border_radius=size // 10)
        pygame.draw.rect(s, dark, (body.x - size // 20, body.y - size // 14, body.width + size // 10, size // 8),
                         border_radius=size // 20)
    else:  # anything else: a labelled token drawn by the renderer on this disc
        pygame.draw.circle(s, dark, (int(c), int(c)), int(size * 0.36))
        pygame.draw.circle(s, color, (int(c), int(c)), int(size * 0.32))
    return s


def object_look(cls: str) -> tuple[str, RGB]:
    """The shape and colour of an object class (unknown classes: a disc of a steady colour)."""
    look = OBJECT_LOOKS.get(cls)
    if look is not None:
        return look
    hue = sum(ord(ch) * (k + 1) for k, ch in enumerate(cls)) % 360
    color = pygame.Color(0)
    color.hsva = (hue, 55, 85, 100)
    return "token", (color.r, color.g, color.b)


def _world_sprites() -> dict[str, object]:
    """The kitchen's and the household's sprites: name -> function(size) -> Surface."""
    names: dict[str, object] = {
        "k-floor": kitchen_floor_tile, "k-counter": counter_tile, "k-board": cutting_board_tile,
        "k-delivery": delivery_tile, "k-door": kitchen_door_tile, "k-plate": plate_sprite,
    }
    for ingredient in INGREDIENT_COLORS:
        names[f"k-{ingredient}"] = lambda size, i=ingredient: ingredient_sprite(size, i)
        names[f"k-{ingredient}-chopped"] = lambda size, i=ingredient: ingredient_sprite(size, i, chopped=True)
        names[f"k-dish-{ingredient}"] = lambda size, i=ingredient: plate_sprite(size, i)
    for mix in (("tomato", "lettuce"), ("tomato", "onion"), ("lettuce", "onion"), ("tomato", "lettuce", "onion")):
        names[f"k-mix-{'-'.join(mix)}"] = lambda size, m=mix: mixed_sprite(size, m, False)
        names[f"k-dish-{'-'.join(mix)}"] = lambda size, m=mix: mixed_sprite(size, m, True)
    for shape in sorted(set(SURFACE_SHAPES.values())):
        names[f"hh-{shape}"] = lambda size, sh=shape: surface_sprite(size, sh)
    for shape in sorted(set(RECEPTACLE_SHAPES.values())):
        names[f"hh-{shape}-closed"] = lambda size, sh=shape: receptacle_sprite(size, sh, False)
        names[f"hh-{shape}-open"] = lambda size, sh=shape: receptacle_sprite(size, sh, True)
    for shape in sorted(set(CONTAINER_SHAPES.values())):  # a plate holds things too: a container
        names[f"hh-container-{shape}"] = lambda size, sh=shape: container_sprite(size, sh)
    for cls, (shape, rgb) in OBJECT_LOOKS.items():
        names[f"hh-object-{cls}"] = lambda size, sh=shape, c=rgb: object_sprite(size, sh, c)
    return names
