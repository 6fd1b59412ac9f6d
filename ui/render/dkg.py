"""The view of Doors, Keys and Gems: grid, doors, keys, gems, agents with their held items,
plans, a human's legal actions, feedback arrows and a strip with every agent's inventory."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pygame

from sim.dkg.world import DKGState, DKGWorld
from ui.render import sprites
from ui.render.base import KeyBinding, Overlays, SpriteBook, WorldRenderer

MOVE_KEYS = {"up": "up", "w": "up", "down": "down", "s": "down", "left": "left", "a": "left",
             "right": "right", "d": "right"}


def _ease(alpha: float) -> float:
    return 1 - (1 - alpha) ** 2


class DKGRenderer(WorldRenderer):
    family = "dkg"
    world: DKGWorld

    def __init__(self, world: DKGWorld) -> None:
        super().__init__(world)
        self.book = SpriteBook(32)
        self.label_rects: dict[str, pygame.Rect] = {}
        self.hud_regions: dict[str, Any] = {}

    def grid_shape(self) -> tuple[int, int]:
        return self.world.height, self.world.width

    def hud_height(self, height: int) -> int:
        return max(22, min(56, height // 12))

    def on_layout(self) -> None:
        self.book = SpriteBook(self.tile)

    # ------------------------------------------------------------- drawing

    def build_background(self) -> pygame.Surface:
        bg = pygame.Surface((self.width, self.height))
        bg.fill((24, 28, 36))
        #: the plates drawn (cell, colour), for tests
        self.drawn_plates: list[tuple[int, str]] = []
        floor, wall = self.book.get("floor"), self.book.get("wall")
        w = self.world
        for cell in range(w.height * w.width):
            r, c = w.rc(cell)
            bg.blit(wall if w.walls[cell] else floor, self.cell_rect(r, c))
        # a plate (joint tasks): a raised square in the colour of the door it opens
        for d in w.plate_doors:
            color = sprites.ITEM_COLORS.get(w.doors[d].color, (200, 200, 200))
            for cell in w.door_plates[d]:
                rect = self.cell_rect(*w.rc(cell)).inflate(-self.tile // 4, -self.tile // 4)
                pygame.draw.rect(bg, tuple(v // 2 for v in color), rect)
                pygame.draw.rect(bg, color, rect, width=max(1, self.tile // 12))
                self.drawn_plates.append((cell, w.doors[d].color))
        return bg

    def animates(self, previous: Any, state: Any) -> bool:
        return previous is not None and previous.agent_cells != state.agent_cells

    def agent_point(self, state: DKGState, a: int, previous: DKGState | None = None,
                    alpha: float = 1.0) -> tuple[float, float]:
        """Top-left pixel of agent ``a``'s sprite, moving from its previous cell."""
        r, c = self.world.rc(state.agent_cells[a])
        x, y = self.cell_rect(r, c).topleft
        if previous is not None and alpha < 1 and previous.agent_cells[a] != state.agent_cells[a]:
            pr, pc = self.world.rc(previous.agent_cells[a])
            px, py = self.cell_rect(pr, pc).topleft
            e = _ease(alpha)
            x, y = px + (x - px) * e, py + (y - py) * e
        # agents sharing a cell stand side by side
        sharing = [b for b, cell in enumerate(state.agent_cells) if cell == state.agent_cells[a]]
        if len(sharing) > 1:
            x += (sharing.index(a) - (len(sharing) - 1) / 2) * self.tile * 0.3
        return x, y

    def draw(self, surface: pygame.Surface, state: DKGState, previous: DKGState | None = None,
             alpha: float = 1.0, overlays: Overlays = Overlays()) -> None:
        self.begin_frame(surface)
        w, t, book = self.world, self.tile, self.book

        for d, door in enumerate(w.doors):
            opened = bool(state.open_doors >> d & 1)
            surface.blit(book.get(f"door-{door.color}" + ("-open" if opened else "")), self.cell_rect(*w.rc(door.cell)))
        small = max(6, int(t * 0.8))
        for i, item in enumerate(w.items):
            loc = state.item_locs[i]
            if loc >= 0:
                rect = self.cell_rect(*w.rc(loc))
                surface.blit(book.get(f"{item.kind}-{item.color}", small),
                             (rect.x + (t - small) // 2, rect.y + (t - small) // 2))
                self.note_salient(rect, item.kind, f"{item.color} {item.kind}", f"{item.kind}_{item.color}")

        if overlays.human is not None and overlays.legal:
            self._draw_legal(surface, state, overlays)
        if overlays.show_plans:
            for agent, plan in overlays.plans.items():
                path = tuple(tuple(cell) for cell in plan.get("path") or ())
                if agent in w.agent_index and len(path) > 1:
                    self._draw_path(surface, path, self.agent_color(agent))
        if overlays.feedback:
            self._draw_feedback(surface, state, overlays.feedback)

        badge = max(6, int(t * 0.42))
        self.label_rects = {}
        for a, agent in enumerate(w.agents):
            x, y = self.agent_point(state, a, previous, alpha)
            surface.blit(book.get(f"agent-{a % len(sprites.AGENT_COLORS)}"), (x, y))
            held = [i for i, loc in enumerate(state.item_locs) if loc == -1 - a]
            for k, i in enumerate(held[:3]):
                item = w.items[i]
                surface.blit(book.get(f"{item.kind}-{item.color}", badge),
                             (x + t - badge * 0.8 - k * badge * 0.55, y - badge * 0.15))
            if t >= 20:
                # Agents on one cell: their name plates stack (bottom up) instead of covering each other.
                sharing = [b for b, cell in enumerate(state.agent_cells) if cell == state.agent_cells[a]]
                slot = t / len(sharing)
                label_px = max(8, int(min(t * 0.36, slot * 0.85)))
                name = self.text(agent, label_px, (255, 255, 255))
                nx = x + (t - name.get_width()) / 2
                cell_y = self.cell_rect(*w.rc(state.agent_cells[a])).y if previous is None or alpha >= 1 else y
                ny = cell_y + t - (sharing.index(a) + 1) * slot + max(0.0, slot - name.get_height() - 1)
                plate = pygame.Rect(int(nx) - 3, int(ny) - 1, name.get_width() + 6, name.get_height() + 1)
                pygame.draw.rect(surface, sprites.agent_color(a), plate, border_radius=4)
                surface.blit(name, (nx, ny))
                self.label_rects[agent] = plate
            if agent in overlays.thinking:
                self.draw_thinking(surface, x, y, overlays.phase)
        self.drawn_ghosts, self.drawn_wrong, self.drawn_unknown = [], [], []
        if overlays.believed is not None:
            self._draw_believed_goals(surface, state, overlays.believed)
        self._draw_hud(surface, state)
        if overlays.believed is not None:
            self.draw_believed_caption(surface, overlays.believed)

    def _gem_point(self, state: DKGState, goal: str) -> pygame.Rect | None:
        w = self.world
        i = w.item_index.get(goal)
        if i is None:
            return None
        loc = state.item_locs[i]
        if loc >= 0:
            return self.cell_rect(*w.rc(loc))
        if -len(w.agents) <= loc < 0:
            return self.cell_rect(*w.rc(state.agent_cells[-1 - loc]))
        return None

    def _draw_believed_goals(self, surface: pygame.Surface, state: DKGState, believed: Any) -> None:
        """Goal inference as each agent's believed goals: under every gem a bar per agent, in its
        colour, as long as the probability that the agent wants that gem; the likeliest framed;
        a likeliest that is not the agent's real gem crossed out, with a red arrow to the real one."""
        t = self.tile
        bar_h = max(3, t // 9)
        slots: dict[str, int] = {}
        for g in believed.goals:
            cell = self._gem_point(state, g.goal)
            if cell is None or (g.p < 0.05 and not g.true):
                continue
            k = slots.get(g.goal, 0)
            slots[g.goal] = k + 1
            y = cell.top + 1 + k * (bar_h + 1)  # along the top of the cell, clear of the name plates
            back = pygame.Rect(cell.x + 2, y, t - 4, bar_h)
            pygame.draw.rect(surface, (40, 44, 56), back)
            bar = pygame.Rect(back.x, y, max(1, int(back.width * min(1.0, g.p))), bar_h)
            color = self.agent_color(g.agent)
            pygame.draw.rect(surface, color, bar)
            self.drawn_ghosts.append((g.agent, g.goal, g.p, g.true))
            if g.top:
                pygame.draw.rect(surface, color, cell.inflate(-2 - 4 * k, -2 - 4 * k), max(2, t // 14),
                                 border_radius=max(2, t // 6))
                if not g.true:
                    self.draw_cross(surface, cell.inflate(-t // 3, -t // 3))
                    real = self.world.goal_of(g.agent)
                    target = self._gem_point(state, real) if real else None
                    self.drawn_wrong.append((g.agent, g.goal, real))
                    if target is not None:
                        self.draw_belief_arrow(surface, cell.center, target.center)

    def _legal_targets(self, state: DKGState, agent: str, legal: Sequence[Any]) -> list[tuple[str, pygame.Rect]]:
        """(verb, cell) of each legal action that has a place on the map."""
        w = self.world
        here = state.agent_cells[w.agent_index[agent]]
        found = []
        for action in legal:
            verb, _, rest = str(action).partition(" ")
            if verb in ("up", "down", "left", "right"):
                target = next(n for name, n in w.neighbors[here] if name == verb)
                found.append((verb, self.cell_rect(*w.rc(target))))
            elif verb == "unlock":
                door = w.doors[w.door_index[rest.split()[0]]]  # "door1" or "door1 key2"
                found.append((verb, self.cell_rect(*w.rc(door.cell))))
            elif verb == "pickup":
                found.append((verb, self.cell_rect(*w.rc(here))))
        return found

    def legal_cells(self, state: DKGState, agent: str, legal: Sequence[Any]) -> list[pygame.Rect]:
        if agent not in self.world.agent_index:
            return []
        return [rect for _verb, rect in self._legal_targets(state, agent, legal)]

    def _draw_legal(self, surface: pygame.Surface, state: DKGState, overlays: Overlays) -> None:
        t = self.tile
        glow = 160 + int(60 * math.sin(overlays.phase * 2 * math.pi))
        color = (40, 200, 90)
        width = max(2, t // 12)
        for verb, rect in self._legal_targets(state, overlays.human, overlays.legal):
            if verb in ("up", "down", "left", "right"):
                overlay = pygame.Surface(rect.size, pygame.SRCALPHA)
                overlay.fill((*color, 60))
                surface.blit(overlay, rect)
                pygame.draw.rect(surface, color, rect.inflate(-width, -width), width, border_radius=t // 8)
            elif verb == "unlock":
                pygame.draw.rect(surface, (255, 255, glow), rect, width * 2)
            else:
                pygame.draw.rect(surface, (255, 255, glow), rect, width * 2, border_radius=t // 6)

    def _draw_path(self, surface: pygame.Surface, path: Sequence[Sequence[int]], color: tuple[int, int, int]) -> None:
        t = self.tile
        pts = [self.cell_rect(int(r), int(c)).center for r, c in path]
        # A translucent layer just large enough for the path (a full-size one costs ~1 ms a frame).
        pad = t // 4 + 2
        x0, y0 = min(x for x, _ in pts) - pad, min(y for _, y in pts) - pad
        x1, y1 = max(x for x, _ in pts) + pad, max(y for _, y in pts) + pad
        layer = pygame.Surface((x1 - x0 + 1, y1 - y0 + 1), pygame.SRCALPHA)
        local = [(x - x0, y - y0) for x, y in pts]
        pygame.draw.lines(layer, (*color, 150), False, local, max(2, t // 8))
        for p in local[1:]:
            pygame.draw.circle(layer, (*color, 190), p, max(2, t // 10))
        pygame.draw.circle(layer, (*color, 230), local[-1], max(3, t // 6), max(1, t // 16))
        surface.blit(layer, (x0, y0))

    def _feedback_ends(self, state: DKGState, payload: Any) -> tuple[tuple[int, int], tuple[int, int]] | None:
        w = self.world
        agent = payload.get("agent")
        if agent not in w.agent_index:
            return None
        start = self.cell_rect(*w.rc(state.agent_cells[w.agent_index[agent]])).center
        if payload.get("type") == "unlock" and payload.get("door") in w.door_index:
            end = self.cell_rect(*w.rc(w.doors[w.door_index[payload["door"]]].cell)).center
        elif payload.get("type") == "handover" and payload.get("to") in w.agent_index:
            end = self.cell_rect(*w.rc(state.agent_cells[w.agent_index[payload["to"]]])).center
        else:
            return None
        return start, end

    def _draw_feedback(self, surface: pygame.Surface, state: DKGState, payload: Any) -> None:
        ends = self._feedback_ends(state, payload)
        if ends is None or ends[0] == ends[1]:
            return
        (x0, y0), (x1, y1) = ends
        t = self.tile
        angle = math.atan2(y1 - y0, x1 - x0)
        head = t * 0.45
        bx, by = x1 - math.cos(angle) * t * 0.35, y1 - math.sin(angle) * t * 0.35
        pygame.draw.line(surface, sprites.FEEDBACK_BLUE, (x0, y0), (bx, by), max(3, t // 7))
        tip = (bx + math.cos(angle) * head * 0.6, by + math.sin(angle) * head * 0.6)
        left = (bx + math.cos(angle + 2.5) * head * 0.6, by + math.sin(angle + 2.5) * head * 0.6)
        right = (bx + math.cos(angle - 2.5) * head * 0.6, by + math.sin(angle - 2.5) * head * 0.6)
        pygame.draw.polygon(surface, sprites.FEEDBACK_BLUE, (tip, left, right))

    def _draw_hud(self, surface: pygame.Surface, state: DKGState) -> None:
        """The strip under the map: each agent's colour, name, held items and the gem it wants,
        and the clock at the right. With many agents on a narrow view the strip shrinks (and
        drops the words "wants"/"has") so it never runs into the clock."""
        w = self.world
        hud = self.hud_height(self.height)
        top = self.hud_top
        pygame.draw.rect(surface, (24, 28, 36), (0, top, self.width, hud))
        px, icon = int(hud * 0.5), int(hud * 0.62)
        cy = top + hud // 2
        turn = "over" if w.done(state) else f"turn: {w.agents[state.turn]}"
        clock = self.text(f"tick {state.t}/{w.t_max}   {turn}", px, (216, 222, 233))
        clock_rect = clock.get_rect(midright=(self.width - 8, cy))
        room = clock_rect.left - 12 - 8
        for scale, words in ((1.0, True), (0.85, True), (0.85, False), (0.7, False), (0.55, False), (0.45, False)):
            if self._hud_strip(None, state, int(px * scale), int(icon * scale), words, 8, cy) <= room:
                break
        end = self._hud_strip(surface, state, int(px * scale), int(icon * scale), words, 8, cy)
        if 8 + end > clock_rect.left - 4:  # even the smallest strip is too long: the clock goes above it
            clock = self.text(f"tick {state.t}/{w.t_max}   {turn}", max(9, int(px * 0.7)), (216, 222, 233))
            clock_rect = clock.get_rect(bottomright=(self.width - 8, top - 2))
        surface.blit(clock, clock_rect)
        #: where the strip ends and the clock sits, in the last frame (tests)
        self.hud_regions = {"strip_end": 8 + end, "clock": clock_rect}

    def _hud_strip(self, surface: pygame.Surface | None, state: DKGState, px: int, icon: int, words: bool,
                   x0: int, cy: int) -> int:
        """Draw (or, without a surface, only measure) the agents' strip; returns its width."""
        w = self.world
        px, icon = max(8, px), max(8, icon)
        x = x0
        for a, agent in enumerate(w.agents):
            if surface is not None:
                pygame.draw.circle(surface, sprites.agent_color(a), (x + icon // 3, cy), icon // 3)
            x += icon // 3 * 2 + 4
            name = self.text(agent, px, (236, 239, 244))
            if surface is not None:
                surface.blit(name, (x, cy - name.get_height() // 2))
            x += name.get_width() + 6
            for i in w.held_by(state, agent):
                item = w.items[i]
                if surface is not None:
                    surface.blit(self.book.get(f"{item.kind}-{item.color}", icon), (x, cy - icon // 2))
                x += icon
            if w.goal_item[a] is None:  # a helper without a gem of its own
                word = self.text("helps" if words else "·", px, (160, 170, 185))
                if surface is not None:
                    surface.blit(word, (x + 4, cy - word.get_height() // 2))
                x += word.get_width() + (18 if words else 10)
                continue
            goal = w.items[w.goal_item[a]]
            has = w.holds_goal(state, a)
            if words:
                word = self.text("has" if has else "wants", px, (160, 170, 185))
                if surface is not None:
                    surface.blit(word, (x + 4, cy - word.get_height() // 2))
                x += word.get_width() + 6
            else:  # drawn, not typed: the default font has no arrow or check mark
                size = max(6, px // 2)
                if surface is not None:
                    _draw_mark(surface, "check" if has else "arrow", x + 4, cy, size, (160, 170, 185))
                x += size + 10
            if surface is not None:
                surface.blit(self.book.get(f"gem-{goal.color}", icon), (x, cy - icon // 2))
            x += icon + (18 if words else 10)
        return x - x0

    def goal_color(self, goal: str) -> tuple[int, int, int] | None:
        i = self.world.item_index.get(goal)
        return sprites.ITEM_COLORS.get(self.world.items[i].color) if i is not None else None

    def status_text(self, state: DKGState) -> str:
        w = self.world
        held = sum(w.holds_goal(state, a) for a in w.goal_agents)
        wanted = len(w.goal_agents)
        return f"gems held {held}/{wanted}" + ("  ·  solved" if w.done(state) and held == wanted else "")

    # ------------------------------------------------------------- human input

    def agent_anchor(self, state: DKGState, agent: str) -> tuple[int, int] | None:
        a = self.world.agent_index.get(agent)
        if a is None:
            return None
        rect = self.cell_rect(*self.world.rc(state.agent_cells[a]))
        return rect.centerx, rect.top

    def action_for_key(self, key: str, state: DKGState, agent: str, legal: Sequence[str]) -> str | None:
        key = key.lower()
        if key in MOVE_KEYS:
            move = MOVE_KEYS[key]
            return move if move in legal else None
        if key in ("space", "period"):
            return "wait" if "wait" in legal else None
        prefix = {"p": "pickup ", "e": "pickup ", "u": "unlock ", "h": "handover "}.get(key)
        if prefix is not None:
            return next((x for x in legal if x.startswith(prefix)), None)
        return dict(self.numbered_actions(legal)).get(key)

    def numbered_actions(self, legal: Sequence[Any], page: int = 0) -> list[tuple[str, Any]]:
        """As the base class, without ``unlock DOOR KEY`` where ``unlock DOOR`` already names the
        only key that fits (the named form matters only when several keys could open the door)."""
        keyed: dict[str, int] = {}
        for action in legal:
            parts = str(action).split()
            if parts[0] == "unlock" and len(parts) == 3:
                keyed[parts[1]] = keyed.get(parts[1], 0) + 1
        shown = [a for a in legal if not (str(a).startswith("unlock ") and len(str(a).split()) == 3
                                          and keyed.get(str(a).split()[1], 0) < 2)]
        return super().numbered_actions(shown, page)

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("arrows / WASD", "move"), KeyBinding("space", "wait"),
                KeyBinding("P or E", "pick up"), KeyBinding("U", "unlock a door next to you"),
                KeyBinding("H", "hand over a held item"), KeyBinding("1-9", "the numbered action")]

    def action_label(self, action: Any) -> str:
        return str(action)


def _draw_mark(surface: pygame.Surface, kind: str, x: int, cy: int, size: int, color: tuple[int, int, int]) -> None:
    """A small arrow (wants) or check mark (has), ``size`` pixels wide, centred on ``cy``."""
    width = max(1, size // 4)
    if kind == "arrow":
        pygame.draw.line(surface, color, (x, cy), (x + size - width, cy), width)
        head = size // 2
        pygame.draw.polygon(surface, color, [(x + size, cy), (x + size - head, cy - head // 1.5),
                                             (x + size - head, cy + head // 1.5)])
    else:
        pygame.draw.lines(surface, color, False, [(x, cy), (x + size // 3, cy + size // 3),
                                                  (x + size, cy - size // 2)], width + 1)
