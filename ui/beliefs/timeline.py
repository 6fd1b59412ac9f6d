"""Each mind's false beliefs over an episode, without Qt: when each arose, how long it lasted and
what ended it. Read from the snapshots and the event stream of a Timeline.

A false belief is a belief of a believed world (``ui.beliefs.view``) that is held (p >= 0.5) and
not true: a ghost where the thing is not (or, believed empty, a place where something lies: "it is
not there"), or a facilitator's likeliest goal for an agent that is not the agent's real one. The
world's belief adapter (``beliefs_for(world)``) says which snapshot kinds to follow and gives the
believed worlds each snapshot holds (``WorldBeliefs.snapshot_views``): an agent's own, what it
thinks another agent believes (first order), a facilitator's particles about an agent, its goal
inference. Each view is followed from the first snapshot that holds a belief false to the first
that no longer does:

* **arose** because the world changed out of sight (the same was believed before, and it was
  true then), or with a message or a facilitator's feedback just given, or from reasoning;
* **ended** by an observation (the place or the thing came into the view of the agent whose
  sight the view keeps), a facilitator's feedback or a message just given, the world changing
  back (the thing was put back where it was believed), or the mind dropping it otherwise.

``BeliefHistory.update(timeline)`` reads only the snapshots added since its last call, so a
panel may call it at every refresh of a live episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.events import FeedbackEvent, MessageEvent
from ui.beliefs.view import HELD, BelievedWorld, WorldBeliefs, beliefs_for

OBSERVATION = "own observation"


@dataclass
class FalseBelief:
    #: whose belief it is (an agent, or a facilitator for its particles and goal inference)
    agent: str
    thing: str
    at: Any
    #: the belief in words, as it was when it arose
    text: str
    start: int
    arose: str
    end: int | None = None
    ended_by: str = ""
    #: None: the holder's own belief; an agent: what the holder thinks that agent believes; "*":
    #: the holder's goal inference
    about: str | None = None

    @property
    def order(self) -> str:
        """What kind of belief it is, for people: "own belief", "what alice thinks bob believes",
        "goal inference"."""
        if self.about is None:
            return "own belief"
        if self.about == "*":
            return "goal inference"
        return f"what {self.agent} thinks {self.about} believes"

    def steps(self, until: int) -> int:
        """How many steps it lasted (until ``until`` while it is still held)."""
        return (self.end if self.end is not None else until) - self.start

    def summary(self, until: int) -> str:
        lasted = self.steps(until)
        span = f"step {self.start}" + (f"–{self.end}" if self.end is not None else " on")
        over = (f"ended by {self.ended_by} after {lasted} step{'s' if lasted != 1 else ''}"
                if self.end is not None else f"still held ({lasted} step{'s' if lasted != 1 else ''} so far)")
        return f"{span}: {self.text}. Arose: {self.arose}; {over}"


Key = tuple[str, Any]


class BeliefHistory:
    """The false beliefs of every mind of one timeline, read incrementally (module doc)."""

    def __init__(self) -> None:
        self._timeline: Any = None
        self._adapter: WorldBeliefs | None = None
        #: per snapshot kind, how many of its snapshots have been read
        self._read: dict[str, int] = {}
        #: per view (holder, about, the agent the snapshot is about), the false beliefs held at its
        #: last snapshot: (thing, at) -> record
        self._open: dict[tuple[str, Any, str], dict[Key, FalseBelief]] = {}
        #: per view, its last snapshot's tick and believed world
        self._last: dict[tuple[str, Any, str], tuple[int, BelievedWorld]] = {}
        self.beliefs: list[FalseBelief] = []

    def update(self, timeline: Any) -> list[FalseBelief]:
        """Every false belief so far, in the order they were read (each kind's in the order they
        arose)."""
        if timeline is not self._timeline:
            self.__init__()  # type: ignore[misc]
            self._timeline = timeline
            if timeline is not None:
                self._adapter = beliefs_for(timeline.world)
        if timeline is None or self._adapter is None:
            return []
        for kind in self._adapter.kinds:
            log = timeline.belief_log.get(kind, [])
            start = self._read.get(kind, 0)
            for event in log[start:]:
                subject = str(event.data.get("agent", event.owner)) if isinstance(event.data, dict) else event.owner
                for view in self._adapter.snapshot_views(timeline, event):
                    self._read_view(timeline, (view.holder, view.about, subject), view, event.tick)
            self._read[kind] = len(log)
        return self.beliefs

    def of(self, agent: str) -> list[FalseBelief]:
        return [b for b in self.beliefs if b.agent == agent]

    # ------------------------------------------------------------------ one snapshot

    def _read_view(self, timeline: Any, track: tuple[str, Any, str], view: BelievedWorld, tick: int) -> None:
        holder = view.holder
        before = self._last.get(track)
        wrong = held_false(view)
        held = self._open.setdefault(track, {})
        since = before[0] if before is not None else 0
        listener = view.eyes or holder
        for key in [k for k in held if k not in wrong]:
            record = held.pop(key)
            record.end = tick
            record.ended_by = self._ended_by(timeline, view, listener, record, since, tick)
        assert self._adapter is not None
        for key, (thing, at, words) in wrong.items():
            if key in held:
                continue
            if before is not None and self._adapter.was_true(before[1], thing, at):
                arose = "the world changed out of its sight"
            else:
                arose = self._told(timeline, listener, since, tick) or "its own reasoning"
            record = FalseBelief(holder, thing, at, words, tick, arose, about=view.about)
            held[key] = record
            self.beliefs.append(record)
        self._last[track] = (tick, view)

    def _told(self, timeline: Any, agent: str, since: int, tick: int) -> str:
        """A facilitator's feedback or a message the agent was given since its last snapshot."""
        feedback = [e for e in _between(timeline, FeedbackEvent, since, tick)
                    if e.target == agent and since <= e.tick <= tick]
        if feedback:
            return f"{feedback[-1].facilitator}'s feedback (step {feedback[-1].tick})"
        messages = [e for e in _between(timeline, MessageEvent, since - 1, tick)
                    if agent in e.recipients and since - 1 <= e.tick <= tick]
        if messages:
            return f"a message from {messages[-1].sender} (step {messages[-1].tick})"
        return ""

    def _ended_by(self, timeline: Any, view: BelievedWorld, listener: str, record: FalseBelief,
                  since: int, tick: int) -> str:
        assert self._adapter is not None
        if view.eyes is not None:
            for k in (tick - 1, tick):
                if 0 <= k <= timeline.num_steps and self._adapter.sees(timeline.state_at(k), view.eyes,
                                                                       record.thing, record.at):
                    return OBSERVATION if view.eyes == record.agent else f"{view.eyes}'s {OBSERVATION}"
        told = self._told(timeline, listener, since, tick)
        if told:
            return told
        if (record.thing, _key(record.at)) in beliefs_in(view):
            return "the world changing back"
        return "the agent dropping it" if record.agent in timeline.world.agents else f"{record.agent} revising it"


def held_false(view: BelievedWorld) -> dict[Key, tuple[str, Any, str]]:
    """The false beliefs ``view`` holds: (thing, at) -> (thing, at, words). A goal belief is
    (``"<agent>'s goal"``, the goal)."""
    out: dict[Key, tuple[str, Any, str]] = {}
    for g in view.ghosts:
        if not g.true and g.p >= HELD and g.words:
            out[(g.thing, _key(g.at))] = (g.thing, g.at, g.words)
    for b in view.goals:
        if b.top and not b.true and b.words:
            out[(f"{b.agent}'s goal", b.goal)] = (f"{b.agent}'s goal", b.goal, b.words)
    return out


def beliefs_in(view: BelievedWorld) -> dict[Key, bool]:
    """Every belief ``view`` holds, (thing, at) -> whether it is true."""
    out: dict[Key, bool] = {(g.thing, _key(g.at)): g.true for g in view.ghosts}
    out.update({(f"{b.agent}'s goal", b.goal): b.true for b in view.goals if b.top})
    return out


def _between(timeline: Any, cls: type, first: int, last: int) -> list[Any]:
    """The log events of ``cls`` shown from step ``first - 1`` to ``last`` (two bisections: the
    cost does not grow with the log)."""
    return timeline.of_type(cls)[timeline.count_of(cls, first - 2):timeline.count_of(cls, last + 1)]


def _key(at: Any) -> Any:
    return tuple(at) if isinstance(at, list) else at
