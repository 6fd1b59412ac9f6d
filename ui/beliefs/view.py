"""The world as one mind believes it: what the map draws in the *As X believes it* view, without Qt
or pygame (the renderers only draw it).

A ``BelievedWorld`` is computed from the snapshots at the shown step and the true state there:

* ``ghosts``: things where the mind believes they are (drawn translucent, as opaque as the
  belief's probability), each marked ``true`` or not; a false one carries where the thing really
  is (``actual``), so the map can draw "thinks it is here / it is there", and its ``words``;
* ``unknown``: what the mind has never seen (places, rooms), shaded;
* ``goals``: believed goals (a facilitator's goal inference per agent);
* ``lines``: the false beliefs in plain words.

Which minds a world has and how their snapshots read is the world's own: its plug-in names a
``WorldBeliefs`` subclass (``WorldPlugin.beliefs``, ``"module:Class"``, found as its renderer is)
and ``beliefs_for(world)`` gives it. The adapter says which views an episode holds
(``view_choices``), builds the believed world of a view (``believed_world``) and of one snapshot
(``snapshot_views``, which the belief timeline follows), says a belief in words
(``ghost_words``, ``namer``), whether an agent sees a place (``sees``), and reads particle
snapshots (``particle_rows``, ``particles_legend``). This module names no world: a world without
an adapter has no believed views. Goal inference (``goal_posterior`` snapshots) is drawn by this
module for any world whose adapter lists the kind ``GOALS``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.plugins import plugins, resolve
from sim.snapshots import Belief, GoalPosterior, Particles, SymbolicBeliefs, read_snapshot
from ui.beliefs.words import Namer

BELIEF, PARTICLES, SYMBOLIC, GOALS = Belief.kind, Particles.kind, SymbolicBeliefs.kind, GoalPosterior.kind
#: a belief at or above this probability is what the mind holds (CoBel's threshold)
HELD = 0.5


@dataclass(frozen=True)
class Ghost:
    """``thing`` believed at ``at`` with probability ``p``; ``actual``: where it really is when the
    belief is false (None: not found anywhere, or the belief is true). What ``thing`` and ``at``
    are is the world's (an object name and a station, an object id and a place, ``agent:<name>``
    for a thing in an agent's hands)."""

    thing: str
    at: Any
    p: float
    true: bool
    actual: Any = None
    #: what really lies at ``at`` (the object name, "nothing"); "" when not known
    there: str = ""
    #: the belief in words (set for false ones: "alice thinks the wine is on the table; it is ...")
    words: str = field(default="", compare=False)


@dataclass(frozen=True)
class GoalBelief:
    agent: str
    goal: str
    p: float
    #: the goal is the agent's real one
    true: bool
    #: the likeliest of the agent's believed goals
    top: bool
    #: the belief in words (set for a false likeliest goal)
    words: str = field(default="", compare=False)


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


@dataclass(frozen=True)
class ParticleRow:
    """One believed content of one place in a ``particles`` snapshot, in words (the Particles tab)."""

    agent: str
    #: the place in words ("the top counter of the tomato room")
    where: str
    #: what is believed there, in words ("the onion", "not seen yet")
    believed: str
    share: float
    #: "yes" (true), "no" (a false belief) or "never seen" (the agent does not know: not false)
    verdict: str

    @property
    def false(self) -> bool:
        return self.verdict == "no"


def view_label(holder: str, about: str | None) -> str:
    if about is None:
        return f"As {holder} believes it"
    if about == "*":
        return f"As {holder} believes it (each agent's goal)"
    return f"As {holder} thinks {about} believes it"


def decided_in(timeline: Any, event: Any) -> Any:
    """The state an agent decided in when it reported ``event`` after a step (the world it believed
    things about is the state before that step)."""
    return timeline.state_at(max(0, min(event.tick - 1, timeline.num_steps)))


class WorldBeliefs:
    """How one world's minds are drawn and listed (module doc). This base draws nothing but goal
    inference, when ``kinds`` lists ``GOALS``; a world's plug-in names its subclass."""

    #: the snapshot kinds whose beliefs the views draw and the belief timeline lists
    kinds: tuple[str, ...] = ()
    #: how the world's things and places are said in words
    namer_class: type[Namer] = Namer
    #: what the map's particle chips mean, for the Particles tab's legend: (symbol, a few words, the
    #: whole meaning), the symbols among "item", "empty", "unseen", "false" (``ui.beliefs.particles`` draws them)
    particles_legend: tuple[tuple[str, str, str], ...] = ()

    def __init__(self, world: Any) -> None:
        self.world = world
        self.namer = self.namer_class(world)

    # ------------------------------------------------------------------ the views

    def view_choices(self, timeline: Any) -> list[ViewChoice]:
        """Every believed world the episode's snapshots can draw, in agent order."""
        out: list[ViewChoice] = []
        for holder, about in self.minds(timeline):
            choice = ViewChoice(holder, about, view_label(holder, about))
            if choice not in out:
                out.append(choice)
        if GOALS in self.kinds and timeline.has_belief_kind(GOALS):
            for owner in timeline.belief_owners(GOALS):
                choice = ViewChoice(owner, "*", view_label(owner, "*"))
                if choice not in out:
                    out.append(choice)
        return out

    def minds(self, timeline: Any) -> list[tuple[str, str | None]]:
        """(holder, about) of each view of the world's own snapshot kinds (goals aside)."""
        return []

    def believed_world(self, timeline: Any, tick: int, holder: str, about: str | None) -> BelievedWorld | None:
        """The world as ``holder`` believes it at step ``tick`` (``about``: what it thinks that agent
        believes; ``"*"``: its goal inference for every agent), or None when no snapshot says."""
        if about == "*":
            if GOALS not in self.kinds or not timeline.belief_at(holder, GOALS, tick):
                return None
            return goals_view(self.world, timeline.state_at(tick), holder, timeline.latest_by_subject(GOALS, tick))
        return self.mind(timeline, tick, holder, about)

    def mind(self, timeline: Any, tick: int, holder: str, about: str | None) -> BelievedWorld | None:
        """``believed_world`` for the world's own snapshot kinds."""
        return None

    def snapshot_views(self, timeline: Any, event: Any) -> list[BelievedWorld]:
        """The believed worlds one snapshot ``event`` of a kind in ``kinds`` holds (an agent's own
        and what it thinks others believe; a facilitator's view of one agent), for the belief
        timeline. Goal inference: the view of the one agent the snapshot is about."""
        if event.kind == GOALS:
            return [goals_view(self.world, timeline.state_at(max(0, min(event.tick, timeline.num_steps))),
                               event.owner, [event.data], tick=event.tick)]
        return []

    # ------------------------------------------------------------------ words and sight

    def ghost_words(self, agent: str, ghost: Ghost, prefix: str = "") -> str:
        """One belief in words: "alice thinks the wine is at the table; it is held by bob"."""
        prefix = prefix or f"{agent} thinks "
        share = f" ({ghost.p:.0%})" if ghost.p < 0.995 else ""
        said = f"{prefix}{self.namer.object_words(ghost.thing)} is {self.namer.location_words(ghost.at)}{share}"
        if ghost.true:
            return said
        return f"{said}; it is {self.namer.location_words(ghost.actual)}" if ghost.actual else f"{said}; it is not there"

    def was_true(self, view: BelievedWorld, thing: str, at: Any) -> bool:
        """Whether ``view`` (an earlier snapshot) held the belief that ``thing`` is at ``at`` and it
        was true then (a false belief that was true before arose because the world changed out of
        sight)."""
        at = tuple(at) if isinstance(at, list) else at
        return any(g.thing == thing and (tuple(g.at) if isinstance(g.at, list) else g.at) == at and g.true
                   for g in view.ghosts) or any(f"{b.agent}'s goal" == thing and b.goal == at and b.true and b.top
                                                for b in view.goals)

    def sees(self, state: Any, agent: str, thing: str, at: Any) -> bool:
        """Whether ``agent`` sees, in ``state``, the place ``at`` or the thing itself (what ends a
        false belief by the agent's own observation)."""
        return False

    def reality_note(self, state: Any, text: str) -> str:
        """For a belief statement (the world's snapshot text) false in ``state``: where the thing
        really is, in words ("it is in the fridge in the kitchen"); "" otherwise."""
        return ""

    # ------------------------------------------------------------------ particles

    def place_words(self, at: Any) -> str:
        """A place of a snapshot (a particle's ``at``) in words."""
        return ", ".join(str(x) for x in at) if isinstance(at, (list, tuple)) else str(at)

    def thing_words(self, thing: str) -> str:
        """A thing of a snapshot (a particle's ``item``) in words."""
        return thing

    def particle_rows(self, snapshot: Particles) -> list[ParticleRow]:
        """The entries of one ``particles`` snapshot in words (those that do not fit are left out)."""
        rows = []
        for entry in snapshot.unseen:
            try:
                share = float(entry.get("weight", 0.0))  # type: ignore[arg-type]
            except (TypeError, ValueError):
                continue
            item = str(entry.get("item", ""))
            verdict = self.particle_verdict(item, entry.get("true", True))
            rows.append(ParticleRow(snapshot.agent, self.place_words(entry.get("at")), self.thing_words(item),
                                    share, verdict))
        return rows

    def particle_verdict(self, item: str, true: Any) -> str:
        """"yes", "no" or "never seen" for a particle entry believing ``item`` (its ``true`` flag)."""
        return "yes" if true else "no"


_ADAPTER: list[tuple[Any, WorldBeliefs]] = []


def beliefs_for(world: Any) -> WorldBeliefs:
    """The belief adapter ``world``'s plug-in declares (``WorldPlugin.beliefs``), or the base one
    (no believed views) for a world without; the last one made is kept for the same world."""
    if _ADAPTER and _ADAPTER[0][0] is world:
        return _ADAPTER[0][1]
    found = plugins().get(getattr(world, "family", "")) if world is not None else None
    cls = resolve(found.beliefs) if found is not None and found.beliefs else WorldBeliefs
    adapter = cls(world)
    _ADAPTER[:] = [(world, adapter)]
    return adapter


def namer_for(world: Any) -> Namer:
    """How ``world``'s things and places are said in words (its adapter's ``namer``)."""
    return beliefs_for(world).namer


def view_choices(timeline: Any) -> list[ViewChoice]:
    """Every believed world the episode's snapshots can draw, in agent order."""
    if timeline is None:
        return []
    return beliefs_for(timeline.world).view_choices(timeline)


def believed_world(timeline: Any, tick: int, holder: str, about: str | None = None) -> BelievedWorld | None:
    """The world as ``holder`` believes it at step ``tick`` (``about``: what it thinks that agent
    believes; ``"*"``: its goal inference for every agent), or None when no snapshot says. An
    agent's own snapshot is compared with the state it decided in (the step before the snapshot);
    a facilitator's (particles, goals) with the state after the step, as it computes them."""
    if timeline is None:
        return None
    return beliefs_for(timeline.world).believed_world(timeline, tick, holder, about)


# --------------------------------------------------------------------------------- goals

def goals_view(world: Any, state: Any, owner: str, snapshots: Sequence[Mapping[str, Any]],
               tick: int = 0) -> BelievedWorld:
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
        words = ""
        if real is not None and best != real:
            words = (f"{owner} thinks {post.agent} wants {best} ({post.goals[best]:.0%}); "
                     f"it wants {real} ({post.goals.get(real, 0.0):.0%})")
            lines.append(words)
        for goal, p in post.goals.items():
            goals.append(GoalBelief(post.agent, goal, float(p), goal == real, goal == best,
                                    words if goal == best else ""))
    return BelievedWorld(owner, "*", None, (), (), tuple(goals), tuple(lines), tick)
