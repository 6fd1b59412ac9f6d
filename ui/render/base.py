"""The renderer interface: how a world family draws itself onto a pygame Surface.

One renderer per world family (Doors, Keys and Gems now; the kitchen, the household and
the TradeCraft board later) plugs into the same world view: it lays the world out in
the pixels it is given, draws a state (with an optional previous state for animation),
maps keys to actions for a human seat, and names the actions a person can take.
"""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame

from ui.render import sprites

ASSET_DIR = Path(__file__).resolve().parents[2] / "assets" / "sprites"
#: the colour of a false belief on the map (its cross and the arrow to where the thing is)
WRONG_RED = (214, 40, 40)


@dataclass(frozen=True, slots=True)
class Overlays:
    """What the view draws on top of the world."""

    #: agent -> its latest "plan" belief snapshot (each renderer reads the shape its world uses)
    plans: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    show_plans: bool = True
    #: the human seat whose input the keys drive now, and its legal actions (highlighted)
    human: str | None = None
    legal: tuple[Any, ...] = ()
    #: every human seat waiting for input at the live edge (several in simultaneous worlds)
    humans: tuple[str, ...] = ()
    #: whose eyes to draw with: an agent (fog of war: only what it observes) or None (everything)
    viewer: str | None = None
    #: recent messages as (sender, text), drawn as bubbles by the agents that sent them
    messages: tuple[tuple[str, str], ...] = ()
    #: payload of a feedback to draw as an arrow (ProToM's suggestion)
    feedback: Mapping[str, Any] | None = None
    #: agents whose decision is taking a while (an LLM call)
    thinking: frozenset[str] = frozenset()
    #: 0..1, cycles for small animations (thinking dots, pulsing highlights)
    phase: float = 0.0
    #: small labels over agents, agent -> (text, colour): a ToM level "k1" in its team's colour
    badges: Mapping[str, tuple[str, tuple[int, int, int]]] = field(default_factory=dict)
    #: belief snapshots drawn on the map, by kind (the renderer's ``overlay_beliefs``): kind -> the
    #: latest snapshot of each agent at the shown step (ProToM's ``particles`` in the kitchen)
    beliefs: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    #: the page of ``WorldRenderer.numbered_actions`` the number keys choose from now
    page: int = 0
    #: the *As X believes it* view (``ui.beliefs.view.BelievedWorld``): ghosts, false beliefs marked,
    #: unknown places shaded; None draws the world as it is
    believed: Any = None


@dataclass(frozen=True, slots=True)
class KeyBinding:
    keys: str
    action: str


class SpriteBook:
    """Sprites at one tile size: PNGs from assets/sprites/ scaled once, or drawn directly."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._cache: dict[tuple[str, int], pygame.Surface] = {}
        self._makers = sprites.sprite_names()

    def get(self, name: str, size: int | None = None) -> pygame.Surface:
        size = size or self.size
        key = (name, size)
        surf = self._cache.get(key)
        if surf is None:
            path = ASSET_DIR / f"{name}.png"
            if path.exists() and name not in ("floor", "wall"):  # tiles stay pixel-exact
                surf = pygame.transform.smoothscale(pygame.image.load(str(path)), (size, size))
            else:
                surf = self._makers[name](size)
            self._cache[key] = surf
        return surf


#: how keys reach two people who play at once on one keyboard: the first waiting seat uses the
#: renderer's own keys, the second these (translated to the first seat's key names)
SECOND_SEAT_KEYS = {"w": "up", "a": "left", "s": "down", "d": "right", "q": "space", "e": "return"}


class WorldRenderer(ABC):
    family: str = ""
    #: the keys of a second person at the same keyboard (simultaneous worlds): key -> the main key it stands for
    second_seat_keys: dict[str, str] = SECOND_SEAT_KEYS
    #: those keys in words, for the bar under the map
    second_seat_help: str = "W/A/S/D, Q (wait) and E (interact)"

    def __init__(self, world: Any) -> None:
        self.world = world
        self.width = self.height = 0
        self.tile = 1
        self.origin = (0, 0)
        self.hud_top = 0
        self._fonts: dict[int, pygame.font.Font] = {}
        self._texts: dict[tuple[str, int, tuple[int, ...]], pygame.Surface] = {}
        #: what does not change between frames, drawn once per layout (``build_background``)
        self._background: pygame.Surface | None = None

    # ------------------------------------------------------------- layout

    @abstractmethod
    def grid_shape(self) -> tuple[int, int]:
        """(rows, columns) of the world's grid (boards use their own layout units)."""

    def hud_height(self, height: int) -> int:
        return 0

    def layout(self, width: int, height: int) -> None:
        """Fit the grid into ``width`` x ``height`` pixels with square tiles of whole pixels,
        so tiles stay crisp at any window size."""
        rows, cols = self.grid_shape()
        hud = self.hud_height(height)
        self.tile = max(4, min(width // cols, (height - hud) // rows))
        self.width, self.height = width, height
        # the grid and the strip under it (if any) are centred together
        self.origin = ((width - self.tile * cols) // 2, (height - hud - self.tile * rows) // 2)
        self.hud_top = self.origin[1] + self.tile * rows
        self._background = None
        self.on_layout()

    def on_layout(self) -> None:
        """Rebuild whatever depends on the tile size (scaled sprites; the background is rebuilt
        by ``begin_frame``)."""

    def build_background(self) -> pygame.Surface | None:
        """What does not change between frames (walls, floors, stations), drawn at the current
        layout; None for a view that draws everything each frame."""
        return None

    def begin_frame(self, surface: pygame.Surface) -> None:
        """What every ``draw`` starts with: forget the last frame's salient things, lay out again
        when the surface changed size, and paint the background (built once per layout)."""
        self.clear_salient()
        if surface.get_size() != (self.width, self.height):
            self.layout(*surface.get_size())
        if self._background is None:
            self._background = self.build_background()
        if self._background is not None:
            surface.blit(self._background, (0, 0))

    def cell_rect(self, row: int, col: int) -> pygame.Rect:
        x0, y0 = self.origin
        return pygame.Rect(x0 + col * self.tile, y0 + row * self.tile, self.tile, self.tile)

    def cell_at(self, x: int, y: int) -> tuple[int, int] | None:
        rows, cols = self.grid_shape()
        col, row = (x - self.origin[0]) // self.tile, (y - self.origin[1]) // self.tile
        return (row, col) if 0 <= row < rows and 0 <= col < cols else None

    # ------------------------------------------------------------- drawing

    @abstractmethod
    def draw(self, surface: pygame.Surface, state: Any, previous: Any = None, alpha: float = 1.0,
             overlays: Overlays = Overlays()) -> None:
        """Draw ``state``; when ``previous`` is given, show the move from it at ``alpha`` in 0..1."""

    def animates(self, previous: Any, state: Any) -> bool:
        """True when going from ``previous`` to ``state`` has something to animate."""
        return False

    def agent_color(self, agent: str) -> tuple[int, int, int]:
        agents = list(self.world.agents)
        return sprites.agent_color(agents.index(agent)) if agent in agents else (120, 120, 120)

    def goal_color(self, goal: str) -> tuple[int, int, int] | None:
        """The colour that stands for a goal in the panels (None: a neutral palette)."""
        return None

    def status_text(self, state: Any) -> str:
        """A short score for the status bar."""
        outcome = self.world.outcome(state)
        return "solved" if outcome.get("success") else ""

    # ------------------------------------------------------------- human input

    @abstractmethod
    def action_for_key(self, key: str, state: Any, agent: str, legal: Sequence[Any]) -> Any | None:
        """The action a key press means for ``agent`` (None when the key means nothing now)."""

    #: the key that shows the next page of numbered actions (None: one page is all there is)
    page_key: str | None = None
    #: kinds of belief snapshots this view draws on the map (``Overlays.beliefs``)
    overlay_beliefs: tuple[str, ...] = ()

    def action_pages(self, legal: Sequence[Any]) -> int:
        """How many pages of numbered actions ``legal`` fills."""
        return 1

    def numbered_actions(self, legal: Sequence[Any], page: int = 0) -> list[tuple[str, Any]]:
        """The (key, action) pairs the number keys choose from on ``page``, as the action bar lists
        them: by default the first nine legal actions on keys 1-9."""
        return [(str(k + 1), action) for k, action in enumerate(legal[:9])]

    def key_bindings(self) -> list[KeyBinding]:
        return []

    # ------------------------------------------------------------- messages

    @staticmethod
    def feedback_words(world: Any, payload: Any, text: str) -> str:
        """A facilitator's suggestion as the Feedback panel and the pop-up say it: ``payload`` is the
        suggestion's data (``FeedbackEvent.feedback``), ``text`` its text. By default the text as it is;
        a world whose suggestions name places or objects in its own terms (the kitchen's grid cells)
        says them in words here. Called on the plug-in's renderer class, without a view."""
        return text

    @staticmethod
    def explanation_words(world: Any, text: str) -> str:
        """A facilitator's explanation as the panels say it (see ``feedback_words``); by default as it is."""
        return text

    def agent_anchor(self, state: Any, agent: str) -> tuple[int, int] | None:
        """The pixel above which ``agent``'s speech bubbles are drawn (None: the top strip)."""
        return None

    #: the top of the strip where bubbles without an anchor are stacked (below a board's header)
    bubble_top: int = 4
    #: when set, bubbles without an anchor are stacked upwards from this line instead (a board
    #: whose top holds what a person reads first)
    bubble_bottom: int | None = None

    def legal_cells(self, state: Any, agent: str, legal: Sequence[Any]) -> list[pygame.Rect]:
        """The rectangles the map highlights for ``agent``'s legal actions (cells it can move to,
        doors and stations it can work), in surface pixels; none by default."""
        return []

    def agent_rect(self, state: Any, agent: str) -> pygame.Rect | None:
        """The pixels ``agent`` takes on the map with a small margin (None where the world has no
        place for it): by default a tile below its ``agent_anchor``."""
        anchor = self.agent_anchor(state, agent)
        if anchor is None:
            return None
        t = max(self.tile, 24)
        return pygame.Rect(anchor[0] - t // 2 - 4, anchor[1] - 4, t + 8, t + 8)

    def keep_clear(self, state: Any, agents: Sequence[str], human: str | None = None,
                   legal: Sequence[Any] = ()) -> list[pygame.Rect]:
        """What a pop-up must not cover: ``agents`` (a human's own agent, a feedback's recipient)
        and the cells highlighted for ``human``'s legal actions, in surface pixels."""
        rects = []
        for agent in agents:
            rect = self.agent_rect(state, agent)
            if rect is not None:
                rects.append(rect)
        if human is not None and legal:
            rects += [r.inflate(4, 4) for r in self.legal_cells(state, human, legal)]
        return rects

    #: what the last frame drew that a bubble should leave in view: (rectangle, the words that name
    #: it), filled by ``draw`` (``note_salient``); a bubble keeps clear of these, above all of those
    #: its message names (the ball a false belief is about)
    salient: list[tuple[pygame.Rect, frozenset[str]]] = []

    def note_salient(self, rect: pygame.Rect, *names: str) -> None:
        """Record ``rect`` as something on the map a speech bubble should not cover, named by
        ``names`` (ids and words a message may use for it; compared without case)."""
        if "salient" not in self.__dict__:
            self.salient = []
        words = {n.lower().replace("_", " ") for n in names if n}
        self.salient.append((pygame.Rect(rect), frozenset(words)))

    def clear_salient(self) -> None:
        """Forget the last frame's ``salient`` things and caption (each ``draw`` starts with it)."""
        self.salient = []
        self.caption_box = None

    #: the believed view's caption as the last frame drew it (bubbles stacked at the top go below it)
    caption_box: pygame.Rect | None = None

    def _bubble_candidates(self, anchor: tuple[int, int], body: pygame.Rect, w: int, h: int) -> list[tuple[int, int]]:
        """Top-left corners of a bubble ``w`` x ``h`` around a speaker whose head is at ``anchor``
        and who takes ``body``: above (centred, then to either side, then higher), beside, below;
        best first when equal."""
        ax, ay = anchor
        gap = 6
        above = ay - h - gap
        spots = [(ax - w // 2, above), (ax - 16, above), (ax - w + 16, above)]
        for lift in (1, 2, 3):
            dy = lift * (h + 4)
            spots += [(ax - w // 2, above - dy), (ax - 16, above - dy), (ax - w + 16, above - dy)]
        for y in (body.centery - h // 2, body.top):
            spots += [(body.right + gap, y), (body.left - gap - w, y)]
        spots += [(ax - w // 2, body.bottom + gap), (ax - 16, body.bottom + gap), (ax - w + 16, body.bottom + gap)]
        return spots

    def bubble_place(self, state: Any, sender: str, text: str, anchor: tuple[int, int], w: int, h: int,
                     placed: Sequence[pygame.Rect], top: int) -> pygame.Rect:
        """Where ``sender``'s bubble of ``w`` x ``h`` goes: of the spots around the speaker
        (``_bubble_candidates``), kept inside the map, the one that covers least of what matters,
        weighed: the things the message names (``salient`` whose words occur in ``text``) most,
        then the agents, then the other salient things, then the distance from the speaker (a gap
        between them, more than being off-centre). Spots
        on a bubble already placed are taken only when every spot is."""
        bottom = self.hud_top if top < self.hud_top <= (self.height or self.hud_top) else (self.height or 10 ** 6)
        area = pygame.Rect(0, top, max(w + 4, self.width), max(h + 4, bottom - top))
        said = " " + " ".join(text.lower().replace("_", " ").split()) + " "
        things = []
        for rect, names in self.salient:
            named = any(f" {n} " in said or f" {n}'" in said or f" {n};" in said or f" {n}," in said
                        or f" {n}." in said for n in names)
            things.append((rect, 24.0 if named else 3.0))
        agents = list(self.world.agents) if hasattr(self.world, "agents") else []
        drawn = getattr(self, "drawn_agents", None)
        for agent in agents:
            if drawn is not None and agent not in drawn:
                continue
            for rect in self.keep_clear(state, [agent]):
                things.append((rect, 8.0 if agent == sender else 4.0))
        body = self.agent_rect(state, sender) or pygame.Rect(anchor[0] - 12, anchor[1], 24, 24)
        rects = [rect for rect, _ in things]
        speaker = pygame.Rect(anchor, (1, 1))
        best: tuple[float, int, pygame.Rect] | None = None
        for k, (x, y) in enumerate(self._bubble_candidates(anchor, body, w, h)):
            box = pygame.Rect(x, y, w, h).clamp(area)
            base, tip = self._tail(box, anchor, body)
            xs, ys = [p[0] for p in (*base, tip)], [p[1] for p in (*base, tip)]
            tail = pygame.Rect(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)
            cost = 0.0
            for i in box.collidelistall(rects):
                clip = box.clip(rects[i])
                cost += things[i][1] * clip.width * clip.height
            for i in tail.collidelistall(rects):
                if not rects[i].contains(speaker):  # the tail's strip (not the speaker it points at)
                    clip = tail.clip(rects[i])
                    cost += things[i][1] * 0.5 * clip.width * clip.height
            if any(box.colliderect(p.inflate(0, 4)) for p in placed):
                cost += 10.0 ** 9
            # near the speaker: a little for being off-centre, more for a gap (a long tail)
            gap = (max(0, body.left - box.right, box.left - body.right)
                   + max(0, body.top - box.bottom, box.top - body.bottom))
            cost += 0.3 * abs(box.centerx - anchor[0]) + 1.0 * gap
            if best is None or (cost, k) < best[:2]:
                best = (cost, k, box)
        assert best is not None
        return best[2]

    def draw_messages(self, surface: pygame.Surface, state: Any, messages: Sequence[tuple[str, str]]) -> None:
        """Speech bubbles for ``messages``: by their sender where the world has a place for it and
        the frame drew it (``bubble_place``: clear of what the message is about), else stacked along
        the top edge. The same for every world."""
        px = max(12, min(18, self.height // 40 if self.height else 14))
        top = max(2, self.bubble_top)
        stacked = max(4, self.bubble_top)
        if self.caption_box is not None and stacked < self.caption_box.bottom + 4:
            stacked = self.caption_box.bottom + 4
        rising = self.bubble_bottom
        placed: list[pygame.Rect] = []
        for sender, text in messages[-4:]:
            line = text if len(text) <= 60 else text[:57] + "..."
            label = self.text(f"{sender}: {line}", px, (25, 25, 35))
            w, h = label.get_width() + 12, label.get_height() + 8
            anchor = self.agent_anchor(state, sender)
            drawn = getattr(self, "drawn_agents", None)
            if drawn is not None and sender not in drawn:
                anchor = None  # a speaker the frame leaves out (fog of war): its bubble gives no place away
            if anchor is not None:
                box = self.bubble_place(state, sender, text, anchor, w, h, placed, top)
            else:
                if rising is not None:
                    x, y = 6, max(top, rising - h)
                    rising = y - 4
                else:
                    x, y = 6, stacked
                    stacked += h + 4
                box = pygame.Rect(x, y, w, h)
            # bubbles never cover each other: one that would is lifted above the others (or, at the
            # top edge, put below them)
            for _ in range(len(placed) + 1):
                clashes = [p for p in placed if box.colliderect(p.inflate(0, 4))]
                if not clashes:
                    break
                box.y = min(p.top for p in clashes) - h - 4
                if box.y < top:
                    break
            if box.y < top or any(box.colliderect(p.inflate(0, 4)) for p in placed):
                box.y = max([top, *(p.bottom + 4 for p in placed)])
            placed.append(box)
            x, y = box.topleft
            pygame.draw.rect(surface, (255, 253, 231), box, border_radius=6)
            pygame.draw.rect(surface, self.agent_color(sender), box, width=2, border_radius=6)
            if anchor is not None and not box.inflate(-4, -4).collidepoint(anchor):
                body = self.agent_rect(state, sender) or pygame.Rect(anchor, (1, 1))
                self._draw_tail(surface, box, anchor, body, self.agent_color(sender))
            surface.blit(label, (x + 6, y + 4))
        #: the bubbles of the last frame (tests)
        self.bubble_rects = placed

    @classmethod
    def _draw_tail(cls, surface: pygame.Surface, box: pygame.Rect, anchor: tuple[int, int], body: pygame.Rect,
                   color: tuple[int, int, int]) -> None:
        base, tip = cls._tail(box, anchor, body)
        if math.hypot(tip[0] - base[0][0], tip[1] - base[0][1]) > 3:
            pygame.draw.polygon(surface, color, [*base, tip])

    @staticmethod
    def _tail(box: pygame.Rect, anchor: tuple[int, int], body: pygame.Rect
              ) -> tuple[list[tuple[int, int]], tuple[int, int]]:
        """The bubble's tail (its base on ``box``, its tip): from the side of ``box`` nearest the
        speaker to the speaker (its head when the bubble is above, else the edge of ``body`` that
        faces the bubble)."""
        ax, ay = anchor
        if box.bottom <= ay:
            tx = max(box.left + 6, min(box.right - 6, ax))
            base, tip = [(tx - 5, box.bottom), (tx + 5, box.bottom)], (ax, ay - 2)
        elif box.top >= body.bottom - 2:
            tx = max(box.left + 6, min(box.right - 6, ax))
            base, tip = [(tx - 5, box.top), (tx + 5, box.top)], (ax, body.bottom)
        else:
            ty = max(box.top + 4, min(box.bottom - 4, body.centery))
            right = box.right <= body.centerx
            edge = box.right if right else box.left
            base, tip = [(edge, ty - 4), (edge, ty + 4)], (body.left if right else body.right, body.centery)
        return base, tip

    def draw_badges(self, surface: pygame.Surface, state: Any,
                    badges: Mapping[str, tuple[str, tuple[int, int, int]]]) -> None:
        """Badges (a ToM level) at the upper right of each agent's ``agent_anchor``, the same for
        every world; none where the world has no place for the agent, nor for an agent the last
        frame left out (``drawn_agents``, set by renderers with fog of war), so that a badge never
        gives away where an unseen agent is."""
        px = max(10, min(16, self.tile // 3))
        drawn = getattr(self, "drawn_agents", None)
        placed = []
        for agent, (text, color) in badges.items():
            if drawn is not None and agent not in drawn:
                continue
            anchor = self.agent_anchor(state, agent)
            if anchor is None:
                continue
            label = self.text(text, px, (255, 255, 255))
            w, h = label.get_width() + 8, label.get_height() + 2
            box = pygame.Rect(0, 0, w, h)
            box.midleft = (anchor[0] + max(2, self.tile // 8), anchor[1] + h // 2)
            box.clamp_ip(pygame.Rect(0, 0, self.width or surface.get_width(), self.height or surface.get_height()))
            pygame.draw.rect(surface, color, box, border_radius=h // 2)
            pygame.draw.rect(surface, (255, 255, 255), box, width=1, border_radius=h // 2)
            surface.blit(label, (box.x + 4, box.y + 1))
            placed.append(box)
        #: the badges of the last frame (tests)
        self.badge_rects = placed

    def action_label(self, action: Any) -> str:
        return str(action)

    def draw_thinking(self, surface: pygame.Surface, x: float, y: float, phase: float, size: int | None = None) -> None:
        """A thinking bubble above the tile at (``x``, ``y``) of ``size`` pixels (a tile by default):
        three dots, one lit in turn as ``phase`` runs (``Overlays.phase``)."""
        t = self.tile if size is None else size
        bubble = pygame.Rect(0, 0, int(t * 0.7), int(t * 0.34))
        bubble.midbottom = (int(x + t / 2), int(y + t * 0.05))
        pygame.draw.rect(surface, (255, 255, 255), bubble, border_radius=bubble.height // 2)
        pygame.draw.rect(surface, (90, 90, 110), bubble, 1, border_radius=bubble.height // 2)
        lit = int(phase * 3) % 3
        for k in range(3):
            cx = bubble.x + bubble.width * (k + 1) / 4
            pygame.draw.circle(surface, (40, 40, 60) if k == lit else (170, 170, 190),
                               (int(cx), bubble.centery), max(2, t // 18))

    # ------------------------------------------------------------- the believed world

    #: what the last frame drew of ``Overlays.believed`` (tests): ghosts as (thing, at, p, true),
    #: false beliefs as (thing, believed at, actually at), and the unknown places shaded
    drawn_ghosts: list[tuple[Any, ...]] = []
    drawn_wrong: list[tuple[Any, ...]] = []
    drawn_unknown: list[Any] = []

    def draw_ghost(self, surface: pygame.Surface, sprite: pygame.Surface, pos: tuple[int, int], p: float,
                   true: bool, color: tuple[int, int, int]) -> pygame.Rect:
        """A believed object: ``sprite`` translucent (as opaque as ``p``) in a dashed frame of the
        believer's colour; a false belief crossed out in red."""
        ghost = sprite.copy()
        ghost.set_alpha(int(70 + 110 * min(1.0, max(0.0, p))))
        rect = ghost.get_rect(topleft=pos)
        surface.blit(ghost, rect)
        frame = rect.inflate(4, 4)
        dash = max(3, rect.width // 6)
        for x in range(frame.left, frame.right, dash * 2):
            pygame.draw.line(surface, color, (x, frame.top), (min(x + dash, frame.right), frame.top), 2)
            pygame.draw.line(surface, color, (x, frame.bottom - 1), (min(x + dash, frame.right), frame.bottom - 1), 2)
        for y in range(frame.top, frame.bottom, dash * 2):
            pygame.draw.line(surface, color, (frame.left, y), (frame.left, min(y + dash, frame.bottom)), 2)
            pygame.draw.line(surface, color, (frame.right - 1, y), (frame.right - 1, min(y + dash, frame.bottom)), 2)
        if not true:
            self.draw_cross(surface, rect)
        return rect

    def draw_cross(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        """A red cross over ``rect``: this belief is false."""
        width = max(2, rect.width // 8)
        pygame.draw.line(surface, WRONG_RED, rect.topleft, rect.bottomright, width)
        pygame.draw.line(surface, WRONG_RED, rect.topright, rect.bottomleft, width)

    def draw_belief_arrow(self, surface: pygame.Surface, start: tuple[int, int], end: tuple[int, int]) -> None:
        """A thin red arrow from where a thing is believed to be to where it is."""
        (x0, y0), (x1, y1) = start, end
        if abs(x1 - x0) + abs(y1 - y0) < 4:
            return
        width = max(2, self.tile // 14)
        dash = max(4, self.tile // 5)
        length = math.hypot(x1 - x0, y1 - y0)
        ux, uy = (x1 - x0) / length, (y1 - y0) / length
        d = 0.0
        while d < length - dash:
            a = (x0 + ux * d, y0 + uy * d)
            b = (x0 + ux * min(length, d + dash), y0 + uy * min(length, d + dash))
            pygame.draw.line(surface, WRONG_RED, a, b, width)
            d += dash * 1.8
        head = max(6, self.tile // 4)
        angle = math.atan2(uy, ux)
        pygame.draw.polygon(surface, WRONG_RED, [(x1, y1), (x1 - head * math.cos(angle - 0.45), y1 - head * math.sin(angle - 0.45)),
                                                 (x1 - head * math.cos(angle + 0.45), y1 - head * math.sin(angle + 0.45))])

    def draw_unknown(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        """Shade ``rect``: the believer has never seen what is there (grey diagonal hatching)."""
        layer = pygame.Surface(rect.size, pygame.SRCALPHA)
        layer.fill((60, 64, 80, 120))
        step = max(5, min(rect.width, rect.height) // 5 if min(rect.width, rect.height) < 60 else 10)
        for k in range(-rect.height, rect.width, step):
            pygame.draw.line(layer, (200, 204, 216, 110), (k, rect.height), (k + rect.height, 0), 1)
        surface.blit(layer, rect)

    def draw_believed_caption(self, surface: pygame.Surface, believed: Any) -> None:
        """The view's name at the top left: whose beliefs the map shows, and how many are false."""
        wrong = len(getattr(believed, "wrong", ()))
        text = believed.title + (f"  ·  {wrong} false" if wrong else "  ·  nothing false" if believed.reported
                                 else "  ·  nothing reported yet")
        label = self.text(text, max(12, min(18, (self.height or 400) // 40)), (255, 255, 255))
        box = pygame.Rect(4, 4, label.get_width() + 12, label.get_height() + 6)
        layer = pygame.Surface(box.size, pygame.SRCALPHA)
        layer.fill((90, 40, 120, 215))
        surface.blit(layer, box)
        surface.blit(label, (box.x + 6, box.y + 3))
        self.caption_box = box

    # ------------------------------------------------------------- text

    def font(self, px: int) -> pygame.font.Font:
        px = max(8, int(px))
        f = self._fonts.get(px)
        if f is None:
            if not pygame.font.get_init():
                pygame.font.init()
            f = self._fonts[px] = pygame.font.Font(None, px)
        return f

    def text(self, text: str, px: int, color: tuple[int, ...]) -> pygame.Surface:
        key = (text, int(px), tuple(color))
        surf = self._texts.get(key)
        if surf is None:
            if len(self._texts) > 512:
                self._texts.clear()
            surf = self._texts[key] = self.font(px).render(text, True, color)
        return surf
