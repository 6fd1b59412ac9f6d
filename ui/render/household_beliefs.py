"""The household's beliefs, drawn and listed: its plug-in names ``HouseholdBeliefs``
(``WorldPlugin.beliefs``), which ``ui.beliefs.view.beliefs_for`` gives the generic belief views.

* The minds: a CoBel agent's ``symbolic_beliefs``, zero-order (``As alice believes it``) and
  first-order (``As alice thinks bob believes it``); the belief timeline follows both.
* Words (``HouseholdNamer``): ``cupcake_2`` is "the cupcake" (or "cupcake 2" when the house holds
  several), ``livingroom_coffeetable`` "the coffee table in the livingroom", the SBL
  ``<apple>(3)`` the object the CoBel agents number 3.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from sim.snapshots import SymbolicBeliefs, read_snapshot
from ui.beliefs.view import HELD, SYMBOLIC, BelievedWorld, Ghost, WorldBeliefs, decided_in
from ui.beliefs.words import Namer, split_compound

_PLACING = re.compile(r"^(<[^<>()]+>\((\d+)\)|[A-Za-z_][A-Za-z0-9_]*) (ON|IN|INSIDE|HOLD) <[^<>()]+>\((\d+)\)$")


class HouseholdNamer(Namer):
    """A household's objects, places and rooms in words (module doc)."""

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
        from agents.cobel.agent import OBJECT_IDS, PLACE_IDS, ROOM_IDS
        w = self.world
        if ROOM_IDS <= number < ROOM_IDS + len(w.room_ids):
            return self.room_words(w.room_ids[number - ROOM_IDS])
        if PLACE_IDS <= number < PLACE_IDS + len(w.places):
            return self.place_words(w.places[number - PLACE_IDS].id)
        if OBJECT_IDS <= number < OBJECT_IDS + len(w.objects):
            return self.object_words(w.objects[number - OBJECT_IDS].id)
        return super().sbl_entity(name, number)



def household_placements(world: Any, entries: Sequence[Mapping[str, Any]]) -> tuple[dict[str, dict[str, float]], set[str]]:
    """SBL entries (``{"atom", "p"}``) read against the household's numbering (the CoBel agents'):
    object id -> {location (place, container or agent:<name>): probability}, and the rooms held
    explored (p >= 0.5)."""
    from agents.cobel.agent import OBJECT_IDS, PLACE_IDS, ROOM_IDS
    where: dict[str, dict[str, float]] = {}
    explored: set[str] = set()
    n_obj, n_place, n_room = len(world.objects), len(world.places), len(world.room_ids)
    for entry in entries:
        atom, p = str(entry.get("atom", "")), entry.get("p", 0.0)
        if not isinstance(p, (int, float)):
            continue
        if atom.endswith(" EXPLORATION_STATE all") and p >= HELD:
            m = re.match(r"<[^<>()]+>\((\d+)\)", atom)
            if m and ROOM_IDS <= int(m.group(1)) < ROOM_IDS + n_room:
                explored.add(world.room_ids[int(m.group(1)) - ROOM_IDS])
            continue
        m = _PLACING.match(atom)
        if m is None:
            continue
        subject, subject_id, predicate, object_id = m.group(1), m.group(2), m.group(3), int(m.group(4))
        if predicate == "HOLD":
            if subject not in world.agent_index or not OBJECT_IDS <= object_id < OBJECT_IDS + n_obj:
                continue
            oid, at = world.objects[object_id - OBJECT_IDS].id, f"agent:{subject}"
        else:
            if subject_id is None or not OBJECT_IDS <= int(subject_id) < OBJECT_IDS + n_obj:
                continue
            oid = world.objects[int(subject_id) - OBJECT_IDS].id
            if PLACE_IDS <= object_id < PLACE_IDS + n_place:
                at = world.places[object_id - PLACE_IDS].id
            elif OBJECT_IDS <= object_id < OBJECT_IDS + n_obj:
                at = world.objects[object_id - OBJECT_IDS].id
            else:
                continue
        where.setdefault(oid, {})[at] = max(float(p), where.get(oid, {}).get(at, 0.0))
    return where, explored



class HouseholdBeliefs(WorldBeliefs):
    """The household's minds in the believed-world views and the belief timeline (module doc)."""

    kinds = (SYMBOLIC,)
    namer_class = HouseholdNamer

    def minds(self, timeline: Any) -> list[tuple[str, str | None]]:
        out: list[tuple[str, str | None]] = []
        for agent in self.world.agents:
            event = timeline.belief_at(agent, SYMBOLIC, timeline.num_steps + 1)
            if event is None:
                continue
            out.append((agent, None))
            out += [(agent, partner) for partner in (event.data.get("first_order") or {})]
        return out

    def mind(self, timeline: Any, tick: int, holder: str, about: str | None) -> BelievedWorld | None:
        event = timeline.belief_at(holder, SYMBOLIC, tick)
        data = read_snapshot(SymbolicBeliefs, event.data) if event else None
        if data is None:
            return None
        return self.household_view(decided_in(timeline, event), data, about, tick=event.tick)

    def snapshot_views(self, timeline: Any, event: Any) -> list[BelievedWorld]:
        """An agent's zero-order beliefs and what it thinks each partner believes."""
        if event.kind != SYMBOLIC:
            return super().snapshot_views(timeline, event)
        data = read_snapshot(SymbolicBeliefs, event.data)
        if data is None:
            return []
        state = decided_in(timeline, event)
        views = [self.household_view(state, data, about, tick=event.tick)
                 for about in (None, *sorted(data.first_order or {}))]
        return [v for v in views if v is not None]

    def household_view(self, state: Any, data: SymbolicBeliefs, about: str | None = None,
                       tick: int = 0) -> BelievedWorld | None:
        """A CoBel belief world: each object at its likeliest believed place (zero-order, or what the
        owner thinks ``about`` believes), true or not; rooms not believed explored are unknown."""
        world = self.world
        if about is None:
            entries = data.zero_order
        elif about in (data.first_order or {}):
            entries = data.first_order[about]
        else:
            return None
        where, explored = household_placements(world, [e for e in entries if isinstance(e, Mapping)])
        prefix = f"{data.agent} thinks " + (f"{about} thinks " if about else "")
        ghosts = []
        for oid in sorted(where, key=lambda o: world.object_index[o]):
            at, p = max(where[oid].items(), key=lambda kv: (kv[1], kv[0]))
            actual = world.where(state, world.object_index[oid])
            ghost = Ghost(oid, at, p, at == actual, None if at == actual else actual)
            if not ghost.true:
                ghost = Ghost(oid, at, p, False, actual, words=self.ghost_words(data.agent, ghost, prefix))
            ghosts.append(ghost)
        unknown = tuple(r for r in world.room_ids if r not in explored)
        lines = tuple(g.words for g in ghosts if not g.true and g.p >= HELD)
        eyes = data.agent if data.agent in world.agent_index else None
        return BelievedWorld(data.agent, about, eyes, tuple(ghosts), unknown, (), lines, tick)

    def sees(self, state: Any, agent: str, thing: str, at: Any) -> bool:
        w = self.world
        if agent not in w.agent_index:
            return False
        obs = w.observe(state, agent)
        if any(o.id == thing for o in obs.objects):
            return True
        if isinstance(at, str) and at in w.place_index:
            return bool(obs.room_explored and w.room_of_place(at) == obs.room)
        return False

    def reality_note(self, state: Any, text: str) -> str:
        """For a belief that places an object (``... <wine>(5) ON <coffeetable>(1007)``, any order)
        and is false in ``state``: where the object really is ("it is in the fridge in the
        kitchen"); "" otherwise."""
        words = text.split()
        while len(words) >= 3 and words[1] == "BELIEVE":
            words = words[2:]
        where, _ = household_placements(self.world, [{"atom": " ".join(words), "p": 1.0}])
        for oid, spots in where.items():
            at = next(iter(spots))
            actual = self.world.where(state, self.world.object_index[oid])
            if actual != at:
                return f"it is {self.namer.location_words(actual)}"
        return ""
