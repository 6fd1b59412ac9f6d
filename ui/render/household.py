"""The view of the household (sim/household): rooms drawn to scale from their centres and sizes,
doors, furniture and receptacles as cards holding their objects, containers with their contents,
agents with what is in their two hands, and a strip with the task's progress and what each
agent is doing.

Drawn with one seat's eyes (``Overlays.viewer``) only what ``world.observe(state, viewer)``
reveals is drawn: the layout stays, other rooms are dimmed and empty, a room not yet explored
shows no objects, closed receptacles hide their contents, partners show only in the same room.

A household seat has many discrete actions (walk to a room, explore, grab X, put X on Y...), so a
person picks them by number: 1-9 choose from the page of legal actions shown on the map and in
the window's action bar (``numbered_actions``), 0 shows the next page (``page_key``; the window
keeps the page in ``Overlays.page``), Space waits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pygame

from sim.household.world import HouseholdState, HouseholdWorld
from ui.beliefs.words import split_compound
from ui.render import sprites
from ui.render.base import KeyBinding, Overlays, SpriteBook, WorldRenderer

PAGE = 9
#: objects drawn at least this many pixels wide get a label under them
LABELLED = 8
#: room kind -> floor colour
ROOM_FLOORS = {"kitchen": (232, 226, 208), "livingroom": (214, 190, 156), "bedroom": (200, 214, 230),
               "bathroom": (206, 230, 232), "office": (222, 222, 214)}
WALL = (62, 68, 80)
GOAL_GOLD = (236, 180, 24)


def _ease(alpha: float) -> float:
    return 1 - (1 - alpha) ** 2


def short_place(place_id: str, room: str) -> str:
    """``kitchen_cabinet2`` in the kitchen reads ``cabinet2``."""
    return place_id[len(room) + 1:] if place_id.startswith(room + "_") else place_id


class HouseholdRenderer(WorldRenderer):
    family = "household"
    world: HouseholdWorld

    def __init__(self, world: HouseholdWorld) -> None:
        super().__init__(world)
        self.book = SpriteBook(32)
        xs = [(x - w / 2, x + w / 2) for (x, _), (w, _) in zip(world.room_xy, world.room_size)]
        ys = [(y - h / 2, y + h / 2) for (_, y), (_, h) in zip(world.room_xy, world.room_size)]
        self.min_x, self.max_x = min(a for a, _ in xs), max(b for _, b in xs)
        self.min_y, self.max_y = min(a for a, _ in ys), max(b for _, b in ys)
        self._tokens: dict[tuple[str, int], pygame.Surface] = {}
        #: the world's labels and names of objects and places (they never change)
        self._labels: dict[int, str] = {}
        self._names: dict[tuple[str, int], tuple[str, ...]] = {}
        #: what the last frame drew, for tests: object ids and agents
        self.drawn_objects: set[str] = set()
        #: ... the label written under each object: object id -> (text, where)
        self.drawn_labels: dict[str, tuple[str, pygame.Rect]] = {}
        #: the action page the last frame showed: (page, pages), or None
        self.drawn_page: tuple[int, int] | None = None
        self.drawn_agents: list[str] = []

    # ------------------------------------------------------------- layout (one tile = one metre)

    def grid_shape(self) -> tuple[int, int]:
        return (math.ceil(self.max_y - self.min_y + 0.6), math.ceil(self.max_x - self.min_x + 0.6))

    def hud_height(self, height: int) -> int:
        lines = 1 + len(self.world.agents)
        return max(18 * lines, min(24 * lines, height // 4))

    def on_layout(self) -> None:
        self.book = SpriteBook(max(8, self.tile))

    def room_rect(self, r: int) -> pygame.Rect:
        (x, y), (w, h) = self.world.room_xy[r], self.world.room_size[r]
        t = self.tile
        left = self.origin[0] + (x - w / 2 - self.min_x + 0.3) * t
        top = self.origin[1] + (y - h / 2 - self.min_y + 0.3) * t
        return pygame.Rect(round(left), round(top), round(w * t), round(h * t))

    def _place_cards(self, r: int) -> tuple[dict[int, pygame.Rect], pygame.Rect]:
        """Rectangles of the room's furniture (floor excluded) and of its floor band."""
        w = self.world
        room = self.room_rect(r).inflate(-8, -8)
        header = max(12, int(self.tile * 0.45))
        body = pygame.Rect(room.x, room.y + header, room.width, room.height - header)
        band = max(int(body.height * 0.3), 18)
        cards_area = pygame.Rect(body.x, body.y, body.width, body.height - band)
        floor = pygame.Rect(body.x, cards_area.bottom, body.width, band)
        places = [p for p in w.places_in_room[r] if w.places[p].kind != "floor"]
        n = max(1, len(places))
        cols = max(1, min(n, round(math.sqrt(n * cards_area.width / max(1, cards_area.height)))))
        rows = math.ceil(n / cols)
        cw, ch = cards_area.width // cols, cards_area.height // rows
        cards = {p: pygame.Rect(cards_area.x + (k % cols) * cw + 2, cards_area.y + (k // cols) * ch + 2, cw - 4, ch - 4)
                 for k, p in enumerate(places)}
        return cards, floor

    # ------------------------------------------------------------- what is shown

    def _shown(self, state: HouseholdState, viewer: str | None) -> tuple[set[int], set[int], int | None]:
        """(objects drawn, agents drawn, the viewer's room) with everything or one seat's eyes."""
        w = self.world
        if viewer is None or viewer not in w.agent_index:
            return set(range(len(w.objects))), set(range(len(w.agents))), None
        obs = w.observe(state, viewer)
        objects = {w.object_index[o.id] for o in obs.objects}
        agents = {w.agent_index[viewer]} | {w.agent_index[a] for a, _ in obs.partners}
        return objects, agents, w.room_index[obs.room]

    def animates(self, previous: Any, state: Any) -> bool:
        return previous is not None and previous.rooms != state.rooms

    # ------------------------------------------------------------- drawing

    def draw(self, surface: pygame.Surface, state: HouseholdState, previous: HouseholdState | None = None,
             alpha: float = 1.0, overlays: Overlays = Overlays()) -> None:
        if surface.get_size() != (self.width, self.height):
            self.layout(*surface.get_size())
        w = self.world
        surface.fill((30, 34, 44))
        self.drawn_objects = set()
        self.drawn_labels = {}
        self.clear_salient()
        self.drawn_page = None
        viewer = overlays.viewer if overlays.viewer in w.agent_index else None
        shown_objects, shown_agents, viewer_room = self._shown(state, viewer)
        goal_places = self._goal_places()

        for r in range(len(w.room_ids)):
            self._draw_room(surface, state, r, shown_objects, goal_places, viewer, viewer_room)
        self._draw_doors(surface)
        if viewer_room is not None:
            fog = pygame.Surface((1, 1), pygame.SRCALPHA)
            for r in range(len(w.room_ids)):
                if r != viewer_room:
                    rect = self.room_rect(r)
                    layer = pygame.transform.scale(fog, rect.size)
                    layer.fill((18, 22, 30, 150))
                    surface.blit(layer, rect)
        self._draw_agents(surface, state, previous, alpha, shown_objects, shown_agents, overlays)
        self.drawn_ghosts, self.drawn_wrong, self.drawn_unknown = [], [], []
        if overlays.believed is not None:
            self._draw_believed(surface, state, overlays.believed, shown_objects)
        self._draw_hud(surface, state, shown_agents, viewer)
        if overlays.believed is not None:
            self.draw_believed_caption(surface, overlays.believed)
        if overlays.human is not None and overlays.legal:
            self._draw_action_page(surface, overlays.human, overlays.legal, overlays.page)

    def _goal_places(self) -> dict[int, str]:
        """Place -> what the task wants there."""
        w = self.world
        if w.task == "transport" and w.goal_place is not None:
            return {w.goal_place: "goal"}
        wanted: dict[int, list[str]] = {}
        for _relation, cls, place, count in w.predicates:
            wanted.setdefault(place, []).append(f"{count} {cls}")
        return {p: "needs " + ", ".join(v) for p, v in wanted.items()}

    def _draw_room(self, surface: pygame.Surface, state: HouseholdState, r: int, shown_objects: set[int],
                   goal_places: dict[int, str], viewer: str | None, viewer_room: int | None) -> None:
        w, t = self.world, self.tile
        rect = self.room_rect(r)
        pygame.draw.rect(surface, ROOM_FLOORS.get(w.room_kind[r], (226, 222, 214)), rect)
        pygame.draw.rect(surface, WALL, rect, max(3, t // 8))
        px = max(11, int(t * 0.42))
        label = self.text(w.room_ids[r], px, (40, 44, 56))
        surface.blit(label, (rect.x + 7, rect.y + 5))
        if viewer is not None and r == viewer_room and not (state.explored[w.agent_index[viewer]] >> r & 1):
            note = self.text("not explored: objects unseen", max(10, px - 2), (150, 60, 40))
            surface.blit(note, (rect.right - note.get_width() - 7, rect.y + 5))
        cards, floor = self._place_cards(r)
        token = max(8, min(int(t * 0.62), 40))
        for p, card in cards.items():
            self._draw_card(surface, state, p, card, token, shown_objects, goal_places.get(p), viewer)
        floor_place = next((p for p in w.places_in_room[r] if w.places[p].kind == "floor"), None)
        if floor_place is not None:
            things = [o for o, loc in enumerate(state.locs) if loc == floor_place and o in shown_objects]
            x = floor.x + 4
            for o in things:
                x += self._draw_object(surface, state, o, x, floor.y + 4, token, shown_objects, viewer) + 3

    def _draw_card(self, surface: pygame.Surface, state: HouseholdState, p: int, card: pygame.Rect, token: int,
                   shown_objects: set[int], goal: str | None, viewer: str | None) -> None:
        w = self.world
        place = w.places[p]
        opened = w._is_open(state, p)
        pygame.draw.rect(surface, (250, 250, 246), card, border_radius=6)
        pygame.draw.rect(surface, GOAL_GOLD if goal else (190, 186, 176), card, 3 if goal else 1, border_radius=6)
        px = max(10, min(16, card.height // 5))
        name = short_place(place.id, w.room_ids[place.room])
        label = self.fit(name, px, (60, 64, 72), card.width - 8)
        surface.blit(label, (card.x + 4, card.y + 2))
        art = max(8, min(card.height - label.get_height() - 6, int(card.width * 0.45)))
        if place.kind == "receptacle":
            shape = sprites.RECEPTACLE_SHAPES.get(place.cls, "cabinet")
            sprite = self.book.get(f"hh-{shape}-{'open' if opened else 'closed'}", art)
        else:
            shape = sprites.SURFACE_SHAPES.get(place.cls, "table")
            sprite = self.book.get(f"hh-{shape}", art)
        surface.blit(sprite, (card.x + 2, card.bottom - art - 2))
        self.note_salient(pygame.Rect(card.x + 2, card.bottom - art - 2, art, art), *self.place_names(p))
        below = card.y + 2 + label.get_height()
        if goal:
            tag = self.fit(goal, max(9, px - 2), (150, 100, 0), card.width - 8)
            surface.blit(tag, (card.x + 4, below))
            below += tag.get_height()
        if place.label:  # what the label says it holds (it may hold something else)
            tag = self.fit(f'"{place.label}"', max(9, px - 2), (90, 60, 140), card.width - 8)
            surface.blit(tag, (card.x + 4, below))
        things = [o for o, loc in enumerate(state.locs) if loc == p]
        hidden = place.openable and not opened
        if viewer is not None:
            things = [o for o in things if o in shown_objects]
        area = pygame.Rect(card.x + art + 6, card.y + 2 + label.get_height(), 0, 0)
        area.width, area.height = card.right - 2 - area.x, card.bottom - 3 - area.y
        room, within = card.width - 6, (card.x + 3, card.right - 3)  # a label may reach over the furniture
        size, spots = self._flow(things, token, area, room)
        if things and size < 16:  # crowded beside the furniture: over it too (the card's whole width)
            wide = pygame.Rect(card.x + 4, area.y, card.width - 6, area.height)
            wide_size, wide_spots = self._flow(things, token, wide, room)
            if wide_size > size:
                size, spots = wide_size, wide_spots
        clip = surface.get_clip()
        surface.set_clip(card.clip(clip) if clip else card)
        for o, (x, y, slot) in zip(things, spots):
            self._draw_object(surface, state, o, x, y, size, shown_objects, viewer, dim=hidden, room=room,
                              slot=slot, within=within)
        surface.set_clip(clip)

    def _flow(self, things: Sequence[int], token: int, area: pygame.Rect, room: int
              ) -> tuple[int, list[tuple[int, int, int]]]:
        """Objects laid out in rows from the bottom of ``area`` up, each with its label (in at most
        ``room`` pixels; one wider than ``area`` takes a row of its own): (size, [(x, y, slot)]) at
        the largest size up to ``token`` at which they all fit (the smallest when none does)."""
        size = token
        while True:
            row = size + self.label_height(size) + 2
            spots, x, y = [], area.x, area.bottom - row + 2
            for o in things:
                slot = min(self.slot_width(o, size, room), max(size, area.width))
                if x + slot > area.right and x > area.x:
                    x, y = area.x, y - row
                spots.append((x, y, slot))
                x += slot + 3
            if not spots or spots[-1][1] >= area.y or size <= 10:
                return size, spots
            size = max(10, size - 2)

    def object_label(self, o: int) -> str:
        """The word under object ``o`` on the map: its class's short name, and its number when
        other objects share the class ("ball", "cup 1", "cup 2"; as the belief rows name them)."""
        found = self._labels.get(o)
        if found is None:
            w = self.world
            obj = w.objects[o]
            same = [k for k, other in enumerate(w.objects) if other.cls == obj.cls]
            found = word = sprites.short_name(obj.cls)
            if len(same) > 1:
                digits = obj.id.rsplit("_", 1)[-1]
                found = f"{word} {digits if digits.isdigit() else same.index(o) + 1}"
            self._labels[o] = found
        return found

    def label_px(self, size: int) -> int:
        return max(14, min(16, int(size * 0.55)))

    def label_height(self, size: int) -> int:
        """The height of the label strip under an object of ``size`` (0: too small to label)."""
        return self.font(self.label_px(size)).get_linesize() + 1 if size >= LABELLED else 0

    def label_text(self, o: int, size: int, room: int | None = None) -> str:
        """``object_label`` as it fits ``room`` pixels: the class's word cut short, the number kept."""
        text = self.object_label(o)
        if room is None:
            return text
        word, _, number = text.partition(" ")
        while len(word) > 2 and self.text(text, self.label_px(size), (20, 24, 32)).get_width() + 4 > room:
            word = word[:-1]
            text = f"{word}. {number}".rstrip() if number else f"{word}."
        return text

    def slot_width(self, o: int, size: int, room: int | None = None) -> int:
        """The width an object of ``size`` takes on the map with its label (in at most ``room``)."""
        if size < LABELLED:
            return size
        label = self.text(self.label_text(o, size, room), self.label_px(size), (20, 24, 32))
        return max(size, label.get_width() + 4)

    def _draw_label(self, surface: pygame.Surface, o: int, cx: int, top: int, size: int,
                    dim: bool = False, room: int | None = None, within: tuple[int, int] | None = None) -> pygame.Rect:
        """Object ``o``'s label centred under (``cx``, ``top``), dark on a light plate, in at most
        ``room`` pixels and moved inside ``within`` (left, right) when it is given."""
        text = self.label_text(o, size, room)
        label = self.text(text, self.label_px(size), (20, 24, 32))
        plate = pygame.Rect(0, 0, label.get_width() + 4, label.get_height())
        plate.midtop = (cx, top)
        if within is not None:
            plate.right = min(plate.right, within[1])
            plate.left = max(plate.left, within[0])
        layer = pygame.Surface(plate.size, pygame.SRCALPHA)
        layer.fill((255, 255, 255, 120 if dim else 215))
        surface.blit(layer, plate)
        surface.blit(label, (plate.x + 2, plate.y))
        clip = surface.get_clip()  # what shows of it (a card clips what does not fit)
        self.drawn_labels[self.world.objects[o].id] = (text, plate.clip(clip) if clip else plate)
        return plate

    def object_names(self, o: int) -> tuple[str, ...]:
        """The words a message may use for object ``o`` (its id, its class, its label)."""
        key = ("object", o)
        if key not in self._names:
            obj = self.world.objects[o]
            self._names[key] = (obj.id, obj.cls, split_compound(obj.cls), self.object_label(o))
        return self._names[key]

    def place_names(self, p: int) -> tuple[str, ...]:
        key = ("place", p)
        if key not in self._names:
            place = self.world.places[p]
            short = short_place(place.id, self.world.room_ids[place.room])
            self._names[key] = (place.id, short, split_compound(short), place.cls, split_compound(place.cls))
        return self._names[key]

    def _draw_object(self, surface: pygame.Surface, state: HouseholdState, o: int, x: int, y: int, size: int,
                     shown_objects: set[int], viewer: str | None, dim: bool = False, labelled: bool = True,
                     room: int | None = None, slot: int | None = None,
                     within: tuple[int, int] | None = None) -> int:
        """An object with its label under it (``object_label``); a target with a gold ring; a
        container with its contents below it. Returns the width it took."""
        w = self.world
        obj = w.objects[o]
        self.drawn_objects.add(obj.id)
        if obj.kind == "container":
            sprite = self.book.get(f"hh-container-{sprites.CONTAINER_SHAPES.get(obj.cls, 'basket')}", size)
        else:
            sprite = self._object_sprite(obj.cls, size)
        if dim:  # inside a closed receptacle, drawn only when everything is shown
            sprite = sprite.copy()
            sprite.set_alpha(110)
        if obj.kind == "target":
            pygame.draw.circle(surface, GOAL_GOLD, (x + size // 2, y + size // 2), size // 2 + 1, max(1, size // 12))
        if slot is None:
            slot = self.slot_width(o, size, room) if labelled else size
        left = x + (slot - size) // 2
        surface.blit(sprite, (left, y))
        taken = pygame.Rect(left, y, size, size)
        if labelled and size >= LABELLED:
            taken.union_ip(self._draw_label(surface, o, left + size // 2, y + size + 1, size, dim, room, within))
        self.note_salient(taken, *self.object_names(o))
        if obj.kind == "container":
            inside = [c for c in w.contents(state, o) if viewer is None or c in shown_objects]
            mini = max(6, size // 2)
            for k, c in enumerate(inside[:3]):
                self._draw_object(surface, state, c, left + k * (mini - 2), y + size - mini // 2, mini, shown_objects,
                                  viewer, dim, labelled=False)
        return slot

    def location_point(self, state: HouseholdState, at: str) -> tuple[int, int] | None:
        """The pixel of a location (a place's card, a container's place, an agent's hands)."""
        w = self.world
        if at.startswith("agent:"):
            return self.agent_anchor(state, at[6:])
        if at in w.object_index:
            return self.location_point(state, w.where(state, w.object_index[at]))
        if at in w.place_index:
            p = w.place_index[at]
            cards, floor = self._place_cards(w.places[p].room)
            return (cards[p] if p in cards else floor).center
        return None

    def _draw_believed(self, surface: pygame.Surface, state: HouseholdState, believed: Any,
                       shown_objects: set[int]) -> None:
        """The *As X believes it* view (``ui.beliefs.view``): rooms not believed explored hatched;
        each object where the mind believes it, as a ghost at the top of that place's card
        (objects in view where they are believed are drawn solid already); a false belief crossed
        out, with a red arrow to where the object is."""
        w = self.world
        for rid in believed.unknown:
            if rid in w.room_index:
                rect = self.room_rect(w.room_index[rid])
                self.draw_unknown(surface, rect)
                note = self.text("unexplored (as believed)", max(10, int(self.tile * 0.36)), (255, 255, 255))
                surface.blit(note, (rect.x + 7, rect.bottom - note.get_height() - 6))
                self.drawn_unknown.append(rid)
        color = self.agent_color(believed.about) if believed.about in w.agent_index else self.agent_color(believed.holder)
        size = max(10, min(int(self.tile * 0.55), 30))
        slots: dict[str, int] = {}
        for ghost in believed.ghosts:
            o = w.object_index.get(ghost.thing)
            if o is None or (ghost.true and o in shown_objects):
                continue
            at = ghost.at
            if at.startswith("agent:"):
                anchor = self.agent_anchor(state, at[6:])
                if anchor is None:
                    continue
                k = slots.get(at, 0)
                pos = (anchor[0] - size // 2 + k * (size + 3), anchor[1] - size - 4)
            else:
                place = at if at in w.place_index else w.where(state, w.object_index[at]) if at in w.object_index else None
                if place is None or place not in w.place_index:
                    continue
                p = w.place_index[place]
                cards, floor = self._place_cards(w.places[p].room)
                card = cards.get(p, floor)
                k = slots.get(place, 0)
                per_row = max(1, (card.width - 8) // (size + 3))
                top = card.y + max(12, min(18, card.height // 5)) + 4  # under the card's name
                pos = (card.right - 4 - (k % per_row + 1) * (size + 3), top + (k // per_row) * (size + 3))
                at = place
            slots[at] = slots.get(at, 0) + 1
            obj = w.objects[o]
            sprite = (self.book.get(f"hh-container-{sprites.CONTAINER_SHAPES.get(obj.cls, 'basket')}", size)
                      if obj.kind == "container" else self._object_sprite(obj.cls, size))
            box = self.draw_ghost(surface, sprite, pos, ghost.p, ghost.true, color)
            taken = box.inflate(4, 4)
            if size >= LABELLED:  # which thing the ghost is, under it
                taken.union_ip(self._draw_label(surface, o, box.centerx, box.bottom + 3, size))
            self.note_salient(taken, *self.object_names(o))
            self.drawn_ghosts.append((ghost.thing, ghost.at, ghost.p, ghost.true))
            if not ghost.true:
                self.drawn_wrong.append((ghost.thing, ghost.at, ghost.actual))
                end = self.location_point(state, ghost.actual) if ghost.actual else None
                if end is not None:
                    self.draw_belief_arrow(surface, box.center, end)

    def fit(self, text: str, px: int, color: tuple[int, int, int], width: int) -> pygame.Surface:
        """``text`` rendered, shortened with an ellipsis to at most ``width`` pixels."""
        surf = self.text(text, px, color)
        while surf.get_width() > width and len(text) > 1:
            text = text[:-1]
            surf = self.text(text.rstrip() + "…", px, color)
        return surf

    def _object_sprite(self, cls: str, size: int) -> pygame.Surface:
        if cls in sprites.OBJECT_LOOKS:
            return self.book.get(f"hh-object-{cls}", size)
        key = (cls, size)  # a class without a drawing of its own: a disc of a steady colour
        surf = self._tokens.get(key)
        if surf is None:
            surf = self._tokens[key] = sprites.object_sprite(size, *sprites.object_look(cls))
        return surf

    def _draw_doors(self, surface: pygame.Surface) -> None:
        """A gap in the shared wall of two rooms (or a line between their centres when they do
        not touch)."""
        t = self.tile
        for a, b in self.world.doors:
            ra, rb = self.room_rect(a), self.room_rect(b)
            door = max(6, int(t * 1.1))
            thick = max(5, t // 4)
            if abs(ra.right - rb.left) <= 2 or abs(rb.right - ra.left) <= 2:
                x = ra.right if abs(ra.right - rb.left) <= 2 else ra.left
                lo, hi = max(ra.top, rb.top), min(ra.bottom, rb.bottom)
                rect = pygame.Rect(x - thick, (lo + hi) // 2 - door // 2, thick * 2, door)
            elif abs(ra.bottom - rb.top) <= 2 or abs(rb.bottom - ra.top) <= 2:
                y = ra.bottom if abs(ra.bottom - rb.top) <= 2 else ra.top
                lo, hi = max(ra.left, rb.left), min(ra.right, rb.right)
                rect = pygame.Rect((lo + hi) // 2 - door // 2, y - thick, door, thick * 2)
            else:
                pygame.draw.line(surface, (139, 94, 60), ra.center, rb.center, max(2, t // 8))
                continue
            pygame.draw.rect(surface, (196, 160, 116), rect)
            pygame.draw.rect(surface, (139, 94, 60), rect, max(1, t // 16))

    def agent_point(self, state: HouseholdState, i: int, previous: HouseholdState | None = None,
                    alpha: float = 1.0) -> tuple[float, float]:
        """Top-left pixel of agent ``i``: in its room's floor band, agents side by side; walking
        between rooms animates along the straight line."""
        def spot(s: HouseholdState) -> tuple[float, float]:
            r = s.rooms[i]
            _, floor = self._place_cards(r)
            size = self._agent_size(floor)
            here = [j for j in range(len(self.world.agents)) if s.rooms[j] == r]
            k = here.index(i)
            hand = max(8, int(size * 0.48))
            # side by side with room for both hands and the labels under them
            slot = min(size + int(hand * 0.7) + 20, max(size + 6, floor.width // len(here)))
            return (floor.right - (len(here) - k) * slot + int(hand * 0.35) + 8,
                    floor.bottom - size - 2 - self.label_height(hand))
        x, y = spot(state)
        if previous is not None and alpha < 1 and previous.rooms[i] != state.rooms[i]:
            px, py = spot(previous)
            e = _ease(alpha)
            x, y = px + (x - px) * e, py + (y - py) * e
        return x, y

    def _agent_size(self, floor: pygame.Rect) -> int:
        """An agent's size in a floor band: as tall as it allows under the labels of its hands."""
        size = max(10, min(floor.height - 4, int(self.tile * 1.3)))
        return max(10, min(size, floor.height - 4 - self.label_height(max(8, int(size * 0.48)))))

    def _draw_agents(self, surface: pygame.Surface, state: HouseholdState, previous: HouseholdState | None,
                     alpha: float, shown_objects: set[int], shown_agents: set[int], overlays: Overlays) -> None:
        w = self.world
        self.drawn_agents = [agent for i, agent in enumerate(w.agents) if i in shown_agents]
        for i, agent in enumerate(w.agents):
            if i not in shown_agents:
                continue
            _, floor = self._place_cards(state.rooms[i])
            size = self._agent_size(floor)
            x, y = self.agent_point(state, i, previous, alpha)
            if overlays.human == agent:
                pygame.draw.circle(surface, (40, 200, 90), (int(x + size / 2), int(y + size / 2)), size // 2 + 3, 3)
            surface.blit(self.book.get(f"agent-{i % len(sprites.AGENT_COLORS)}", size), (x, y))
            hand = max(8, int(size * 0.48))
            for h, o in enumerate(state.hands[i]):
                if o < 0:
                    continue
                hx = x - hand * 0.35 if h == 0 else x + size - hand * 0.65
                pygame.draw.circle(surface, (255, 255, 255), (int(hx + hand / 2), int(y + size * 0.55 + hand / 2)), hand // 2 + 2)
                self._draw_object(surface, state, o, int(hx), int(y + size * 0.55), hand, shown_objects, overlays.viewer,
                                  labelled=False)
                if hand >= LABELLED:  # the label under the hand, outside the agent's name plate
                    middle = int(x + size / 2)  # each hand's label on its own side of the agent
                    side = (middle - int(size / 2 + hand * 0.35) - 10, middle - 1) if h == 0 else \
                        (middle + 1, middle + int(size / 2 + hand * 0.35) + 10)
                    plate = self._draw_label(surface, o, int(hx + hand / 2), int(y + size * 0.55 + hand + 3), hand,
                                             room=side[1] - side[0], within=side)
                    self.note_salient(plate, *self.object_names(o))
            name = self.text(agent, max(10, int(size * 0.34)), (255, 255, 255))
            plate = pygame.Rect(0, 0, name.get_width() + 6, name.get_height() + 1)
            plate.midbottom = (int(x + size / 2), int(y + size + 2))
            pygame.draw.rect(surface, sprites.agent_color(i), plate, border_radius=4)
            surface.blit(name, (plate.x + 3, plate.y + 1))
            pending = state.pending[i]
            if pending is not None and pending[0].startswith("walk "):
                arrow = self.text("→ " + pending[0][5:], max(10, int(size * 0.3)), (30, 90, 180))
                surface.blit(arrow, (int(x + size / 2 - arrow.get_width() / 2), int(y - arrow.get_height())))
            if agent in overlays.thinking:
                self.draw_thinking(surface, x, y, overlays.phase, size)

    def _draw_hud(self, surface: pygame.Surface, state: HouseholdState, shown_agents: set[int],
                  viewer: str | None) -> None:
        w = self.world
        hud = self.hud_height(self.height)
        top = self.hud_top
        pygame.draw.rect(surface, (24, 28, 36), (0, top, self.width, self.height - top))
        lines = 1 + len(w.agents)
        line = hud // lines
        px = max(12, min(20, int(line * 0.8)))
        unit = "frame" if w.task == "transport" else "step"
        progress = w.progress(state)
        if w.task == "transport":
            head = f"transport: {progress}/{w.total_goals} targets on {w.goal[0]}"
        else:
            parts = []
            for relation, cls, place, count in w.predicates:
                there = sum(1 for o, loc in enumerate(state.locs) if loc == place and w.objects[o].cls == cls)
                parts.append(f"{relation} {cls} {w.places[place].id} {min(there, count)}/{count}")
            head = f"goals {progress}/{w.total_goals}: " + ", ".join(parts)
        clock = self.text(f"{unit} {state.time}/{w.budget}   decision {state.t}" + ("   over" if w.done(state) else ""),
                          px, (216, 222, 233))
        surface.blit(clock, (self.width - clock.get_width() - 8, top + 2))
        first = self.fit(head, px, (236, 239, 244), self.width - clock.get_width() - 24)
        surface.blit(first, (8, top + 2))
        for i, agent in enumerate(w.agents):
            y = top + 2 + (i + 1) * line
            pygame.draw.circle(surface, sprites.agent_color(i), (14, y + px // 2 - 1), px // 3)
            if i not in shown_agents:
                text = f"{agent}: not in sight"
            else:
                hands = [w.objects[o].id if o >= 0 else "—" for o in state.hands[i]]
                pending = state.pending[i]
                doing = f"doing {pending[0]!r} until {pending[1]}" if pending is not None else "choosing"
                failed = f"; last action failed: {state.last[i]}" if state.last[i] else ""
                text = f"{agent} holds [{', '.join(hands)}], {w.room_ids[state.rooms[i]]}, {doing}{failed}"
            surface.blit(self.text(text, px, (216, 222, 233)), (26, y))

    def _draw_action_page(self, surface: pygame.Surface, agent: str, legal: Sequence[Any], page: int) -> None:
        """The numbered actions the digit keys choose from now, in a box at the top right."""
        pages = self.action_pages(legal)
        page %= pages
        start = page * PAGE
        px = max(12, min(17, self.height // 40))
        lines = [f"{agent}: actions {start + 1}-{min(len(legal), start + PAGE)} of {len(legal)}"
                 + (f"  (0: page {(page + 1) % pages + 1}/{pages})" if pages > 1 else "")]
        lines += [f"[{key}] {action}" for key, action in self.numbered_actions(legal, page)]
        self.drawn_page = (page, pages)
        rendered = [self.text(s, px, (30, 34, 44) if k else (27, 94, 32)) for k, s in enumerate(lines)]
        width = max(s.get_width() for s in rendered) + 14
        height = sum(s.get_height() + 2 for s in rendered) + 10
        box = self._action_box_place(width, height)
        #: where the box went in the last frame (tests)
        self.action_box = box
        layer = pygame.Surface(box.size, pygame.SRCALPHA)
        layer.fill((232, 245, 233, 235))
        surface.blit(layer, box)
        pygame.draw.rect(surface, (40, 160, 80), box, 2, border_radius=6)
        y = box.y + 5
        for s in rendered:
            surface.blit(s, (box.x + 7, y))
            y += s.get_height() + 2

    def captions(self) -> list[pygame.Rect]:
        """The strips where the rooms' names are written."""
        px = max(11, int(self.tile * 0.42))
        return [pygame.Rect(rect.x, rect.y, rect.width, px + 12)
                for rect in (self.room_rect(r) for r in range(len(self.world.room_ids)))]

    def _action_box_place(self, width: int, height: int) -> pygame.Rect:
        """A corner of the view for the action box where it covers no room's name (the top right
        when it fits; else the corner that covers the fewest)."""
        bottom = (self.hud_top if 0 < self.hud_top <= self.height else self.height) - height - 8
        corners = [(self.width - width - 8, 8), (self.width - width - 8, bottom), (8, bottom), (8, 8)]
        captions = self.captions()
        boxes = [pygame.Rect(max(0, x), max(0, y), width, height) for x, y in corners]
        return min(boxes, key=lambda b: sum(1 for c in captions if b.colliderect(c)))

    def status_text(self, state: HouseholdState) -> str:
        w = self.world
        done = w.progress(state)
        return f"goals {done}/{w.total_goals}" + ("  ·  done" if done >= w.total_goals else "")

    # ------------------------------------------------------------- human input

    page_key = "0"

    def action_pages(self, legal: Sequence[Any]) -> int:
        return max(1, math.ceil(len(legal) / PAGE))

    def numbered_actions(self, legal: Sequence[Any], page: int = 0) -> list[tuple[str, Any]]:
        """Nine legal actions per page on keys 1-9 (pages wrap round)."""
        start = (page % self.action_pages(legal)) * PAGE
        return [(str(k + 1), action) for k, action in enumerate(legal[start:start + PAGE])]

    def agent_anchor(self, state: HouseholdState, agent: str) -> tuple[int, int] | None:
        i = self.world.agent_index.get(agent)
        if i is None:
            return None
        x, y = self.agent_point(state, i)
        _, floor = self._place_cards(state.rooms[i])
        return int(x + self._agent_size(floor) / 2), int(y)

    def agent_rect(self, state: HouseholdState, agent: str) -> pygame.Rect | None:
        """The agent's figure with the objects in its hands, their labels and its name plate."""
        i = self.world.agent_index.get(agent)
        if i is None:
            return None
        x, y = self.agent_point(state, i)
        _, floor = self._place_cards(state.rooms[i])
        size = self._agent_size(floor)
        hand = max(8, int(size * 0.48))
        return pygame.Rect(int(x - hand * 0.35) - 4, int(y) - 4, int(size + hand * 0.7) + 8, int(size + 8))

    def action_for_key(self, key: str, state: HouseholdState, agent: str, legal: Sequence[Any]) -> Any | None:
        """Space waits; the number keys and the page key are the window's (``numbered_actions``)."""
        key = key.lower()
        if key in ("space", "period"):
            return "wait" if "wait" in legal else None
        return None

    def key_bindings(self) -> list[KeyBinding]:
        return [KeyBinding("1-9", "the numbered action of the page shown on the map"),
                KeyBinding("0", "next page of actions"), KeyBinding("space", "wait"),
                KeyBinding("Ctrl+M", "write a message (the box under the map)")]

    def action_label(self, action: Any) -> str:
        return str(action)
