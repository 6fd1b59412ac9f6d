"""The map of a kitchen under overcooked_ai's rules (``rules: overcooked``): floor, counters and
serving spots drawn as the kitchen's own tiles; each station labelled (onion and tomato
dispensers as crates of their ingredient, the dish rack, the serving spot, pots); each pot with
its contents and state (its ingredients, "2/3", "cooking 7/20" with a bar, "ready"); onions,
tomatoes, dishes and soups on counters as sprites; players as the cooks with an arrow the way
they face and what they hold; and a strip under the map with the orders (each recipe's
ingredients, value and whether it is a bonus order), the clock and the score.
``KitchenView`` picks this view or the kitchen's own for a kitchen world."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pygame

from sim.kitchen.overcooked import OvercookedState, OvercookedWorld
from ui.render import sprites
from ui.render.base import KeyBinding, Overlays, SpriteBook, WorldRenderer
from ui.render.kitchen_beliefs import KitchenWords

#: station letter -> its label on the map
STATION_LABELS = {"O": "onions", "T": "tomatoes", "D": "dishes", "S": "serve", "P": "pot"}
#: a soup's colour by what is mostly in it
SOUP_COLORS = {"onion": (226, 190, 110), "tomato": (214, 70, 52)}
READY_GREEN = (46, 160, 67)
COOKING_ORANGE = (230, 120, 40)


def recipe_words(recipe: Sequence[str]) -> str:
    """``("onion", "onion", "tomato")`` reads "2 onion + 1 tomato"."""
    counts = {i: list(recipe).count(i) for i in sorted(set(recipe))}
    return " + ".join(f"{n} {i}" for i, n in counts.items())


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
        self.book = SpriteBook(32)
        #: what the last frame drew, for tests: each pot (x, y) -> (ingredients, state words)
        self.drawn_pots: dict[tuple[int, int], tuple[tuple[str, ...], str]] = {}
        #: ... the label of each station by (x, y)
        self.drawn_labels: dict[tuple[int, int], str] = {}
        #: ... the orders in the strip: (recipe, value, bonus)
        self.drawn_orders: list[tuple[tuple[str, ...], float, bool]] = []
        #: ... and the agents
        self.drawn_agents: list[str] = []

    # ------------------------------------------------------------- layout

    def grid_shape(self) -> tuple[int, int]:
        return self.world.height, self.world.width

    def hud_height(self, height: int) -> int:
        return max(24, min(56, height // 12))

    def on_layout(self) -> None:
        self.book = SpriteBook(self.tile)

    def label_px(self) -> int:
        return max(11, min(22, self.tile // 5))

    def build_background(self) -> pygame.Surface:
        """Floor, counters, serving spots and the stations' own drawings with their labels."""
        bg = pygame.Surface((self.width, self.height))
        bg.fill((24, 28, 36))
        t = self.tile
        self.drawn_labels = {}
        for y, row in enumerate(self.world.grid):
            for x, ch in enumerate(row):
                rect = self.cell_rect(y, x)
                if ch == " ":
                    bg.blit(sprites.kitchen_floor_tile(t), rect)
                    continue
                bg.blit(sprites.delivery_tile(t) if ch == "S" else sprites.counter_tile(t), rect)
                if ch in "OT":  # a crate of the ingredient
                    crate = rect.inflate(-t // 5, -t // 3)
                    crate.bottom = rect.bottom - t // 10
                    pygame.draw.rect(bg, (150, 104, 60), crate, border_radius=max(2, t // 16))
                    pygame.draw.rect(bg, (96, 64, 36), crate, max(1, t // 24), border_radius=max(2, t // 16))
                    item = max(6, int(t * 0.32))
                    sprite = self.book.get("k-onion" if ch == "O" else "k-tomato", item)
                    for k in range(3):
                        bg.blit(sprite, (crate.x + k * (crate.width - item) // 2, crate.centery - item // 2))
                elif ch == "D":  # a stack of plates
                    plate = self.book.get("k-plate", int(t * 0.62))
                    for k in range(3):
                        bg.blit(plate, (rect.x + (t - plate.get_width()) // 2,
                                        rect.bottom - plate.get_height() - t // 12 - k * max(2, t // 14)))
                elif ch == "P":  # the pot: a dark round pan with handles
                    self._pot_shape(bg, rect)
                if ch in STATION_LABELS:
                    self.drawn_labels[(x, y)] = STATION_LABELS[ch]
                    if ch != "P":  # a pot writes its label with its state (draw)
                        self._tag(bg, rect, STATION_LABELS[ch])
        return bg

    def _pot_shape(self, surface: pygame.Surface, rect: pygame.Rect) -> pygame.Rect:
        t = self.tile
        pan = pygame.Rect(0, 0, int(t * 0.74), int(t * 0.5))
        pan.midbottom = (rect.centerx, rect.bottom - t // 10)
        for dx in (-1, 1):
            handle = pygame.Rect(0, 0, t // 8, t // 10)
            handle.center = (pan.centerx + dx * (pan.width // 2 + t // 20), pan.centery)
            pygame.draw.rect(surface, (40, 40, 46), handle, border_radius=2)
        pygame.draw.ellipse(surface, (58, 60, 68), pan)
        pygame.draw.ellipse(surface, (30, 30, 36), pan.inflate(-t // 10, -t // 10))
        return pan

    def _tag(self, surface: pygame.Surface, rect: pygame.Rect, text: str,
             color: tuple[int, int, int] = (255, 255, 255), back: tuple[int, int, int, int] = (20, 24, 32, 200)) -> pygame.Rect:
        """A label on a dark plate at the top of ``rect``."""
        label = self.text(text, self.label_px(), color)
        if label.get_width() > rect.width - 2:
            label = pygame.transform.smoothscale(label, (rect.width - 2, label.get_height()))
        plate = pygame.Rect(0, 0, label.get_width() + 6, label.get_height() + 2)
        plate.midtop = (rect.centerx, rect.y + 2)
        layer = pygame.Surface(plate.size, pygame.SRCALPHA)
        layer.fill(back)
        surface.blit(layer, plate)
        surface.blit(label, (plate.x + 3, plate.y + 1))
        return plate

    # ------------------------------------------------------------- drawing

    def pot_words(self, obj: Any) -> str:
        """A pot's state in words: "empty", "2/3", "cooking 7/20", "ready"."""
        rules = self.world.engine
        if obj is None or not obj[1]:
            return "empty"
        if rules.ready(obj):
            return "ready"
        if obj[2] >= 0:
            cook = self.world.layout.time(tuple(sorted(obj[1])))
            return f"cooking {obj[2]}/{cook:g}"
        return f"{len(obj[1])}/{self.world.layout.max_items}"

    def _soup(self, surface: pygame.Surface, center: tuple[int, int], size: int, ingredients: Sequence[str],
              dish: bool) -> None:
        """A soup: (on a dish) a bowl in the colour of what is mostly in it, its ingredients as dots."""
        if dish:
            plate = self.book.get("k-plate", size)
            surface.blit(plate, (center[0] - size // 2, center[1] - size // 2))
        r = max(3, int(size * (0.3 if dish else 0.4)))
        main = max(set(ingredients), key=list(ingredients).count) if ingredients else "onion"
        pygame.draw.circle(surface, SOUP_COLORS.get(main, (220, 180, 100)), center, r)
        pygame.draw.circle(surface, (80, 60, 40), center, r, max(1, size // 24))
        self._dots(surface, center, r, ingredients)

    def _dots(self, surface: pygame.Surface, center: tuple[int, int], r: int, ingredients: Sequence[str]) -> None:
        """The ingredients as dots told apart by shape as well as colour: a tomato with its green
        stalk, an onion with its pale heart."""
        for k, item in enumerate(sorted(ingredients)):
            x = center[0] + int((k - (len(ingredients) - 1) / 2) * r * 0.62)
            inner, mark = sprites.INGREDIENT_COLORS.get(item, ((200, 200, 200), (255, 255, 255)))
            d = max(2, r // 3)
            pygame.draw.circle(surface, (255, 255, 255), (x, center[1]), d + 1)
            pygame.draw.circle(surface, inner, (x, center[1]), d)
            if item == "tomato":
                pygame.draw.rect(surface, mark, (x - max(1, d // 2), center[1] - d - 1, max(2, d), max(2, d // 2)))
            else:
                pygame.draw.circle(surface, mark, (x, center[1]), max(1, d // 2))

    def _item(self, surface: pygame.Surface, center: tuple[int, int], size: int, obj: Any) -> None:
        """An object of overcooked_ai (onion, tomato, dish, soup) centred at ``center``."""
        name = obj[0]
        if name == "soup":
            self._soup(surface, center, size, obj[1], dish=True)
            return
        sprite = self.book.get({"onion": "k-onion", "tomato": "k-tomato"}.get(name, "k-plate"), size)
        surface.blit(sprite, (center[0] - size // 2, center[1] - size // 2))

    def _draw_pot(self, surface: pygame.Surface, at: tuple[int, int], obj: Any) -> None:
        t = self.tile
        rect = self.cell_rect(at[1], at[0])
        pan = self._pot_shape(surface, rect)
        words = self.pot_words(obj)
        ingredients = tuple(obj[1]) if obj is not None else ()
        self.drawn_pots[at] = (ingredients, words)
        if ingredients:
            inside = pan.inflate(-t // 8, -t // 8)
            main = max(set(ingredients), key=list(ingredients).count)
            pygame.draw.ellipse(surface, SOUP_COLORS.get(main, (220, 180, 100)), inside)
            self._dots(surface, inside.center, min(inside.width // 3, inside.height), ingredients)
        ready = words == "ready"
        cooking = words.startswith("cooking")
        color = READY_GREEN if ready else COOKING_ORANGE if cooking else (255, 255, 255)
        self._tag(surface, rect, f"pot {words}" if not cooking else "pot cooking", color)
        if cooking or ready:  # the cooking bar under the pan, full when ready
            cook = self.world.layout.time(tuple(sorted(ingredients)))
            share = 1.0 if ready or cook <= 0 else min(1.0, obj[2] / cook)
            back = pygame.Rect(rect.x + t // 10, rect.bottom - max(4, t // 12) - 2, rect.width - t // 5, max(4, t // 12))
            pygame.draw.rect(surface, (30, 30, 36), back.inflate(2, 2))
            pygame.draw.rect(surface, READY_GREEN if ready else COOKING_ORANGE,
                             (back.x, back.y, int(back.width * share), back.height))
            if cooking:
                tick = self.text(words.split(" ", 1)[1], self.label_px(), (255, 255, 255))
                spot = pygame.Rect(0, 0, tick.get_width() + 4, tick.get_height())
                spot.midbottom = (rect.centerx, back.y - 1)
                layer = pygame.Surface(spot.size, pygame.SRCALPHA)
                layer.fill((20, 24, 32, 190))
                surface.blit(layer, spot)
                surface.blit(tick, (spot.x + 2, spot.y))
        self.note_salient(rect, "pot", "the pot", "soup")

    def draw(self, surface: pygame.Surface, state: OvercookedState, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        self.begin_frame(surface)
        t, w = self.tile, self.world
        objects = dict(state.objects)
        self.drawn_pots = {}
        for x, y in w.engine.pots:
            self._draw_pot(surface, (x, y), objects.get((x, y)))
        for (x, y), obj in state.objects:
            if w.grid[y][x] == "P":
                continue
            rect = self.cell_rect(y, x)
            self._item(surface, rect.center, int(t * 0.66), obj)
            self.note_salient(rect, obj[0])
        self.drawn_agents = list(w.agents)
        px = max(10, int(t * 0.22))
        for i, p in enumerate(state.players):
            rect = self.cell_rect(p[1], p[0])
            color = sprites.agent_color(i)
            # the way the cook faces: a wedge at the side of its cell
            cx, cy, dx, dy = rect.centerx, rect.centery, p[2], p[3]
            tip = (cx + dx * int(t * 0.5), cy + dy * int(t * 0.5))
            side = (-dy * int(t * 0.16), dx * int(t * 0.16))
            back = (cx + dx * int(t * 0.32), cy + dy * int(t * 0.32))
            pygame.draw.polygon(surface, (30, 30, 36), [tip, (back[0] + side[0], back[1] + side[1]),
                                                        (back[0] - side[0], back[1] - side[1])])
            size = int(t * 0.8)
            surface.blit(self.book.get(f"agent-{i % len(sprites.AGENT_COLORS)}", size),
                         (cx - size // 2, cy - size // 2))
            if p[4] is not None:
                held = max(8, int(t * 0.42))
                spot = (rect.right - held // 2 - 2, rect.y + held // 2 + 2)
                pygame.draw.circle(surface, (255, 255, 255), spot, held // 2 + 2)
                self._item(surface, spot, held, p[4])
            if t >= 20:
                name = self.text(w.agents[i], px, (255, 255, 255))
                plate = pygame.Rect(0, 0, name.get_width() + 6, name.get_height() + 1)
                plate.midbottom = (cx, rect.bottom - 1)
                pygame.draw.rect(surface, color, plate, border_radius=4)
                surface.blit(name, (plate.x + 3, plate.y + 1))
            if w.agents[i] in overlays.thinking:
                self.draw_thinking(surface, rect.x, rect.y, overlays.phase)
        self._draw_hud(surface, state)

    def _draw_hud(self, surface: pygame.Surface, state: OvercookedState) -> None:
        """The orders (each recipe's ingredients and value, bonus orders framed in gold), then the
        clock, the score and the soups served at the right."""
        lay = self.world.layout
        hud = self.hud_height(self.height)
        top = self.hud_top
        pygame.draw.rect(surface, (24, 28, 36), (0, top, self.width, max(hud, self.height - top)))
        px = max(12, min(20, int(hud * 0.45)))
        icon = max(12, int(hud * 0.72))
        cy = top + hud // 2
        clock = self.text(f"t {state.t}/{self.world.t_max}   score {sum(state.score):g}   soups {state.served}",
                          px, (216, 222, 233))
        right = self.width - clock.get_width() - 8
        surface.blit(clock, (right, cy - clock.get_height() // 2))
        head = self.text("orders" if lay.orders_listed else "orders: any soup", px, (160, 170, 185))
        surface.blit(head, (8, cy - head.get_height() // 2))
        x = 8 + head.get_width() + 8
        self.drawn_orders = []
        if not lay.orders_listed:
            words = self.text(f"of 1 to {lay.max_items} onions and tomatoes", px, (236, 239, 244))
            surface.blit(words, (x, cy - words.get_height() // 2))
            self.drawn_orders = [(r, lay.reward(r), r in lay.bonus_orders) for r in lay.order_list]
            return
        entries = [(recipe, lay.reward(recipe), recipe in lay.bonus_orders) for recipe in lay.order_list]

        def label(recipe: tuple[str, ...], value: float, bonus: bool, short: bool) -> pygame.Surface:
            words = f"{value:g}" if short else f"{recipe_words(recipe)}  {value:g}" + ("  bonus" if bonus else "")
            return self.text(words, px, (255, 214, 90) if bonus else (236, 239, 244))

        # each order in words when they all fit, else its soup (the ingredients as dots) and value
        short = sum(icon + 4 + label(*e, False).get_width() + 14 for e in entries) > right - 8 - x
        for recipe, value, bonus in entries:
            text = label(recipe, value, bonus, short)
            width = icon + 4 + text.get_width() + 14
            if x + width > right - 8:
                more = self.text("…", px, (236, 239, 244))
                surface.blit(more, (x, cy - more.get_height() // 2))
                break
            box = pygame.Rect(x - 3, cy - icon // 2 - 2, width - 6, icon + 4)
            pygame.draw.rect(surface, (44, 50, 62), box, border_radius=6)
            if bonus:
                pygame.draw.rect(surface, (255, 214, 90), box, 2, border_radius=6)
            self._soup(surface, (x + icon // 2, cy), icon, recipe, dish=True)
            surface.blit(text, (x + icon + 4, cy - text.get_height() // 2))
            self.drawn_orders.append((recipe, value, bonus))
            x += width

    def status_text(self, state: OvercookedState) -> str:
        return f"score {sum(state.score):g}, soups {state.served}"

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
