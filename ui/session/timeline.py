"""A Timeline: every state and every recorded event of one episode, live or replayed.

The views read a Timeline at a cursor (a step number): the state after ``k`` steps,
the events recorded up to then, and every mind's belief snapshots by owner and kind. A live session appends to its Timeline as its worker thread
publishes; a recording is served through ``sim.replay.Replay`` (keyframes, so any
step is a few world steps away). Both answer the same questions, so the same views
show both, and "take over from here" reads the joint actions up to the cursor.
"""

from __future__ import annotations

import bisect
import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sim.events import BeliefEvent, Event, FeedbackEvent, FeedbackStatusEvent, ObservationEvent, OutcomeEvent, StepEvent
from sim.questions import Question, recorded_questions
from sim.replay import Replay
from sim.rounds import step_recorded
from sim.world import World

PLAN = "plan"  # the belief kind of an agent's planned path, drawn on the map


def display_tick(event: Event) -> int:
    """The step after which an event is visible: a step event from state k shows at k + 1."""
    return event.tick + 1 if isinstance(event, StepEvent) else event.tick


@dataclass
class FeedbackRecord:
    event: FeedbackEvent
    #: (tick, status) in the order they were reported
    statuses: list[tuple[int, str]] = field(default_factory=list)

    def status_at(self, tick: int) -> str:
        current = "sent"
        for t, status in self.statuses:
            if t <= tick:
                current = status
        return current


class Timeline:
    """Shared bookkeeping of events; subclasses provide the states."""

    live = False

    def __init__(self, world: World, header: dict[str, Any]) -> None:
        self.world = world
        self.header = header
        self.seed = int(header.get("seed", 0))
        #: task rounds of the episode (``sim/rounds.py``)
        self.rounds = int(header.get("rounds", 1))
        self.scenario = str(header.get("scenario") or getattr(world, "name", ""))
        #: events a person reads in the log, in order, with their display ticks
        #: every event but observations, in order (carried into a take-over)
        self.events: list[Event] = []
        self.log: list[Event] = []
        self.log_ticks: list[int] = []
        self.feedback: dict[int, FeedbackRecord] = {}
        self.feedback_ticks: list[int] = []
        self._beliefs: dict[tuple[str, str], tuple[list[int], list[BeliefEvent]]] = {}
        #: every belief snapshot of a kind, in the order they were emitted
        self.belief_log: dict[str, list[BeliefEvent]] = {}
        #: the log by event class: class -> (display ticks, events), so a view finds what is
        #: visible at a step by bisection and reads only what it has not read yet
        self._by_type: dict[type, tuple[list[int], list[Event]]] = {}
        #: kind -> subject -> (ticks, snapshots): each agent's snapshots of a kind (the data's
        #: ``agent``, else the owner), subjects in the order they first reported
        self._by_subject: dict[str, dict[str, tuple[list[int], list[BeliefEvent]]]] = {}
        #: the feedback records in the order given, and the step each was given at
        self._feedback_records: list[FeedbackRecord] = []
        self._record_ticks: list[int] = []
        self.type_counts: Counter[str] = Counter()
        self.outcome: OutcomeEvent | None = None
        self.version = 0  # bumped on every change, so views redraw only when needed

    @functools.cached_property
    def questions(self) -> tuple[Question, ...]:
        """The teaching questions the episode was played with, from its header; a recording of
        format version 2 or before did not keep them: its scenario file's as it is now (none
        when that file is gone or cannot be read)."""
        recorded = recorded_questions(self.header)
        if recorded is not None:
            return recorded
        from ui.session.catalog import scenario_questions

        return scenario_questions(self.scenario)

    # --------------------------------------------------------------- states

    @property
    def num_steps(self) -> int:
        raise NotImplementedError

    def state_at(self, k: int) -> Any:
        raise NotImplementedError

    def joint_action(self, k: int) -> dict[str, Any]:
        raise NotImplementedError

    def joint_actions(self, until: int) -> list[dict[str, Any]]:
        return [self.joint_action(i) for i in range(until)]

    # --------------------------------------------------------------- events

    def add_events(self, events: Iterable[Event]) -> None:
        for event in events:
            self._index(event)
        self.version += 1

    def _index(self, event: Event) -> None:
        self.type_counts[event.type] += 1
        if not isinstance(event, ObservationEvent):
            self.events.append(event)
        if isinstance(event, BeliefEvent):
            self.belief_log.setdefault(event.kind, []).append(event)
            subject = str(event.data.get("agent", event.owner))
            sticks, sevs = self._by_subject.setdefault(event.kind, {}).setdefault(subject, ([], []))
            sticks.append(event.tick)
            sevs.append(event)
            ticks, evs = self._beliefs.setdefault((event.owner, event.kind), ([], []))
            if ticks and ticks[-1] == event.tick:
                evs[-1] = event
            else:
                ticks.append(event.tick)
                evs.append(event)
            return
        if isinstance(event, ObservationEvent):
            return
        if isinstance(event, FeedbackEvent):
            record = FeedbackRecord(event)
            old = self.feedback.get(event.feedback_id)
            if old is not None:  # a repeated id replaces its record where it stood
                self._feedback_records[self._feedback_records.index(old)] = record
            else:
                self._feedback_records.append(record)
                self._record_ticks.append(event.tick)
            self.feedback[event.feedback_id] = record
            self.feedback_ticks.append(event.tick)
        elif isinstance(event, FeedbackStatusEvent) and event.feedback_id in self.feedback:
            self.feedback[event.feedback_id].statuses.append((event.tick, event.status))
        elif isinstance(event, OutcomeEvent):
            self.outcome = event
        t = display_tick(event)
        if self.log_ticks and t < self.log_ticks[-1]:
            t = self.log_ticks[-1]  # keep the index sorted even for out-of-order stamps
        self.log.append(event)
        self.log_ticks.append(t)
        ticks, events = self._by_type.setdefault(type(event), ([], []))
        ticks.append(t)
        events.append(event)

    def log_count(self, tick: int) -> int:
        """How many log entries are visible at step ``tick``."""
        return bisect.bisect_right(self.log_ticks, tick)

    def of_type(self, cls: type) -> list[Event]:
        """Every log event of class ``cls``, in order (read with ``count_of`` for a step)."""
        return self._by_type.get(cls, ([], []))[1]

    def count_of(self, cls: type, tick: int) -> int:
        """How many log events of class ``cls`` are visible at step ``tick`` (a bisection)."""
        return bisect.bisect_right(self._by_type.get(cls, ([], []))[0], tick)

    def belief_at(self, owner: str, kind: str, tick: int) -> BeliefEvent | None:
        entry = self._beliefs.get((owner, kind))
        if entry is None:
            return None
        i = bisect.bisect_right(entry[0], tick) - 1
        return entry[1][i] if i >= 0 else None

    def belief_owners(self, kind: str) -> list[str]:
        return [owner for owner, k in self._beliefs if k == kind]

    def has_belief_kind(self, kind: str) -> bool:
        return kind in self.belief_log

    def latest_belief(self, kind: str, tick: int) -> BeliefEvent | None:
        """The newest snapshot of ``kind`` at or before ``tick``, whoever its owner."""
        found = [b for b in (self.belief_at(o, kind, tick) for o in self.belief_owners(kind)) if b is not None]
        return max(found, key=lambda b: b.tick) if found else None

    def latest_by_subject(self, kind: str, tick: int) -> tuple[dict[str, Any], ...]:
        """Each agent's latest ``kind`` snapshot data at or before ``tick`` (the data's ``agent``,
        else the owner), whoever reported it, in the order the agents first reported. Several
        agents' snapshots may share one owner and tick (ProToM reports one per agent). A
        bisection per agent: the cost does not grow with the log."""
        found = []
        for ticks, events in self._by_subject.get(kind, {}).values():
            i = bisect.bisect_right(ticks, tick) - 1
            if i >= 0:
                found.append((ticks[0], dict(events[i].data)))
        return tuple(data for _, data in found)

    def event_count(self, event_type: str) -> int:
        return self.type_counts[event_type]

    def events_until(self, tick: int) -> list[Event]:
        return [e for e in self.events if display_tick(e) <= tick and not isinstance(e, OutcomeEvent)]

    def feedback_until(self, tick: int) -> list[FeedbackRecord]:
        return self._feedback_records[:bisect.bisect_right(self._record_ticks, tick)]

    def next_feedback_tick(self, after: int) -> int | None:
        i = bisect.bisect_right(self.feedback_ticks, after)
        return self.feedback_ticks[i] if i < len(self.feedback_ticks) else None

    def previous_feedback_tick(self, before: int) -> int | None:
        i = bisect.bisect_left(self.feedback_ticks, before) - 1
        return self.feedback_ticks[i] if i >= 0 else None

    def feedback_at(self, tick: int) -> list[FeedbackEvent]:
        lo, hi = bisect.bisect_left(self._record_ticks, tick), bisect.bisect_right(self._record_ticks, tick)
        return [r.event for r in self._feedback_records[lo:hi]]


class LiveTimeline(Timeline):
    """The timeline of a session running now; the worker thread's batches extend it."""

    live = True

    def __init__(self, world: World, header: dict[str, Any], initial_state: Any,
                 earlier: Sequence[Event] = ()) -> None:
        super().__init__(world, header)
        prefix = [dict(j) for j in header.get("prefix") or []]
        state = world.reset(self.seed)
        self._states = [state]
        round_index = 0
        for joint in prefix:
            step = step_recorded(world, state, joint, self.seed, round_index, self.rounds)
            state, round_index = step.state, step.round
            self._states.append(state)
        self._joints = prefix
        if prefix and world.state_hash(state) != world.state_hash(initial_state):
            raise ValueError("the take-over prefix does not lead to the session's first state")
        self._states[-1] = initial_state
        self.add_events(e for e in earlier if not isinstance(e, OutcomeEvent))

    @property
    def num_steps(self) -> int:
        return len(self._states) - 1

    def state_at(self, k: int) -> Any:
        return self._states[k]

    def joint_action(self, k: int) -> dict[str, Any]:
        return self._joints[k]

    def append(self, events: Sequence[Event], state: Any | None) -> None:
        for event in events:
            if isinstance(event, StepEvent):
                self._joints.append(dict(event.joint_action))
        if state is not None and len(self._joints) == len(self._states):
            self._states.append(state)
        self.add_events(events)


class PreviewTimeline(Timeline):
    """The first state of a recording whose file is still loading, built from its header alone
    (a few milliseconds), so the window shows something at once; the ReplayTimeline replaces
    it when the whole file is read and checked."""

    loading = True

    def __init__(self, path: Any, header: dict[str, Any], world: World) -> None:
        super().__init__(world, header)
        self.path = path
        self._state = world.reset(self.seed)

    @classmethod
    def from_file(cls, path: Any) -> "PreviewTimeline":
        from sim.recording import read_header
        from sim.registry import build_world

        header = read_header(path)
        return cls(path, header, build_world(header["world"], header["spec"]))

    @property
    def num_steps(self) -> int:
        return 0

    def state_at(self, k: int) -> Any:
        return self._state

    def joint_action(self, k: int) -> dict[str, Any]:
        raise IndexError("the recording is still loading")


class ReplayTimeline(Timeline):
    """A recorded episode; states are rebuilt by ``Replay`` from its keyframes."""

    def __init__(self, replay: Replay) -> None:
        super().__init__(replay.world, replay.recording.header)
        self.replay = replay
        self.path = replay.recording.path
        # a file without a hash chain says so first: nothing in it is verified
        self.warnings = [replay.unverified] * bool(replay.unverified) + list(replay.warnings)
        n = replay.num_steps
        self.add_events(e for e in replay.recording.events
                        if not (isinstance(e, StepEvent) and e.tick >= n))

    @property
    def num_steps(self) -> int:
        return self.replay.num_steps

    def state_at(self, k: int) -> Any:
        return self.replay.state_at(k)

    def joint_action(self, k: int) -> dict[str, Any]:
        return self.replay.joint_action(k)
