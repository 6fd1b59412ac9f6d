"""The world as one mind believes it: what the map draws in the *As X believes it* view, without Qt
or pygame (the renderers only draw it).

A ``BelievedWorld`` is computed from the snapshots at the shown step and the true state there:

* ``ghosts``: objects where the mind believes they are (drawn translucent, as opaque as the
  belief's probability), each marked ``true`` or not; a false one carries where the thing really
  is (``actual``), so the map can draw "thinks it is here / it is there";
* ``unknown``: what the mind has never seen (kitchen stations, household rooms), shaded;
* ``goals``: believed goals (Doors, Keys and Gems: the facilitator's goal inference per agent);
* ``lines``: the same in plain words.

The minds it reads, per world (``view_choices`` lists those an episode holds):

* kitchen: a cook's own ``belief`` snapshot (``As alice believes it``), and ProToM's ``particles``
  (``As protom thinks alice believes it``: a distribution, one ghost per believed content);
* household: a CoBel agent's ``symbolic_beliefs``, zero-order (``As alice believes it``) and
  first-order (``As alice thinks bob believes it``);
* Doors, Keys and Gems: ``goal_posterior`` snapshots (``As protom believes it``: each agent's
  believed goal).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.snapshots import Belief, GoalPosterior, Particles, SymbolicBeliefs, read_snapshot
from ui.beliefs.words import Namer, kitchen_item_words

BELIEF, PARTICLES, SYMBOLIC, GOALS = Belief.kind, Particles.kind, SymbolicBeliefs.kind, GoalPosterior.kind
#: a belief at or above this probability is what the mind holds (CoBel's threshold)
HELD = 0.5
_PLACING = re.compile(r"^(<[^<>()]+>\((\d+)\)|[A-Za-z_][A-Za-z0-9_]*) (ON|IN|INSIDE|HOLD) <[^<>()]+>\((\d+)\)$")


@dataclass(frozen=True)
class Ghost:
    """``thing`` believed at ``at`` with probability ``p``; ``actual``: where it really is when the
    belief is false (None: not found anywhere, or the belief is true). Kitchen: ``thing`` is an
    object name, ``at``/``actual`` a (row, col) station or ``agent:<name>``; household: an object
    id, a place or container id or ``agent:<name>``."""

    thing: str
    at: Any
    p: float
    true: bool
    actual: Any = None
    #: what really lies at ``at`` (kitchen: the object name, "nothing"); "" when not known
    there: str = ""


@dataclass(frozen=True)
class GoalBelief:
    agent: str
    goal: str
    p: float
    #: the goal is the agent's real one
    true: bool
    #: the likeliest of the agent's believed goals
    top: bool


@dataclass(frozen=True)
class BelievedWorld:
    """What the *As X believes it* view draws (module doc)."""

    holder: str
    about: str | None
    #: whose fog of war the map keeps (an agent), or None
    eyes: str | None
    ghosts: tuple[Ghost, ...] = ()
    unknown: tuple[Any, ...] = ()
    goals: tuple[GoalBelief, ...] = ()
    lines: tuple[str, ...] = ()
    #: the step the snapshot was taken at
    tick: int = 0
    #: False when the mind has reported nothing yet at the shown step (nothing to draw)
    reported: bool = True

    @property
    def wrong(self) -> tuple[Ghost, ...]:
        return tuple(g for g in self.ghosts if not g.true)

    @property
    def title(self) -> str:
        return view_label(self.holder, self.about)


@dataclass(frozen=True)
class ViewChoice:
    holder: str
    about: str | None
    label: str = field(compare=False, default="")


def view_label(holder: str, about: str | None) -> str:
    if about is None:
        return f"As {holder} believes it"
    if about == "*":
        return f"As {holder} believes it (each agent's goal)"
    return f"As {holder} thinks {about} believes it"


def view_choices(timeline: Any) -> list[ViewChoice]:
    """Every believed world the episode's snapshots can draw, in agent order."""
    if timeline is None:
        return []
    world = timeline.world
    family = getattr(world, "family", "")
    agents = list(world.agents)
    out: list[ViewChoice] = []

    def add(holder: str, about: str | None) -> None:
        choice = ViewChoice(holder, about, view_label(holder, about))
        if choice not in out:
            out.append(choice)

    if family == "kitchen":
        for agent in agents:
            if agent in timeline.belief_owners(BELIEF):
                add(agent, None)
        for owner in timeline.belief_owners(PARTICLES):
            for agent in agents:
                add(owner, agent)
    elif timeline.has_belief_kind(SYMBOLIC):
        for agent in agents:
            event = timeline.belief_at(agent, SYMBOLIC, timeline.num_steps + 1)
            if event is None:
                continue
            add(agent, None)
            for partner in (event.data.get("first_order") or {}):
                add(agent, partner)
    if family == "dkg" and timeline.has_belief_kind(GOALS):
        for owner in timeline.belief_owners(GOALS):
            add(owner, "*")
    return out


def believed_world(timeline: Any, tick: int, holder: str, about: str | None = None) -> BelievedWorld | None:
    """The world as ``holder`` believes it at step ``tick`` (``about``: what it thinks that agent
    believes; ``"*"``: its goal inference for every agent), or None when no snapshot says. An
    agent's own snapshot is compared with the state it decided in (the step before the snapshot);
    a facilitator's (particles, goals) with the state after the step, as it computes them."""
    if timeline is None:
        return None
    world, state = timeline.world, timeline.state_at(tick)
    family = getattr(world, "family", "")

    def decided_in(event: Any) -> Any:
        # an agent reports after a step what it believed when it chose its action: the world
        # it believed things about is the state before that step
        return timeline.state_at(max(0, min(event.tick - 1, timeline.num_steps)))

    if about == "*":
        return goals_view(world, state, holder, timeline.latest_by_subject(GOALS, tick)) \
            if timeline.belief_at(holder, GOALS, tick) else None
    if family == "kitchen":
        if about is None:
            event = timeline.belief_at(holder, BELIEF, tick)
            data = read_snapshot(Belief, event.data) if event else None
            return kitchen_view(world, decided_in(event), holder, data, tick=event.tick) if data else None
        event = timeline.belief_at(holder, PARTICLES, tick)
        if event is None:
            return None
        found = [d for d in timeline.latest_by_subject(PARTICLES, tick) if d.get("agent") == about]
        data = read_snapshot(Particles, found[0]) if found else None
        return particles_view(world, state, holder, data, tick=event.tick) if data else None
    event = timeline.belief_at(holder, SYMBOLIC, tick)
    data = read_snapshot(SymbolicBeliefs, event.data) if event else None
    if data is None:
        return None
    return household_view(world, decided_in(event), data, about, tick=event.tick) if family == "household" else None


# --------------------------------------------------------------------------------- kitchen

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


def _kitchen_ghost(world: Any, state: Any, r: int, c: int, item: str, p: float) -> Ghost | None:
    from sim.kitchen.world import ITEM_CODE, ITEM_NAMES
    s = world.station_at.get(world.cell(r, c))
    if s is None or (item not in ITEM_CODE and item != "unknown"):
        return None
    there = ITEM_NAMES[state.contents[s]]
    true = item == there
    actual = None if true or item in ("nothing", "unknown") else _kitchen_find(world, state, item, (r, c))
    return Ghost(item, (r, c), p, true, actual, there)


def kitchen_view(world: Any, state: Any, agent: str, data: Belief, tick: int = 0) -> BelievedWorld:
    """A cook's own ``belief`` snapshot: each remembered object a ghost; stations out of view it
    believes empty that are not (true: False, thing "nothing"); stations never seen unknown."""
    from sim.kitchen.world import DELIVERY, ITEM_NAMES, NOTHING
    namer = Namer(world)
    ghosts: list[Ghost] = []
    listed: set[tuple[int, int]] = set()
    for entry in data.objects:
        try:
            r, c, item = int(entry[0]), int(entry[1]), str(entry[2])
        except (TypeError, ValueError, IndexError):
            continue
        listed.add((r, c))
        ghost = _kitchen_ghost(world, state, r, c, item, 1.0)
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
    i = world.agent_index.get(agent)
    if i is not None:
        seen = {s for s, _ in world.observe(state, agent).stations}
        for s, cell in enumerate(world.station_cells):
            rc = world.rc(cell)
            if s in seen or rc in listed or world.station_kind[s] == DELIVERY or state.contents[s] == NOTHING:
                continue
            ghosts.append(Ghost("nothing", rc, 1.0, False, None, ITEM_NAMES[state.contents[s]]))
    lines = tuple(ghost_words(namer, agent, g) for g in ghosts if not g.true)
    return BelievedWorld(agent, None, agent, tuple(ghosts), tuple(unknown), (), lines, tick)


def particles_view(world: Any, state: Any, owner: str, data: Particles, tick: int = 0) -> BelievedWorld:
    """ProToM's particles about one cook: every believed content of every station it cannot see,
    with its share of particles (a distribution: several ghosts per station)."""
    namer = Namer(world)
    ghosts = []
    unknown = []
    for entry in data.unseen:
        try:
            (r, c), item = entry["at"], str(entry["item"])
            r, c, p = int(r), int(c), float(entry.get("weight", 1.0))
        except (KeyError, TypeError, ValueError):
            continue
        if item == "unknown":
            unknown.append((r, c))
            continue
        ghost = _kitchen_ghost(world, state, r, c, item, p)
        if ghost is not None:
            ghosts.append(ghost)
    ghosts.sort(key=lambda g: (g.at, -g.p))
    lines = tuple(ghost_words(namer, data.agent, g, f"{owner} thinks {data.agent} thinks ")
                  for g in ghosts if not g.true and g.p >= HELD)
    return BelievedWorld(owner, data.agent, data.agent if data.agent in world.agent_index else None,
                         tuple(ghosts), tuple(unknown), (), lines, tick)


# --------------------------------------------------------------------------------- household

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


def household_view(world: Any, state: Any, data: SymbolicBeliefs, about: str | None = None,
                   tick: int = 0) -> BelievedWorld | None:
    """A CoBel belief world: each object at its likeliest believed place (zero-order, or what the
    owner thinks ``about`` believes), true or not; rooms not believed explored are unknown."""
    if about is None:
        entries = data.zero_order
    elif about in (data.first_order or {}):
        entries = data.first_order[about]
    else:
        return None
    namer = Namer(world)
    where, explored = household_placements(world, [e for e in entries if isinstance(e, Mapping)])
    ghosts = []
    for oid in sorted(where, key=lambda o: world.object_index[o]):
        at, p = max(where[oid].items(), key=lambda kv: (kv[1], kv[0]))
        actual = world.where(state, world.object_index[oid])
        ghosts.append(Ghost(oid, at, p, at == actual, None if at == actual else actual))
    unknown = tuple(r for r in world.room_ids if r not in explored)
    prefix = f"{data.agent} thinks " + (f"{about} thinks " if about else "")
    lines = tuple(ghost_words(namer, data.agent, g, prefix) for g in ghosts if not g.true and g.p >= HELD)
    eyes = data.agent if data.agent in world.agent_index else None
    return BelievedWorld(data.agent, about, eyes, tuple(ghosts), unknown, (), lines, tick)


# --------------------------------------------------------------------------------- goals

def goals_view(world: Any, state: Any, owner: str, snapshots: Sequence[Mapping[str, Any]]) -> BelievedWorld:
    """Goal inference (``goal_posterior``): every goal with its probability per agent, the
    likeliest marked, each marked true when it is the agent's real goal."""
    goals: list[GoalBelief] = []
    lines = []
    for data in snapshots:
        post = read_snapshot(GoalPosterior, data)
        if post is None or not post.goals:
            continue
        real = world.goal_of(post.agent) if hasattr(world, "goal_of") else None
        best = max(post.goals.items(), key=lambda kv: kv[1])[0]
        for goal, p in post.goals.items():
            goals.append(GoalBelief(post.agent, goal, float(p), goal == real, goal == best))
        if real is not None and best != real:
            lines.append(f"{owner} thinks {post.agent} wants {best} ({post.goals[best]:.0%}); "
                         f"it wants {real} ({post.goals.get(real, 0.0):.0%})")
    return BelievedWorld(owner, "*", None, (), (), tuple(goals), tuple(lines))


# --------------------------------------------------------------------------------- words

def ghost_words(namer: Namer, agent: str, ghost: Ghost, prefix: str = "") -> str:
    """One belief in words: "alice thinks the wine is on the coffee table in the livingroom; it is
    in the fridge in the kitchen"."""
    prefix = prefix or f"{agent} thinks "
    share = f" ({ghost.p:.0%})" if ghost.p < 0.995 else ""
    if namer.family == "kitchen":
        where = namer.kitchen_place(ghost.at)
        if ghost.thing == "nothing":
            said = f"{prefix}nothing is {where[3:] if where.startswith('on ') else where}{share}"
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
    said = f"{prefix}{namer.object_words(ghost.thing)} is {namer.location_words(ghost.at)}{share}"
    if ghost.true:
        return said
    return f"{said}; it is {namer.location_words(ghost.actual)}" if ghost.actual else f"{said}; it is not there"


def reality_note(world: Any, state: Any, text: str, namer: Namer | None = None) -> str:
    """For a household belief that places an object (``... <wine>(5) ON <coffeetable>(1007)``, any
    order) and is false in ``state``: where the object really is ("it is in the fridge in the
    kitchen"); "" otherwise (and in other worlds)."""
    if getattr(world, "family", "") != "household":
        return ""
    words = text.split()
    while len(words) >= 3 and words[1] == "BELIEVE":
        words = words[2:]
    where, _ = household_placements(world, [{"atom": " ".join(words), "p": 1.0}])
    for oid, spots in where.items():
        at = next(iter(spots))
        actual = world.where(state, world.object_index[oid])
        if actual != at:
            return f"it is {(namer or Namer(world)).location_words(actual)}"
    return ""
