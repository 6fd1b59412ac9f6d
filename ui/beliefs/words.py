"""Beliefs and places in plain words, without Qt or pygame.

* ``Namer``: a world's entities as a person reads them: ``cupcake_2`` is "the cupcake" (or
  "cupcake 2" when the house holds several), ``livingroom_coffeetable`` "the coffee table in the
  livingroom", the SBL ``<apple>(3)`` the object the CoBel agents number 3, a kitchen station
  "the top counter of the west room", a kitchen object ``ChoppedLettuce`` "the chopped lettuce".
* ``sbl_in_words``: one SBL statement (``alice BELIEVE <wine>(5) ON <coffeetable>(1007)``) as a
  sentence ("alice thinks the wine is on the coffee table in the livingroom").
* ``kitchen_feedback_words``: a kitchen facilitator's Pickup / Pass suggestion with its places in
  words, instead of grid coordinates; ``kitchen_explanation_words`` its explanation's object names.
  The kitchen's views take them as their ``WorldRenderer.feedback_words`` / ``explanation_words``
  (``KitchenWords``), which the panels and the pop-up call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

#: words that end a compound furniture name: "coffeetable" reads "coffee table"
_SUFFIXES = ("table", "cabinet", "counter", "shelf", "stand", "cupboard", "drawer", "sink", "rack", "box",
             "chair", "tray", "bin", "basket", "bowl", "case")
_THING = re.compile(r"<([^<>()]+)>\((\d+)\)")
#: SBL relations in words (subject ... object)
RELATION_WORDS = {"ON": "is on", "IN": "is in", "INSIDE": "is inside", "AT": "is in", "HOLD": "holds",
                  "NEAR": "is near", "WILL_FETCH": "will fetch", "WILL_EXPLORE": "will explore"}
ORDINALS = ("1st", "2nd", "3rd")


def split_compound(word: str) -> str:
    """``coffeetable`` -> ``coffee table``, ``kitchencabinet`` -> ``kitchen cabinet``; underscores
    become spaces."""
    out = []
    for part in word.replace("-", "_").split("_"):
        for suffix in _SUFFIXES:
            if part.endswith(suffix) and len(part) > len(suffix) + 2:
                part = part[:-len(suffix)] + " " + suffix
                break
        out.append(part)
    return " ".join(p for p in out if p)


def kitchen_item_words(name: str) -> str:
    """A kitchen object name in words: ``FreshTomato`` "the tomato", ``ChoppedLettuce`` "the chopped
    lettuce", ``ChoppedOnion-Plate`` "the onion dish", ``Plate`` "a plate", ``nothing`` "nothing"."""
    if name == "nothing":
        return "nothing"
    if name == "unknown":
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


def ordinal(k: int) -> str:
    return ORDINALS[k - 1] if 1 <= k <= len(ORDINALS) else f"{k}th"


class Namer:
    """Names of one world's entities in words (see the module doc). Worlds it does not know get
    their ids with underscores as spaces."""

    def __init__(self, world: Any) -> None:
        self.world = world
        self.family = getattr(world, "family", "")
        self._kitchen_rooms: dict[int, str] | None = None
        self._stations: dict[tuple[int, int], str] = {}

    # ------------------------------------------------------------------ household

    def object_words(self, oid: str) -> str:
        """An object id in words: "the wine", or "cupcake 2" when several share its class."""
        w = self.world
        objects = getattr(w, "objects", None)
        index = getattr(w, "object_index", {})
        if objects is None or oid not in index:
            return "the " + split_compound(oid)
        cls = objects[index[oid]].cls
        same = [o for o in objects if o.cls == cls]
        if len(same) == 1:
            return "the " + split_compound(cls)
        digits = oid.rsplit("_", 1)[-1]
        return f"{split_compound(cls)} {digits if digits.isdigit() else same.index(objects[index[oid]]) + 1}"

    def place_words(self, pid: str, with_room: bool = True) -> str:
        """A household place in words: "the coffee table in the livingroom"."""
        w = self.world
        index = getattr(w, "place_index", {})
        if pid not in index:
            return "the " + split_compound(pid)
        place = w.places[index[pid]]
        room = w.room_ids[place.room]
        short = pid[len(room) + 1:] if pid.startswith(room + "_") else pid
        name = "floor" if place.kind == "floor" else split_compound(short)
        return f"the {name}" + (f" in the {split_compound(room)}" if with_room else "")

    def room_words(self, rid: str) -> str:
        return "the " + split_compound(rid)

    def location_words(self, at: str) -> str:
        """Where a household object is (a place, a container, or ``agent:<name>``) after a verb:
        "on the sofa in the livingroom", "in the fridge in the kitchen", "in the basket", "held by bob"."""
        w = self.world
        if at.startswith("agent:"):
            return f"held by {at[6:]}"
        if at in getattr(w, "object_index", {}):
            return "in " + self.object_words(at)
        index = getattr(w, "place_index", {})
        if at in index:
            kind = w.places[index[at]].kind
            return ("in " if kind == "receptacle" else "on ") + self.place_words(at)
        return "at " + split_compound(at)

    def sbl_entity(self, name: str, number: int) -> str:
        """An SBL thing ``<name>(number)`` in words, resolved against a household world's numbering
        (objects from 1, places from 1000, rooms from 2000, as the CoBel agents number them)."""
        w = self.world
        if self.family == "household":
            from agents.cobel.agent import OBJECT_IDS, PLACE_IDS, ROOM_IDS
            if ROOM_IDS <= number < ROOM_IDS + len(w.room_ids):
                return self.room_words(w.room_ids[number - ROOM_IDS])
            if PLACE_IDS <= number < PLACE_IDS + len(w.places):
                return self.place_words(w.places[number - PLACE_IDS].id)
            if OBJECT_IDS <= number < OBJECT_IDS + len(w.objects):
                return self.object_words(w.objects[number - OBJECT_IDS].id)
        return "the " + split_compound(name)

    def sbl_location(self, atom_predicate: str, name: str, number: int) -> str:
        """The object of ON / IN / INSIDE in words, with its preposition."""
        words = self.sbl_entity(name, number)
        prep = {"ON": "on", "IN": "in", "INSIDE": "inside"}.get(atom_predicate, "at")
        return f"{prep} {words}"

    # ------------------------------------------------------------------ kitchen

    def kitchen_rooms(self) -> dict[int, str]:
        """Room number -> "the west room" (compass by where its floor lies in the kitchen;
        "the kitchen" when there is one room)."""
        if self._kitchen_rooms is not None:
            return self._kitchen_rooms
        w = self.world
        cells: dict[int, list[tuple[int, int]]] = {}
        for cell, room in enumerate(w.room_of):
            if room >= 0:
                cells.setdefault(room, []).append(w.rc(cell))
        names: dict[int, str] = {}
        if len(cells) <= 1:
            names = {room: "the kitchen" for room in cells}
        else:
            for room, rcs in cells.items():
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
        self._kitchen_rooms = names
        return names

    def station_words(self, row: int, col: int) -> str:
        """A kitchen station in words: "the top counter of the west room", "the cutting board in the
        middle of the hall", "the counter between the west room and the east room"; the 2nd of
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
            text = f"the {kind} between " + " and ".join(names[r] for r in rooms)
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


def sbl_in_words(text: str, namer: Namer) -> str:
    """An SBL statement as a sentence: ``alice BELIEVE bob BELIEVE <apple>(3) ON <table>(1002)``
    reads "alice thinks bob thinks the apple is on the table in the kitchen". Anything it cannot
    read is given back with its entities in words."""
    words = text.split()
    holders = []
    while len(words) >= 3 and words[1] == "BELIEVE":
        holders.append(words[0])
        words = words[2:]
    atom = " ".join(words)

    def entity(token: str) -> str:
        m = _THING.fullmatch(token)
        return namer.sbl_entity(m.group(1), int(m.group(2))) if m else token

    parts = atom.split()
    if len(parts) == 3 and re.fullmatch(r"[A-Z][A-Z0-9_]*", parts[1]):
        subject, key, obj = parts
        if key == "EXPLORATION_STATE":
            state = {"all": "explored", "part": "partly explored", "none": "not explored"}.get(obj, obj)
            clause = f"{entity(subject)} is {state}"
        elif key == "OPEN_STATE":
            clause = f"{entity(subject)} is {'open' if obj == 'opened' else 'closed' if obj == 'closed' else obj}"
        elif key == "CONTENTS":
            clause = f"{entity(subject)} holds {obj.replace('_', ' ')}"
        elif key in RELATION_WORDS:
            clause = f"{entity(subject)} {RELATION_WORDS[key]} {entity(obj)}"
        else:
            clause = f"{entity(subject)} {key.lower().replace('_', ' ')} {entity(obj)}"
    else:
        clause = _THING.sub(lambda m: namer.sbl_entity(m.group(1), int(m.group(2))), atom)
    return "".join(f"{h} thinks " for h in holders) + clause


def kitchen_feedback_words(world: Any, payload: Mapping[str, Any], text: str) -> str:
    """A kitchen suggestion (``{"type": "pickup" | "pass", "agent", "item", "at", "to", "via"}``) in
    words: "bob, please pick up the onion on the left counter of the west room." The given
    ``text`` when the payload is not one."""
    if getattr(world, "family", "") != "kitchen" or not isinstance(payload, Mapping):
        return text
    namer = Namer(world)
    try:
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
    except (KeyError, TypeError, ValueError, IndexError):
        return text


_SBL_LINE = re.compile(r"^\S+ [A-Z][A-Z0-9_]* \S+$|BELIEVE")


def message_words(text: str, namer: Namer) -> str:
    """A message in words: each line that is an SBL statement (CoBel agents talk in SBL) read as a
    sentence, other lines as they are; lines joined with "; "."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not any(_THING.search(line) or _SBL_LINE.search(line) for line in lines):
        return text
    return "; ".join(sbl_in_words(line, namer) if (_THING.search(line) or _SBL_LINE.search(line)) else line
                     for line in lines)


_KITCHEN_ITEM = re.compile(r"\bthe (?:other )?((?:Fresh|Chopped)[A-Z][a-z]+(?:-Plate)?|Plate)\b")
_KITCHEN_RECIPE = re.compile(r"\bSimple(Tomato|Lettuce|Onion)\b")


def kitchen_recipe_words(recipe: str) -> str:
    """A kitchen recipe in words: ``SimpleOnion`` "the onion dish"; anything else as it is."""
    m = _KITCHEN_RECIPE.fullmatch(recipe)
    return f"the {m.group(1).lower()} dish" if m else recipe


def kitchen_explanation_words(world: Any, text: str) -> str:
    """A kitchen facilitator's explanation with its object and recipe names in words ("the other
    FreshOnion" reads "the other onion", "SimpleOnion" "the onion dish"); other worlds' text as it is."""
    if getattr(world, "family", "") != "kitchen":
        return text

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
