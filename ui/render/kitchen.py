"""The view of the partially observable kitchen (sim/kitchen): floor, doors, counters, cutting
boards and delivery hatches with what lies on them, the cooks with what they hold, plans,
ProToM's feedback (Pickup / Pass) as arrows, the facilitator's particles (what each cook is
believed to believe about rooms it cannot see), and a strip with each cook's hand and dish.

Drawn with one seat's eyes (``Overlays.viewer``) the map shows only what
``world.observe(state, viewer)`` reveals: the layout stays, rooms out of view are dimmed, their
stations show a question mark, cooks out of view are not drawn, and the strip shows the other
cooks' dishes as a question mark (a cook observes its own goal only).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pygame

from sim.kitchen.world import (
    BOARD,
    COUNTER,
    DELIVERY,
    ITEM_CODE,
    ITEM_NAMES,
    ITEM_PARTS,
    NOTHING,
    PLATE,
    KitchenState,
    KitchenWorld,
    is_chopped,
    is_dish,
)
from sim.snapshots import Particles, read_snapshot
from ui.render import sprites
from ui.render.base import SECOND_SEAT_KEYS, KeyBinding, Overlays, SpriteBook, WorldRenderer
from ui.render.kitchen_beliefs import KitchenWords, kitchen_item_words

#: the belief kind of ProToM's particle snapshots (docs/kitchen.md)
PARTICLES = Particles.kind
#: key name -> action for a cook (the window gives the second cook's W/A/S/D/Q as up/left/down/right/space)
KEY_ACTIONS = {"up": "up", "w": "up", "down": "down", "s": "down", "left": "left", "a": "left",
               "right": "right", "d": "right", "space": "stay", "period": "stay", "q": "stay"}
INGREDIENT_OF = {1: "tomato", 4: "lettuce", 7: "onion"}
#: sprites that are whole tiles: drawn at the tile size, never scaled from a file (crisp)
TILES = ("k-floor", "k-counter", "k-board", "k-delivery", "k-door", "wall")
FOG = (18, 22, 30, 150)


def item_sprite_name(code: int) -> str:
    """The sprite of an object code of the kitchen."""
    if code == PLATE:
        return "k-plate"
    if code > PLATE:  # chopped foods merged (team-orders mode): a salad, on a plate or not
        mask, plate, _ = ITEM_PARTS[code]
        mix = "-".join(name for k, name in enumerate(("tomato", "lettuce", "onion")) if mask >> k & 1)
        return f"k-dish-{mix}" if plate else f"k-mix-{mix}"
    base = INGREDIENT_OF[code - (code - 1) % 3]
    if is_dish(code):
        return f"k-dish-{base}"
    return f"k-{base}-chopped" if is_chopped(code) else f"k-{base}"


def _ease(alpha: float) -> float:
    return 1 - (1 - alpha) ** 2


class KitchenBook(SpriteBook):
    """Sprites at one tile size; whole tiles are always drawn, never scaled (crisp)."""

    def get(self, name: str, size: int | None = None) -> pygame.Surface:
        size = size or self.size
        if name in TILES:
            key = (name, size)
            surf = self._cache.get(key)
            if surf is None:
                surf = self._cache[key] = self._makers[name](size)
            return surf
        return super().get(name, size)


def particle_beliefs(snapshots: Iterable[Particles | Mapping[str, Any]] | None
                     ) -> dict[str, dict[tuple[int, int], list[tuple[str, float, bool]]]]:
    """Read ProToM's ``particles`` snapshots (``Particles``, or the recorded dicts: one per agent,
    ``unseen``: ``[{"at": [row, col], "item", "weight", "true"}]``, docs/kitchen.md) into agent -> cell ->
    [(believed content, share of particles, whether it is true)], likeliest first. Entries that
    do not fit are skipped: the overlay never breaks the view."""
    out: dict[str, dict[tuple[int, int], list[tuple[str, float, bool]]]] = {}
    for data in snapshots or ():
        snapshot = data if isinstance(data, Particles) else read_snapshot(Particles, data)
        if snapshot is None:
            continue
        cells = out.setdefault(snapshot.agent, {})
        for entry in snapshot.unseen:
            try:
                (r, c), item = entry["at"], str(entry["item"])
                weight, true = float(entry.get("weight", 1.0)), bool(entry.get("true", True))
                cell = (int(r), int(c))
            except (KeyError, TypeError, ValueError):
                continue
            if item in ITEM_CODE or item == "unknown":  # unknown: the cook has never seen it (rules 2)
                cells.setdefault(cell, []).append((item, weight, true))
        for beliefs in cells.values():
            beliefs.sort(key=lambda b: -b[1])
    return {agent: cells for agent, cells in out.items() if cells}


class KitchenRenderer(KitchenWords, WorldRenderer):
    family = "kitchen"
    world: KitchenWorld
    #: the facilitator's ``particles`` snapshots (one per cook) come in ``Overlays.beliefs``; the
    #: Particles panel's View menu action (ui/beliefs/particles.py) turns the drawing on and off
    overlay_beliefs = (PARTICLES,)

    def __init__(self, world: KitchenWorld) -> None:
        super().__init__(world)
        self.book = KitchenBook(32)
        #: what the last frame drew, for tests: (agent, cell, item, share, true) of the particles
        self.drawn_particles: list[tuple[str, tuple[int, int], str, float, bool]] = []
        #: ... the cooks drawn, and the objects drawn on stations by cell
        self.drawn_agents: list[str] = []
        self.drawn_items: dict[tuple[int, int], str] = {}
        #: ... and the orders in the HUD (team-orders mode): (dish, tick delivered or -1)
        self.drawn_orders: list[tuple[str, int]] = []

    # ------------------------------------------------------------- layout

    def grid_shape(self) -> tuple[int, int]:
        return self.world.height, self.world.width

    def hud_height(self, height: int) -> int:
        return max(22, min(56, height // 12))

    def on_layout(self) -> None:
        self.book = KitchenBook(self.tile)

    def build_background(self) -> pygame.Surface:
        """Everything that never changes: floor, walls, doors and the stations themselves."""
        bg = pygame.Surface((self.width, self.height))
        bg.fill((24, 28, 36))
        w = self.world
        kinds = {cell: w.station_kind[s] for s, cell in enumerate(w.station_cells)}
        tile_for = {COUNTER: "k-counter", BOARD: "k-board", DELIVERY: "k-delivery"}
        for cell in range(w.height * w.width):
            r, c = w.rc(cell)
            if cell in kinds:
                name = tile_for[kinds[cell]]
            elif w.is_door[cell]:
                name = "k-door"
            elif w.walkable[cell]:
                name = "k-floor"
            else:
                name = "wall"
            bg.blit(self.book.get(name), self.cell_rect(r, c))
        return bg

    # ------------------------------------------------------------- drawing

    def animates(self, previous: Any, state: Any) -> bool:
        return previous is not None and previous.positions != state.positions

    def agent_point(self, state: KitchenState, i: int, previous: KitchenState | None = None,
                    alpha: float = 1.0) -> tuple[float, float]:
        """Top-left pixel of cook ``i``'s sprite, moving from its previous cell."""
        w = self.world
        x, y = self.cell_rect(*w.rc(state.positions[i])).topleft
        if previous is not None and alpha < 1 and previous.positions[i] != state.positions[i]:
            px, py = self.cell_rect(*w.rc(previous.positions[i])).topleft
            e = _ease(alpha)
            x, y = px + (x - px) * e, py + (y - py) * e
        sharing = [j for j, cell in enumerate(state.positions) if cell == state.positions[i]]
        if len(sharing) > 1:  # cooks may share a floor cell: side by side
            x += (sharing.index(i) - (len(sharing) - 1) / 2) * self.tile * 0.3
        return x, y

    def draw(self, surface: pygame.Surface, state: KitchenState, previous: KitchenState | None = None,
             alpha: float = 1.0, overlays: Overlays = Overlays()) -> None:
        self.begin_frame(surface)
        w, t = self.world, self.tile

        viewer = overlays.viewer if overlays.viewer in w.agent_index else None
        seen_stations: set[int] | None = None
        seen_agents: set[int] = set(range(w.n_agents))
        look: int | None = None
        if viewer is not None:
            obs = w.observe(state, viewer)
            seen_stations = {s for s, _ in obs.stations}
            seen_agents = {i for i, _, _ in obs.agents}
            look = state.positions[w.agent_index[viewer]]
            self._draw_fog(surface, look, seen_stations)

        small = max(6, int(t * 0.78))
        self.drawn_items = {}
        for s, cell in enumerate(w.station_cells):
            item = state.contents[s]
            if item == NOTHING or (seen_stations is not None and s not in seen_stations):
                continue
            self.drawn_items[w.rc(cell)] = ITEM_NAMES[item]
            rect = self.cell_rect(*w.rc(cell))
            words = kitchen_item_words(ITEM_NAMES[item])
            self.note_salient(rect, ITEM_NAMES[item], words, words.removeprefix("the ").removeprefix("a "))
            surface.blit(self.book.get(item_sprite_name(item), small),
                         (rect.x + (t - small) // 2, rect.y + (t - small) // 2))

        self.drawn_particles = []
        particles = overlays.beliefs.get(PARTICLES)
        if particles and overlays.believed is None:
            self._draw_particles(surface, state, viewer, particles)
        self.drawn_ghosts, self.drawn_wrong, self.drawn_unknown = [], [], []
        if overlays.believed is not None:
            self._draw_believed(surface, state, overlays.believed, seen_stations)
        if overlays.human is not None and overlays.legal:
            self._draw_legal(surface, state, overlays)
        if overlays.show_plans:
            for agent, plan in overlays.plans.items():
                i = w.agent_index.get(agent)
                if i is None or i not in seen_agents:
                    continue
                path = [w.rc(state.positions[i])] + [tuple(cell) for cell in plan.get("path") or ()]
                if plan.get("target"):
                    path.append(tuple(plan["target"]))
                if len(path) > 1:
                    self._draw_path(surface, path, self.agent_color(agent))
        if overlays.feedback:
            self._draw_feedback(surface, state, overlays.feedback, seen_agents)

        label_px = max(10, int(t * 0.34))
        badge = max(6, int(t * 0.5))
        self.drawn_agents = [agent for i, agent in enumerate(w.agents) if i in seen_agents]
        for i, agent in enumerate(w.agents):
            if i not in seen_agents:
                continue
            x, y = self.agent_point(state, i, previous, alpha)
            surface.blit(self.book.get(f"agent-{i % len(sprites.AGENT_COLORS)}"), (x, y))
            if state.held[i] != NOTHING:
                surface.blit(self.book.get(item_sprite_name(state.held[i]), badge),
                             (x + t - badge * 0.85, y - badge * 0.1))
            if not w.orders and state.delivered[i] >= 0:
                pygame.draw.circle(surface, (46, 160, 67), (int(x + t * 0.18), int(y + t * 0.18)), max(3, t // 8))
                pygame.draw.lines(surface, (255, 255, 255), False,
                                  [(x + t * 0.11, y + t * 0.18), (x + t * 0.17, y + t * 0.24), (x + t * 0.26, y + t * 0.12)],
                                  max(1, t // 24))
            if t >= 20:
                name = self.text(agent, label_px, (255, 255, 255))
                nx = x + (t - name.get_width()) / 2
                ny = y + t - name.get_height() + 1
                plate = pygame.Rect(int(nx) - 3, int(ny) - 1, name.get_width() + 6, name.get_height() + 1)
                pygame.draw.rect(surface, sprites.agent_color(i), plate, border_radius=4)
                surface.blit(name, (nx, ny))
            if agent in overlays.thinking:
                self.draw_thinking(surface, x, y, overlays.phase)
        self._draw_hud(surface, state, viewer, seen_agents)
        if overlays.believed is not None:
            self.draw_believed_caption(surface, overlays.believed)

    def _draw_believed(self, surface: pygame.Surface, state: KitchenState, believed: Any,
                       seen_stations: set[int] | None) -> None:
        """The *As X believes it* view (``ui.beliefs.view``): stations never seen hatched; each
        believed object a ghost on its station (several by share of particles, the likeliest
        largest); a false one crossed out, with a red arrow to the nearest real one."""
        w, t = self.world, self.tile
        for r, c in believed.unknown:
            if 0 <= r < w.height and 0 <= c < w.width:
                self.draw_unknown(surface, self.cell_rect(r, c))
                self.drawn_unknown.append((r, c))
        color = self.agent_color(believed.about) if believed.about in w.agent_index else self.agent_color(believed.holder)
        by_cell: dict[tuple[int, int], list[Any]] = {}
        for ghost in believed.ghosts:
            by_cell.setdefault(tuple(ghost.at), []).append(ghost)
        for (r, c), ghosts in by_cell.items():
            s = w.station_at.get(w.cell(r, c))
            if s is None:
                continue
            ghosts.sort(key=lambda g: -g.p)
            rect = self.cell_rect(r, c)
            for k, ghost in enumerate(ghosts[:3]):
                if ghost.true and (seen_stations is None or s in seen_stations) and ghost.thing != "nothing":
                    continue  # drawn solid already
                size = max(6, int(t * (0.62 if k == 0 else 0.34)))
                pos = (rect.x + (t - size) // 2, rect.y + (t - size) // 2) if k == 0 else \
                      ((rect.x + 1) if k == 1 else (rect.right - size - 1), rect.bottom - size - 1)
                if ghost.thing == "nothing":
                    sprite = pygame.Surface((size, size), pygame.SRCALPHA)
                    mid, rad = size // 2, max(2, size // 3)
                    pygame.draw.circle(sprite, (235, 235, 240), (mid, mid), rad, max(1, size // 10))
                    pygame.draw.line(sprite, (235, 235, 240), (mid - rad, mid + rad), (mid + rad, mid - rad), max(1, size // 10))
                elif ghost.thing in ITEM_CODE and ITEM_CODE[ghost.thing] != NOTHING:
                    sprite = self.book.get(item_sprite_name(ITEM_CODE[ghost.thing]), size)
                else:
                    continue
                box = self.draw_ghost(surface, sprite, pos, ghost.p, ghost.true, color)
                self.drawn_ghosts.append((ghost.thing, (r, c), ghost.p, ghost.true))
                if ghost.true:
                    continue
                self.drawn_wrong.append((ghost.thing, (r, c), ghost.actual))
                if isinstance(ghost.actual, tuple):
                    self.draw_belief_arrow(surface, box.center, self.cell_rect(*ghost.actual).center)
                elif isinstance(ghost.actual, str) and ghost.actual.startswith("agent:"):
                    i = w.agent_index.get(ghost.actual[6:])
                    if i is not None:
                        self.draw_belief_arrow(surface, box.center, self.cell_rect(*w.rc(state.positions[i])).center)

    def _draw_fog(self, surface: pygame.Surface, look: int, seen_stations: set[int]) -> None:
        """Dim what the viewer cannot see; unseen stations get a question mark."""
        w, t = self.world, self.tile
        fog = pygame.Surface((t, t), pygame.SRCALPHA)
        fog.fill(FOG)
        mark = self.text("?", max(10, int(t * 0.6)), (236, 239, 244))
        stations = {cell: s for s, cell in enumerate(w.station_cells)}
        for cell in range(w.height * w.width):
            s = stations.get(cell)
            if s is not None:
                if s in seen_stations:
                    continue
            elif not w.walkable[cell] or w.sees(look, cell):
                continue
            rect = self.cell_rect(*w.rc(cell))
            surface.blit(fog, rect)
            if s is not None and w.station_kind[s] != DELIVERY:
                surface.blit(mark, (rect.centerx - mark.get_width() // 2, rect.centery - mark.get_height() // 2))

    def _draw_particles(self, surface: pygame.Surface, state: KitchenState, viewer: str | None,
                        particles: Sequence[Mapping[str, Any]]) -> None:
        """What each cook is believed to believe lies on stations it cannot see: in the cook's
        corner of the cell, the likeliest content (a crossed circle: believed empty), as opaque
        as the share of particles that believe it, framed in the cook's colour; a red corner
        marks a belief that is false (a station never seen, three dots, is not believed wrong: no
        corner). The Particles tab's legend says so."""
        w, t = self.world, self.tile
        beliefs = particle_beliefs(particles)
        size = max(6, int(t * 0.42))
        corners = [(0, 0), (t - size, 0), (0, t - size), (t - size, t - size)]
        self.drawn_particles = []
        for agent, cells in beliefs.items():
            i = w.agent_index.get(agent)
            if i is None or (viewer is not None and agent != viewer):
                continue
            color = self.agent_color(agent)
            dx, dy = corners[i % len(corners)]
            for (r, c), ranked in cells.items():
                if not (0 <= r < w.height and 0 <= c < w.width):
                    continue
                name, p, true = ranked[0]
                rect = self.cell_rect(r, c)
                box = pygame.Rect(rect.x + dx, rect.y + dy, size, size)
                layer = pygame.Surface(box.size, pygame.SRCALPHA)
                pygame.draw.rect(layer, (250, 250, 250), layer.get_rect(), border_radius=max(2, size // 5))
                if name == "unknown":  # never seen: three grey dots
                    for k in (1, 2, 3):
                        pygame.draw.circle(layer, (120, 124, 136), (k * size // 4, size // 2), max(1, size // 10))
                elif ITEM_CODE[name] == NOTHING:
                    mid, rad = size // 2, max(2, size // 3)
                    pygame.draw.circle(layer, (90, 96, 110), (mid, mid), rad, max(1, size // 10))
                    pygame.draw.line(layer, (90, 96, 110), (mid - rad, mid + rad), (mid + rad, mid - rad), max(1, size // 10))
                else:
                    layer.blit(self.book.get(item_sprite_name(ITEM_CODE[name]), size), (0, 0))
                layer.set_alpha(int(90 + 165 * min(1.0, max(0.0, p))))
                surface.blit(layer, box)
                pygame.draw.rect(surface, color, box, max(1, t // 24), border_radius=max(2, size // 5))
                if not true and name != "unknown":  # never seen is not believing wrong
                    pygame.draw.polygon(surface, (210, 40, 40), [box.topright, (box.right - size // 3, box.top),
                                                                (box.right, box.top + size // 3)])
                self.drawn_particles.append((agent, (r, c), name, p, true))

    def _legal_targets(self, state: KitchenState, agent: str, legal: Sequence[Any]) -> list[tuple[bool, pygame.Rect]]:
        """(walks there, cell) of each move of ``legal``: a free cell, or a station it works."""
        w = self.world
        here = state.positions[w.agent_index[agent]]
        found = []
        for a, action in enumerate(("up", "down", "left", "right")):
            if action not in legal:
                continue
            target = w.trans[here * 5 + a]
            if target == here:
                continue
            if target >= 0:
                found.append((True, self.cell_rect(*w.rc(target))))
            else:
                found.append((False, self.cell_rect(*w.rc(w.station_cells[-1 - target]))))
        return found

    def legal_cells(self, state: KitchenState, agent: str, legal: Sequence[Any]) -> list[pygame.Rect]:
        if agent not in self.world.agent_index:
            return []
        return [rect for _walk, rect in self._legal_targets(state, agent, legal)]

    def _draw_legal(self, surface: pygame.Surface, state: KitchenState, overlays: Overlays) -> None:
        """The cells a human cook can walk to, and the stations it would work, highlighted."""
        t = self.tile
        width = max(2, t // 12)
        glow = 160 + int(60 * math.sin(overlays.phase * 2 * math.pi))
        for walk, rect in self._legal_targets(state, overlays.human, overlays.legal):
            if walk:
                layer = pygame.Surface(rect.size, pygame.SRCALPHA)
                layer.fill((40, 200, 90, 60))
                surface.blit(layer, rect)
                pygame.draw.rect(surface, (40, 200, 90), rect.inflate(-width, -width), width, border_radius=t // 8)
            else:
                pygame.draw.rect(surface, (255, 255, glow), rect, width, border_radius=t // 8)

    def _draw_path(self, surface: pygame.Surface, path: Sequence[Sequence[int]], color: tuple[int, int, int]) -> None:
        t = self.tile
        pts = [self.cell_rect(int(r), int(c)).center for r, c in path]
        pad = t // 4 + 2
        x0, y0 = min(x for x, _ in pts) - pad, min(y for _, y in pts) - pad
        x1, y1 = max(x for x, _ in pts) + pad, max(y for _, y in pts) + pad
        layer = pygame.Surface((x1 - x0 + 1, y1 - y0 + 1), pygame.SRCALPHA)
        local = [(x - x0, y - y0) for x, y in pts]
        pygame.draw.lines(layer, (*color, 150), False, local, max(2, t // 8))
        pygame.draw.circle(layer, (*color, 230), local[-1], max(3, t // 6), max(1, t // 16))
        surface.blit(layer, (x0, y0))

    def _arrow(self, surface: pygame.Surface, start: tuple[int, int], end: tuple[int, int]) -> None:
        (x0, y0), (x1, y1) = start, end
        if (x0, y0) == (x1, y1):
            return
        t = self.tile
        angle = math.atan2(y1 - y0, x1 - x0)
        head = t * 0.45
        bx, by = x1 - math.cos(angle) * t * 0.3, y1 - math.sin(angle) * t * 0.3
        pygame.draw.line(surface, sprites.FEEDBACK_BLUE, (x0, y0), (bx, by), max(3, t // 7))
        tip = (bx + math.cos(angle) * head * 0.6, by + math.sin(angle) * head * 0.6)
        left = (bx + math.cos(angle + 2.5) * head * 0.6, by + math.sin(angle + 2.5) * head * 0.6)
        right = (bx + math.cos(angle - 2.5) * head * 0.6, by + math.sin(angle - 2.5) * head * 0.6)
        pygame.draw.polygon(surface, sprites.FEEDBACK_BLUE, (tip, left, right))

    def _draw_feedback(self, surface: pygame.Surface, state: KitchenState, payload: Mapping[str, Any],
                       seen_agents: set[int]) -> None:
        """ProToM's Pickup(i, item): an arrow from the cook to the item; Pass(i, item, j): on to
        the counter where it is to be left (``via``), or to the receiver."""
        w = self.world
        i = w.agent_index.get(payload.get("agent"))
        at = payload.get("at")
        if i is None or i not in seen_agents or not isinstance(at, Sequence) or len(at) != 2:
            return
        start = self.cell_rect(*w.rc(state.positions[i])).center
        item = self.cell_rect(int(at[0]), int(at[1])).center
        # the places the suggestion names (in words in the pop-up) ringed on the map
        spots = [(int(at[0]), int(at[1]))]
        via_at = payload.get("via")
        if payload.get("type") == "pass" and isinstance(via_at, Sequence) and len(via_at) == 2:
            spots.append((int(via_at[0]), int(via_at[1])))
        for r, c in spots:
            if 0 <= r < w.height and 0 <= c < w.width:
                pygame.draw.rect(surface, sprites.FEEDBACK_BLUE, self.cell_rect(r, c).inflate(4, 4),
                                 max(2, self.tile // 10), border_radius=max(2, self.tile // 6))
        self.feedback_spots = spots
        self._arrow(surface, start, item)
        if payload.get("type") == "pass":
            via = payload.get("via")
            j = w.agent_index.get(payload.get("to"))
            if isinstance(via, Sequence) and len(via) == 2:
                self._arrow(surface, item, self.cell_rect(int(via[0]), int(via[1])).center)
            elif j is not None and j in seen_agents:
                self._arrow(surface, item, self.cell_rect(*w.rc(state.positions[j])).center)

    def _draw_hud(self, surface: pygame.Surface, state: KitchenState, viewer: str | None,
                  seen_agents: set[int]) -> None:
        """Each cook: colour, name, what it holds, the dish it wants (ticked once delivered)."""
        w = self.world
        hud = self.hud_height(self.height)
        top = self.hud_top
        pygame.draw.rect(surface, (24, 28, 36), (0, top, self.width, hud))
        px = int(hud * 0.5)
        icon = int(hud * 0.7)
        cy = top + hud // 2
        clock = self.text(f"tick {state.t}/{w.t_max}" + ("   over" if w.done(state) else ""), px, (216, 222, 233))
        surface.blit(clock, (self.width - clock.get_width() - 8, cy - clock.get_height() // 2))
        x = 8
        if w.orders:  # gym-cooking's rules: the orders everyone shares (ticked once delivered)
            x = self._draw_orders(surface, state, x, cy, px, icon)
        room = self.width - clock.get_width() - 16
        # in words where they fit before the clock, else shorter ("at 20", no "empty hand")
        compact = self._draw_cooks(None, state, viewer, seen_agents, x, cy, px, icon, False) > room
        #: where the cooks' words end and the clock begins in the strip (the tests read them)
        self.strip_ends = (self._draw_cooks(surface, state, viewer, seen_agents, x, cy, px, icon, compact),
                           self.width - clock.get_width() - 8)

    def _draw_cooks(self, surface: pygame.Surface | None, state: KitchenState, viewer: str | None,
                    seen_agents: Any, x: int, cy: int, px: int, icon: int, compact: bool) -> int:
        """Each cook in the strip under the map (what it holds, what it wants or when it served);
        with ``surface`` None only measures. Returns the x after the last cook."""
        w = self.world

        def blit(image: pygame.Surface, at: tuple[int, int]) -> None:
            if surface is not None:
                surface.blit(image, at)

        for i, agent in enumerate(w.agents):
            if surface is not None:
                pygame.draw.circle(surface, sprites.agent_color(i), (x + icon // 3, cy), icon // 3)
            x += icon // 3 * 2 + 4
            name = self.text(agent, px, (236, 239, 244))
            blit(name, (x, cy - name.get_height() // 2))
            x += name.get_width() + 6
            if i in seen_agents:
                held = state.held[i]
                if held != NOTHING:
                    blit(self.book.get(item_sprite_name(held), icon), (x, cy - icon // 2))
                    x += icon
                elif not compact:
                    empty = self.text("empty hand", px, (160, 170, 185))
                    blit(empty, (x, cy - empty.get_height() // 2))
                    x += empty.get_width() + 4
            if w.orders:
                x += 14
                continue
            delivered = state.delivered[i] >= 0 and (viewer is None or i in seen_agents or agent == viewer)
            said = (f"at {state.delivered[i]}" if compact else f"served at {state.delivered[i]}") if delivered else "wants"
            wants = self.text(said, px, (160, 170, 185))
            blit(wants, (x + 4, cy - wants.get_height() // 2))
            x += wants.get_width() + 6
            if viewer is not None and agent != viewer:  # with one cook's eyes: another's goal is not known
                unknown = self.text("?", px, (236, 239, 244))
                blit(unknown, (x + (icon - unknown.get_width()) // 2, cy - unknown.get_height() // 2))
            else:
                blit(self.book.get(item_sprite_name(w.goal_dish[i]), icon), (x, cy - icon // 2))
            x += icon + 18
        return x

    def _draw_orders(self, surface: pygame.Surface, state: KitchenState, x: int, cy: int, px: int, icon: int) -> int:
        """The orders (gym-cooking's rules): each dish, ticked once delivered; returns the next x."""
        label = self.text("orders", px, (160, 170, 185))
        surface.blit(label, (x, cy - label.get_height() // 2))
        x += label.get_width() + 6
        self.drawn_orders = []
        for dish, tick in zip(self.world.order_dish, state.delivered):
            surface.blit(self.book.get(item_sprite_name(dish), icon), (x, cy - icon // 2))
            if tick >= 0:
                pygame.draw.circle(surface, (46, 160, 67), (x + icon - icon // 6, cy - icon // 3), max(3, icon // 6))
            self.drawn_orders.append((ITEM_NAMES[dish], tick))
            x += icon + 4
        return x + 14

    def status_text(self, state: KitchenState) -> str:
        w = self.world
        served = sum(d >= 0 for d in state.delivered)
        total = len(w.orders) if w.orders else w.n_agents
        text = f"{'orders delivered' if w.orders else 'dishes served'} {served}/{total}"
        return text + ("  ·  all served" if served == total else "")

    def goal_color(self, goal: str) -> tuple[int, int, int] | None:
        ingredient = goal.replace("Simple", "").lower()
        colors = sprites.INGREDIENT_COLORS.get(ingredient)
        return colors[0] if colors else None

    # ------------------------------------------------------------- human input

    def agent_anchor(self, state: KitchenState, agent: str) -> tuple[int, int] | None:
        i = self.world.agent_index.get(agent)
        if i is None:
            return None
        rect = self.cell_rect(*self.world.rc(state.positions[i]))
        return rect.centerx, rect.top

    # no interact key: walking into a station works it
    second_seat_keys = {k: v for k, v in SECOND_SEAT_KEYS.items() if k != "e"}
    second_seat_help = "W/A/S/D (walking into a counter, board or hatch works it) and Q (stay)"

    def action_for_key(self, key: str, state: KitchenState, agent: str, legal: Sequence[str]) -> str | None:
        key = key.lower()
        action = KEY_ACTIONS.get(key)
        if action is not None:
            return action if action in legal else None
        if key.isdigit() and key != "0":
            i = int(key) - 1
            return legal[i] if i < len(legal) else None
        return None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("arrows / WASD", "move; walking into a counter, board or hatch works it "
                                            "(pick up, put down, chop, plate, deliver)"),
                KeyBinding("space (second cook: Q)", "stay"), KeyBinding("1-5", "the numbered action")]

    def action_label(self, action: Any) -> str:
        return str(action)
