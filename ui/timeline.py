"""A Timeline: every state and every recorded event of one episode, live or replayed.

The views read a Timeline at a cursor (a step number): the state after ``k`` steps,
the events recorded up to then, the facilitator's goal posteriors over time, each
agent's latest plan. A live session appends to its Timeline as its worker thread
publishes; a recording is served through ``sim.replay.Replay`` (keyframes, so any
step is a few world steps away). Both answer the same questions, so the same views
show both, and "take over from here" reads the joint actions up to the cursor.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.events import (BeliefEvent, Event, FeedbackEvent, FeedbackStatusEvent, ObservationEvent,
                        OutcomeEvent, StepEvent)
from sim.replay import Replay
from sim.world import World

GOAL_POSTERIOR = "goal_posterior"
PLAN = "plan"


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


class GoalSeries:
    """One agent's goal posterior over time, as the facilitator reported it."""

    def __init__(self) -> None:
        self.goals: list[str] = []
        self.ticks: list[int] = []
        self.rows: list[list[float]] = []

    def add(self, tick: int, goals: dict[str, float]) -> None:
        for g in goals:
            if g not in self.goals:
                self.goals.append(g)
                for row in self.rows:
                    row.append(0.0)
        row = [float(goals.get(g, 0.0)) for g in self.goals]
        if self.ticks and self.ticks[-1] == tick:
            self.rows[-1] = row
        else:
            self.ticks.append(tick)
            self.rows.append(row)

    def until(self, tick: int, last: int | None = None) -> tuple[list[int], np.ndarray]:
        """Ticks and probabilities (rows x goals) reported at or before ``tick``."""
        n = bisect.bisect_right(self.ticks, tick)
        start = 0 if last is None else max(0, n - last)
        return self.ticks[start:n], np.asarray(self.rows[start:n], dtype=float).reshape(-1, len(self.goals))


class Timeline:
    """Shared bookkeeping of events; subclasses provide the states."""

    live = False

    def __init__(self, world: World, header: dict[str, Any]) -> None:
        self.world = world
        self.header = header
        self.seed = int(header.get("seed", 0))
        self.scenario = str(header.get("scenario") or getattr(world, "name", ""))
        #: events a person reads in the log, in order, with their display ticks
        #: every event but observations, in order (carried into a take-over)
        self.events: list[Event] = []
        self.log: list[Event] = []
        self.log_ticks: list[int] = []
        self.feedback: dict[int, FeedbackRecord] = {}
        self.feedback_ticks: list[int] = []
        self.goal_series: dict[str, GoalSeries] = defaultdict(GoalSeries)
        self._beliefs: dict[tuple[str, str], tuple[list[int], list[BeliefEvent]]] = {}
        self.outcome: OutcomeEvent | None = None
        self.version = 0  # bumped on every change, so views redraw only when needed

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
        if not isinstance(event, ObservationEvent):
            self.events.append(event)
        if isinstance(event, BeliefEvent):
            ticks, evs = self._beliefs.setdefault((event.owner, event.kind), ([], []))
            if ticks and ticks[-1] == event.tick:
                evs[-1] = event
            else:
                ticks.append(event.tick)
                evs.append(event)
            if event.kind == GOAL_POSTERIOR and isinstance(event.data.get("goals"), dict):
                self.goal_series[str(event.data.get("agent"))].add(event.tick, event.data["goals"])
            return
        if isinstance(event, ObservationEvent):
            return
        if isinstance(event, FeedbackEvent):
            self.feedback[event.feedback_id] = FeedbackRecord(event)
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

    def log_count(self, tick: int) -> int:
        """How many log entries are visible at step ``tick``."""
        return bisect.bisect_right(self.log_ticks, tick)

    def belief_at(self, owner: str, kind: str, tick: int) -> BeliefEvent | None:
        entry = self._beliefs.get((owner, kind))
        if entry is None:
            return None
        i = bisect.bisect_right(entry[0], tick) - 1
        return entry[1][i] if i >= 0 else None

    def belief_owners(self, kind: str) -> list[str]:
        return [owner for owner, k in self._beliefs if k == kind]

    def events_until(self, tick: int) -> list[Event]:
        return [e for e in self.events if display_tick(e) <= tick and not isinstance(e, OutcomeEvent)]

    def feedback_until(self, tick: int) -> list[FeedbackRecord]:
        return [r for r in self.feedback.values() if r.event.tick <= tick]

    def next_feedback_tick(self, after: int) -> int | None:
        i = bisect.bisect_right(self.feedback_ticks, after)
        return self.feedback_ticks[i] if i < len(self.feedback_ticks) else None

    def previous_feedback_tick(self, before: int) -> int | None:
        i = bisect.bisect_left(self.feedback_ticks, before) - 1
        return self.feedback_ticks[i] if i >= 0 else None

    def feedback_at(self, tick: int) -> list[FeedbackEvent]:
        return [r.event for r in self.feedback.values() if r.event.tick == tick]


class LiveTimeline(Timeline):
    """The timeline of a session running now; the worker thread's batches extend it."""

    live = True

    def __init__(self, world: World, header: dict[str, Any], initial_state: Any,
                 earlier: Sequence[Event] = ()) -> None:
        super().__init__(world, header)
        prefix = [dict(j) for j in header.get("prefix") or []]
        state = world.reset(self.seed)
        self._states = [state]
        for joint in prefix:
            state = world.step(state, {a: world.decode_action(x) for a, x in joint.items()}).state
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


class ReplayTimeline(Timeline):
    """A recorded episode; states are rebuilt by ``Replay`` from its keyframes."""

    def __init__(self, replay: Replay) -> None:
        super().__init__(replay.world, replay.recording.header)
        self.replay = replay
        self.path = replay.recording.path
        self.warnings = list(replay.warnings)
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
