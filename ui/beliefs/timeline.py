"""Each agent's false beliefs over an episode, without Qt: when each arose, how long it lasted
and what ended it. Read from the snapshots and the event stream of a Timeline.

A false belief is a ghost of ``ui.beliefs.view`` that is not true and held (p >= 0.5): a cook's
remembered object that is no longer where it remembers it (kitchen ``belief`` snapshots), a CoBel
agent's belief that an object lies where it does not (household ``symbolic_beliefs``). Each is
followed from the first snapshot that holds it false to the first that no longer does:

* **arose** because the world changed out of the agent's sight (it believed the same before,
  and it was true then), or with a message or a facilitator's feedback it had just been given,
  or from the agent's own reasoning;
* **ended** by the agent's own observation (the place or the object came into its view), a
  facilitator's feedback or a message it had just been given, the world changing back (the thing
  was put back where it was believed), or the agent dropping it otherwise.

``BeliefHistory.update(timeline)`` reads only the snapshots added since its last call, so a
panel may call it at every refresh of a live episode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sim.events import FeedbackEvent, MessageEvent
from sim.snapshots import Belief, SymbolicBeliefs, read_snapshot
from ui.beliefs.view import BELIEF, HELD, SYMBOLIC, BelievedWorld, ghost_words, household_view, kitchen_view
from ui.beliefs.words import Namer

OBSERVATION = "own observation"


@dataclass
class FalseBelief:
    agent: str
    thing: str
    at: Any
    #: the belief in words, as it was when it arose
    text: str
    start: int
    arose: str
    end: int | None = None
    ended_by: str = ""

    def steps(self, until: int) -> int:
        """How many steps it lasted (until ``until`` while it is still held)."""
        return (self.end if self.end is not None else until) - self.start

    def summary(self, until: int) -> str:
        lasted = self.steps(until)
        span = f"step {self.start}" + (f"–{self.end}" if self.end is not None else " on")
        over = (f"ended by {self.ended_by} after {lasted} step{'s' if lasted != 1 else ''}"
                if self.end is not None else f"still held ({lasted} step{'s' if lasted != 1 else ''} so far)")
        return f"{span}: {self.text}. Arose: {self.arose}; {over}"


class BeliefHistory:
    """The false beliefs of every agent of one timeline, read incrementally (module doc)."""

    def __init__(self) -> None:
        self._timeline: Any = None
        self._read: dict[str, int] = {}
        #: per agent, the false beliefs held at its last snapshot: (thing, at) -> record
        self._open: dict[str, dict[tuple[str, Any], FalseBelief]] = {}
        #: per agent, its last snapshot's view and tick
        self._last: dict[str, tuple[int, BelievedWorld]] = {}
        self.beliefs: list[FalseBelief] = []
        self._namer: Namer | None = None

    def update(self, timeline: Any) -> list[FalseBelief]:
        """Every false belief so far, in the order they arose."""
        if timeline is not self._timeline:
            self.__init__()  # type: ignore[misc]
            self._timeline = timeline
            if timeline is not None:
                self._namer = Namer(timeline.world)
        if timeline is None:
            return []
        family = getattr(timeline.world, "family", "")
        kind = BELIEF if family == "kitchen" else SYMBOLIC if family == "household" else None
        if kind is None:
            return self.beliefs
        log = timeline.belief_log.get(kind, [])
        start = self._read.get(kind, 0)
        for event in log[start:]:
            self._read_snapshot(timeline, family, event)
        self._read[kind] = len(log)
        return self.beliefs

    def of(self, agent: str) -> list[FalseBelief]:
        return [b for b in self.beliefs if b.agent == agent]

    # ------------------------------------------------------------------ one snapshot

    def _view(self, timeline: Any, family: str, event: Any) -> BelievedWorld | None:
        state = timeline.state_at(max(0, min(event.tick - 1, timeline.num_steps)))  # the state it decided in
        if family == "kitchen":
            data = read_snapshot(Belief, event.data)
            return kitchen_view(timeline.world, state, event.owner, data, tick=event.tick) if data else None
        data = read_snapshot(SymbolicBeliefs, event.data)
        return household_view(timeline.world, state, data, tick=event.tick) if data else None

    def _read_snapshot(self, timeline: Any, family: str, event: Any) -> None:
        view = self._view(timeline, family, event)
        if view is None:
            return
        agent, tick = view.holder, event.tick
        before = self._last.get(agent)
        wrong = {(g.thing, _key(g.at)): g for g in view.ghosts
                 if not g.true and g.p >= HELD and g.thing not in ("nothing", "unknown")}
        held = self._open.setdefault(agent, {})
        since = before[0] if before is not None else 0
        for key in [k for k in held if k not in wrong]:
            record = held.pop(key)
            record.end = tick
            record.ended_by = self._ended_by(timeline, family, agent, record, view, since, tick)
        previous = {(g.thing, _key(g.at)): g for g in before[1].ghosts} if before is not None else {}
        assert self._namer is not None
        for key, ghost in wrong.items():
            if key in held:
                continue
            was = previous.get(key)
            if was is not None and was.true:
                arose = "the world changed out of its sight"
            else:
                arose = self._told(timeline, agent, since, tick) or "its own reasoning"
            record = FalseBelief(agent, ghost.thing, ghost.at, ghost_words(self._namer, agent, ghost), tick, arose)
            held[key] = record
            self.beliefs.append(record)
        self._last[agent] = (tick, view)

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

    def _ended_by(self, timeline: Any, family: str, agent: str, record: FalseBelief, view: BelievedWorld,
                  since: int, tick: int) -> str:
        world = timeline.world
        for k in (tick - 1, tick):
            if 0 <= k <= timeline.num_steps and _sees(world, family, timeline.state_at(k), agent, record):
                return OBSERVATION
        told = self._told(timeline, agent, since, tick)
        if told:
            return told
        now = {(g.thing, _key(g.at)): g for g in view.ghosts}
        if (record.thing, _key(record.at)) in now:
            return "the world changing back"
        return "the agent dropping it"


def _between(timeline: Any, cls: type, first: int, last: int) -> list[Any]:
    """The log events of ``cls`` shown from step ``first - 1`` to ``last`` (two bisections: the
    cost does not grow with the log)."""
    return timeline.of_type(cls)[timeline.count_of(cls, first - 2):timeline.count_of(cls, last + 1)]


def _key(at: Any) -> Any:
    return tuple(at) if isinstance(at, list) else at


def _sees(world: Any, family: str, state: Any, agent: str, record: FalseBelief) -> bool:
    """Whether ``agent`` sees, in ``state``, the place of ``record`` (or the thing itself)."""
    if family == "kitchen":
        s = world.station_at.get(world.cell(*record.at)) if isinstance(record.at, tuple) else None
        return s is not None and any(t == s for t, _ in world.observe(state, agent).stations)
    obs = world.observe(state, agent)
    if any(o.id == record.thing for o in obs.objects):
        return True
    at = record.at
    if isinstance(at, str) and at in world.place_index:
        return obs.room_explored and world.room_of_place(at) == obs.room
    return False
