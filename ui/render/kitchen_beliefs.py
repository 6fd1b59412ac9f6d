"""The partially observable kitchen's beliefs, drawn and listed: its plug-in names
``KitchenBeliefs`` (``WorldPlugin.beliefs``), which ``ui.beliefs.view.beliefs_for`` gives the
generic belief views.

* The minds: a cook's own ``belief`` snapshot (``As alice believes it``) and ProToM's
  ``particles`` (``As protom thinks alice believes it``: a distribution, one ghost per believed
  content); the belief timeline follows both.
* Words (``KitchenNamer``): a station is "the top counter of the tomato room". A room is named
  from the layout, declaratively: "the kitchen" when there is one room; "the hall" when its floor
  is more than ``HALL`` times as large as every other room's; else by what it alone holds at the
  start (``ROOM_NAMES``: "the serving room" holds the only delivery stations, "the tomato room"
  the only tomatoes ...); by where it lies when nothing sets it apart ("the north-west room"). An object ``ChoppedLettuce`` is
  "the chopped lettuce" (``kitchen_item_words``).
* ``KitchenWords``: the kitchen views' ``WorldRenderer.feedback_words`` (a facilitator's Pickup /
  Pass suggestion with its places in words, not grid coordinates) and ``explanation_words``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from sim.snapshots import Belief, Particles, read_snapshot
from ui.beliefs.view import BELIEF, HELD, PARTICLES, BelievedWorld, Ghost, WorldBeliefs, decided_in
from ui.beliefs.words import Namer, ordinal, split_compound

#: what names a kitchen room, in order: the first of these that the room alone holds at the start
#: (a station next to its floor) gives its name; (what it holds: a station kind's name or an
#: ingredient, the room's name)
ROOM_NAMES: tuple[tuple[str, str], ...] = (
    ("delivery station", "the serving room"),
    ("tomato", "the tomato room"),
    ("lettuce", "the lettuce room"),
    ("onion", "the onion room"),
    ("cutting board", "the chopping room"),
    ("plate", "the plate room"),
)
#: a room whose floor is more than this many times as large as every other room's is "the hall"
HALL = 2
#: a particle's content when the cook has never seen the station (rules 2): not a false belief
UNSEEN = "unknown"


def kitchen_item_words(name: str) -> str:
    """A kitchen object name in words: ``FreshTomato`` "the tomato", ``ChoppedLettuce`` "the chopped
    lettuce", ``ChoppedOnion-Plate`` "the onion dish", ``Plate`` "a plate", ``nothing`` "nothing"."""
    if name == "nothing":
        return "nothing"
    if name == UNSEEN:
        return "something unknown"
    if name == "Plate":
        return "the plate"
    if name.endswith("-Plate"):
        return "the " + name[:-len("-Plate")].replace("Chopped", "").lower() + " dish"
    if name.startswith("Chopped"):
        return "the chopped " + name[len("Chopped"):].lower()
    if name.startswith("Fresh"):
        return "the " + name[len("Fresh"):].lower()
    return "the " + split_compound(name).lower()


def _holds(name: str) -> set[str]:
    """What a start content names a room by: its ingredients ("tomato") and "plate"."""
    out = {part for part in ("tomato", "lettuce", "onion") if part in name.lower()}
    return out | ({"plate"} if "Plate" in name else set())


class KitchenNamer(Namer):
    """A kitchen's rooms, stations and objects in words (module doc)."""

    def __init__(self, world: Any) -> None:
        super().__init__(world)
        self._rooms: dict[int, str] | None = None
        self._stations: dict[tuple[int, int], str] = {}

    def object_words(self, oid: str) -> str:
        return kitchen_item_words(oid)

    def location_words(self, at: Any) -> str:
        return self.kitchen_place(at)

    def kitchen_rooms(self) -> dict[int, str]:
        """Room number -> its name (module doc: ``ROOM_NAMES``, else by where it lies)."""
        if self._rooms is not None:
            return self._rooms
        from sim.kitchen.world import ITEM_NAMES, STATION_KIND_NAMES
        w = self.world
        cells: dict[int, list[tuple[int, int]]] = {}
        for cell, room in enumerate(w.room_of):
            if room >= 0:
                cells.setdefault(room, []).append(w.rc(cell))
        names: dict[int, str] = {}
        if len(cells) <= 1:
            self._rooms = {room: "the kitchen" for room in cells}
            return self._rooms
        start = w.initial_state
        holds: dict[int, set[str]] = {room: set() for room in cells}
        for s, cell in enumerate(w.station_cells):
            what = {STATION_KIND_NAMES[w.station_kind[s]]} | _holds(ITEM_NAMES[start.contents[s]])
            for room in {w.room_of[n] for n in w._adjacent_walkable(cell) if w.room_of[n] >= 0}:
                holds[room] |= what
        for room, floor in cells.items():
            if all(len(floor) > HALL * len(other) for r, other in cells.items() if r != room):
                names[room] = "the hall"
        for room in cells:
            if room in names:
                continue
            for what, name in ROOM_NAMES:
                if what in holds[room] and not any(what in holds[other] for other in cells if other != room):
                    names[room] = name
                    break
        for room, rcs in cells.items():
            if room in names:
                continue
            r = sum(p[0] for p in rcs) / len(rcs) / max(1, w.height - 1)
            c = sum(p[1] for p in rcs) / len(rcs) / max(1, w.width - 1)
            ns = "north" if r < 0.34 else "south" if r > 0.66 else ""
            ew = "west" if c < 0.34 else "east" if c > 0.66 else ""
            names[room] = "the " + ("-".join(x for x in (ns, ew) if x) or "middle") + " room"
        seen: dict[str, list[int]] = {}
        for room, name in names.items():
            seen.setdefault(name, []).append(room)
        for name, rooms in seen.items():
            if len(rooms) > 1:
                for k, room in enumerate(sorted(rooms)):
                    names[room] = f"{name} {k + 1}"
        self._rooms = names
        return names

    def station_words(self, row: int, col: int) -> str:
        """A kitchen station in words: "the top counter of the tomato room", "the cutting board in the
        middle of the serving room", "the counter between the tomato room and the serving room"; the 2nd of
        several on one wall is said so."""
        key = (int(row), int(col))
        if key in self._stations:
            return self._stations[key]
        w = self.world
        cell = w.cell(*key)
        s = w.station_at.get(cell)
        if s is None:
            return f"the floor at row {row}, column {col}"
        from sim.kitchen.world import STATION_KIND_NAMES
        kind = STATION_KIND_NAMES[w.station_kind[s]]
        names = self.kitchen_rooms()
        rooms = sorted({w.room_of[n] for n in w._adjacent_walkable(cell) if w.room_of[n] >= 0})
        if not rooms:
            text = f"the {kind} by the door"
        elif len(rooms) > 1:
            between = " between " + " and ".join(names[r] for r in rooms)
            which = ""
            same = sorted(w.rc(sc) for t, sc in enumerate(w.station_cells)
                          if w.station_kind[t] == w.station_kind[s]
                          and sorted({w.room_of[n] for n in w._adjacent_walkable(sc) if w.room_of[n] >= 0}) == rooms)
            if len(same) > 1:  # several on one wall between the same rooms: which one
                across = len({p[0] for p in same}) == 1
                same.sort(key=lambda p: (p[1], p[0]) if across else p)
                which = f" ({ordinal(same.index(key) + 1)} from the {'left' if across else 'top'})"
            text = f"the {kind}{which}{between}"
        else:
            room = rooms[0]
            floor = [w.rc(c) for c, rm in enumerate(w.room_of) if rm == room]
            r0, r1 = min(p[0] for p in floor), max(p[0] for p in floor)
            c0, c1 = min(p[1] for p in floor), max(p[1] for p in floor)
            side = ("top" if key[0] < r0 else "bottom" if key[0] > r1 else
                    "left" if key[1] < c0 else "right" if key[1] > c1 else "")
            if not side:
                text = f"the {kind} in the middle of {names[room]}"
            else:
                same = []
                for t, sc in enumerate(w.station_cells):
                    if w.station_kind[t] != w.station_kind[s]:
                        continue
                    rr, cc = w.rc(sc)
                    around = {w.room_of[n] for n in w._adjacent_walkable(sc) if w.room_of[n] >= 0}
                    other = ("top" if rr < r0 else "bottom" if rr > r1 else
                             "left" if cc < c0 else "right" if cc > c1 else "")
                    if around == {room} and other == side:
                        same.append((rr, cc))
                same.sort(key=lambda p: p[1] if side in ("top", "bottom") else p[0])
                which = ""
                if len(same) > 1:
                    k = same.index(key) + 1
                    edge = "left" if side in ("top", "bottom") else "top"
                    which = f" ({ordinal(k)} from the {edge})"
                text = f"the {side} {kind}{which} of {names[room]}"
        self._stations[key] = text
        return text

    def kitchen_place(self, at: Any) -> str:
        """A kitchen location: a station [row, col] or ``agent:<name>``."""
        if isinstance(at, str) and at.startswith("agent:"):
            return f"in {at[6:]}'s hands"
        try:
            r, c = int(at[0]), int(at[1])
        except (TypeError, ValueError, IndexError):
            return "somewhere"
        return "on " + self.station_words(r, c)






def _kitchen_find(world: Any, state: Any, item: str, near: tuple[int, int]) -> Any:
    """Where ``item`` really is nearest to ``near``: a station (row, col), a cook's hands, or None."""
    from sim.kitchen.world import ITEM_CODE
    code = ITEM_CODE.get(item)
    if code is None:
        return None
    spots: list[tuple[int, Any]] = []
    for s, content in enumerate(state.contents):
        if content == code:
            r, c = world.rc(world.station_cells[s])
            spots.append((abs(r - near[0]) + abs(c - near[1]), (r, c)))
    for i, held in enumerate(state.held):
        if held == code:
            r, c = world.rc(state.positions[i])
            spots.append((abs(r - near[0]) + abs(c - near[1]) + 1, f"agent:{world.agents[i]}"))
    return min(spots, key=lambda x: x[0])[1] if spots else None


class KitchenBeliefs(WorldBeliefs):
    """The kitchen's minds in the believed-world views and the belief timeline (module doc)."""

    kinds = (BELIEF, PARTICLES)
    namer_class = KitchenNamer
    namer: KitchenNamer
    particles_legend = (
        ("item", "believed there",
         "A chip in a cook's corner of a counter: what the facilitator believes that cook believes lies there "
         "(the likeliest content), framed in the cook's colour, as opaque as the share of particles that believe it"),
        ("empty", "believed empty", "A crossed circle: the cook is believed to think the counter is empty"),
        ("unseen", "never seen (not false)",
         "Three dots: the cook has never seen that counter; it does not know, which is not a false belief"),
        ("false", "false belief", "A red corner: the belief is false (something else lies there)"),
    )

    # ------------------------------------------------------------------ the views

    def minds(self, timeline: Any) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        owners = timeline.belief_owners(BELIEF)
        out += [(agent, None) for agent in self.world.agents if agent in owners]
        out += [(owner, agent) for owner in timeline.belief_owners(PARTICLES) for agent in self.world.agents]
        return out

    def mind(self, timeline: Any, tick: int, holder: str, about: str | None) -> BelievedWorld | None:
        if about is None:
            event = timeline.belief_at(holder, BELIEF, tick)
            data = read_snapshot(Belief, event.data) if event else None
            return self.kitchen_view(decided_in(timeline, event), holder, data, tick=event.tick) if data else None
        event = timeline.belief_at(holder, PARTICLES, tick)
        if event is None:
            return None
        found = [d for d in timeline.latest_by_subject(PARTICLES, tick) if d.get("agent") == about]
        data = read_snapshot(Particles, found[0]) if found else None
        return self.particles_view(timeline.state_at(tick), holder, data, tick=event.tick) if data else None

    def snapshot_views(self, timeline: Any, event: Any) -> list[BelievedWorld]:
        if event.kind == BELIEF:
            data = read_snapshot(Belief, event.data)
            return [self.kitchen_view(decided_in(timeline, event), event.owner, data, tick=event.tick)] if data else []
        if event.kind == PARTICLES:
            data = read_snapshot(Particles, event.data)
            state = timeline.state_at(max(0, min(event.tick, timeline.num_steps)))
            return [self.particles_view(state, event.owner, data, tick=event.tick)] if data else []
        return super().snapshot_views(timeline, event)

    def _ghost(self, state: Any, r: int, c: int, item: str, p: float) -> Ghost | None:
        from sim.kitchen.world import ITEM_CODE, ITEM_NAMES
        world = self.world
        s = world.station_at.get(world.cell(r, c))
        if s is None or item not in ITEM_CODE:
            return None
        there = ITEM_NAMES[state.contents[s]]
        true = item == there
        actual = None if true or item == "nothing" else _kitchen_find(world, state, item, (r, c))
        return Ghost(item, (r, c), p, true, actual, there)

    def _worded(self, ghosts: Sequence[Ghost], agent: str, prefix: str = "") -> list[Ghost]:
        return [g if g.true else dataclasses.replace(g, words=self.ghost_words(agent, g, prefix)) for g in ghosts]

    def kitchen_view(self, state: Any, agent: str, data: Belief, tick: int = 0) -> BelievedWorld:
        """A cook's own ``belief`` snapshot: each remembered object a ghost; stations out of view it
        believes empty that are not (true: False, thing "nothing"); stations never seen unknown."""
        from sim.kitchen.world import DELIVERY, ITEM_NAMES, NOTHING
        world = self.world
        ghosts: list[Ghost] = []
        listed: set[tuple[int, int]] = set()
        for entry in data.objects:
            try:
                r, c, item = int(entry[0]), int(entry[1]), str(entry[2])
            except (TypeError, ValueError, IndexError):
                continue
            listed.add((r, c))
            ghost = self._ghost(state, r, c, item, 1.0)
            if ghost is not None:
                ghosts.append(ghost)
        unknown = []
        for entry in data.unknown:
            try:
                unknown.append((int(entry[0]), int(entry[1])))
            except (TypeError, ValueError, IndexError):
                continue
        listed |= set(unknown)
        # a station out of view, neither remembered full nor unknown: the cook believes it empty
        if agent in world.agent_index:
            seen = {s for s, _ in world.observe(state, agent).stations}
            for s, cell in enumerate(world.station_cells):
                rc = world.rc(cell)
                if s in seen or rc in listed or world.station_kind[s] == DELIVERY or state.contents[s] == NOTHING:
                    continue
                ghosts.append(Ghost("nothing", rc, 1.0, False, None, ITEM_NAMES[state.contents[s]]))
        ghosts = self._worded(ghosts, agent)
        lines = tuple(g.words for g in ghosts if not g.true)
        return BelievedWorld(agent, None, agent, tuple(ghosts), tuple(unknown), (), lines, tick)

    def particles_view(self, state: Any, owner: str, data: Particles, tick: int = 0) -> BelievedWorld:
        """ProToM's particles about one cook: every believed content of every station it cannot see,
        with its share of particles (a distribution: several ghosts per station)."""
        world = self.world
        ghosts = []
        unknown = []
        for entry in data.unseen:
            try:
                (r, c), item = entry["at"], str(entry["item"])  # type: ignore[misc]
                r, c, p = int(r), int(c), float(entry.get("weight", 1.0))  # type: ignore[arg-type]
            except (KeyError, TypeError, ValueError):
                continue
            if item == UNSEEN:
                unknown.append((r, c))
                continue
            ghost = self._ghost(state, r, c, item, p)
            if ghost is not None:
                ghosts.append(ghost)
        ghosts.sort(key=lambda g: (g.at, -g.p))
        ghosts = self._worded(ghosts, data.agent, f"{owner} thinks {data.agent} thinks ")
        lines = tuple(g.words for g in ghosts if not g.true and g.p >= HELD)
        return BelievedWorld(owner, data.agent, data.agent if data.agent in world.agent_index else None,
                             tuple(ghosts), tuple(unknown), (), lines, tick)

    # ------------------------------------------------------------------ words and sight

    def ghost_words(self, agent: str, ghost: Ghost, prefix: str = "") -> str:
        """"alice thinks the onion is on the top counter of the tomato room; the plate is there,
        the nearest one is on ..."; "alice thinks nothing is on ...; the onion is there"."""
        prefix = prefix or f"{agent} thinks "
        namer = self.namer
        share = f" ({ghost.p:.0%})" if ghost.p < 0.995 else ""
        where = namer.kitchen_place(ghost.at)
        if ghost.thing == "nothing":
            said = f"{prefix}nothing is {where}{share}"
        else:
            said = f"{prefix}{kitchen_item_words(ghost.thing)} is {where}{share}"
        if ghost.true:
            return said
        if ghost.thing == "nothing":
            return f"{said}; {kitchen_item_words(ghost.there)} is there"
        gone = f"{kitchen_item_words(ghost.there)} is there" if ghost.there not in ("", "nothing") else "it is gone"
        if ghost.actual is not None:
            return f"{said}; {gone}, the nearest one is {namer.kitchen_place(ghost.actual)}"
        return f"{said}; {gone}"

    def was_true(self, view: BelievedWorld, thing: str, at: Any) -> bool:
        """A station believed empty is no ghost while it is empty: it was, when ``view`` has no
        ghost and no unknown there."""
        if thing == "nothing":
            return not any(g.at == at for g in view.ghosts) and at not in view.unknown
        return super().was_true(view, thing, at)

    def sees(self, state: Any, agent: str, thing: str, at: Any) -> bool:
        w = self.world
        if agent not in w.agent_index or not isinstance(at, tuple):
            return False
        s = w.station_at.get(w.cell(*at))
        return s is not None and any(t == s for t, _ in w.observe(state, agent).stations)

    # ------------------------------------------------------------------ particles

    def place_words(self, at: Any) -> str:
        try:
            return self.namer.station_words(int(at[0]), int(at[1]))
        except (TypeError, ValueError, IndexError):
            return "somewhere"

    def thing_words(self, thing: str) -> str:
        return "not seen yet" if thing == UNSEEN else kitchen_item_words(thing)

    def particle_verdict(self, item: str, true: Any) -> str:
        return "never seen" if item == UNSEEN else "yes" if true else "no"


# --------------------------------------------------------------------------------- suggestions

def kitchen_feedback_words(world: Any, payload: Mapping[str, Any], text: str) -> str:
    """A kitchen suggestion (``{"type": "pickup" | "pass", "agent", "item", "at", "to", "via"}``) in
    words: "bob, please pick up the onion on the left counter of the onion room." The given
    ``text`` when the payload is not one."""
    if not isinstance(payload, Mapping):
        return text
    try:
        namer = KitchenNamer(world)
        agent, item, at = str(payload["agent"]), str(payload["item"]), payload["at"]
        where = namer.kitchen_place(at)
        thing = kitchen_item_words(item)
        first = ""
        if ". Put down" in text:
            first = " " + text[text.index(". Put down") + 2:].replace("  ", " ")
            first = re.sub(r"the ([A-Z][A-Za-z-]*)", lambda m: kitchen_item_words(m.group(1)), first)
        name = agent[:1].upper() + agent[1:]
        if payload.get("type") == "pass":
            to = str(payload.get("to", ""))
            via = payload.get("via")
            leave = f": leave it {namer.kitchen_place(via)}" if isinstance(via, Sequence) and len(via) == 2 else ""
            return f"{name}, please pass {thing} {where} to {to[:1].upper() + to[1:]}{leave}.{first}"
        return f"{name}, please pick up {thing} {where}.{first}"
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return text


_KITCHEN_ITEM = re.compile(r"\bthe (?:other )?((?:Fresh|Chopped)[A-Z][a-z]+(?:-Plate)?|Plate)\b")
_KITCHEN_RECIPE = re.compile(r"\bSimple(Tomato|Lettuce|Onion)\b")


def kitchen_recipe_words(recipe: str) -> str:
    """A kitchen recipe in words: ``SimpleOnion`` "the onion dish"; anything else as it is."""
    m = _KITCHEN_RECIPE.fullmatch(recipe)
    return f"the {m.group(1).lower()} dish" if m else recipe


def kitchen_explanation_words(world: Any, text: str) -> str:
    """A kitchen facilitator's explanation with its object and recipe names in words ("the other
    FreshOnion" reads "the other onion", "SimpleOnion" "the onion dish")."""

    def repl(m: re.Match[str]) -> str:
        words = kitchen_item_words(m.group(1))
        other = " other" if m.group(0).startswith("the other ") else ""
        return words.replace("the ", f"the{other} ", 1) if words.startswith("the ") else words

    text = _KITCHEN_RECIPE.sub(lambda m: kitchen_recipe_words(m.group(0)), text)
    return _KITCHEN_ITEM.sub(repl, text)


class KitchenWords:
    """The kitchen views' ``WorldRenderer.feedback_words`` and ``explanation_words`` (put before
    ``WorldRenderer`` among a view's bases)."""

    feedback_words = staticmethod(kitchen_feedback_words)
    explanation_words = staticmethod(kitchen_explanation_words)
