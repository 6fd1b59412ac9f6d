"""The session runner: a Session stepping in a worker thread, talking to the GUI by signals.

The GUI thread never touches the Session. The worker collects the Events the Session
emits and publishes them in batches (one per step, plus any between steps) through a
queued signal; the batch carries the new state, an immutable value the views may read.
Human input travels the other way through thread-safe queues (``HumanAgent.submit`` /
``decide``) and a condition variable that wakes the worker.

Pacing: while ``playing`` the worker takes a step every ``1 / speed`` seconds; when
paused it steps only on ``request_step``. A seat that takes long to answer (an LLM) is
announced with ``thinking`` so the window can show an indicator; the window never waits.
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PyQt6.QtCore import QObject, pyqtSignal

from agents.human import HumanAgent
from sim.events import ErrorEvent, Event, FeedbackEvent, FeedbackStatusEvent, OutcomeEvent, StepEvent
from sim.recording import RecordingWriter
from sim.session import Session, TickStatus


def payload_key(payload: Any) -> str:
    """A canonical text of a feedback payload: two suggestions are the same when these match."""
    return json.dumps(payload, sort_keys=True, default=str)


class RepeatedSuggestionRule:
    """When an ignored suggestion may be put to a person again.

    The *situation* of a suggestion is what the world held when it was given, as far as the
    rules record changes: every step that has world events (an item picked up or handed over,
    a door unlocked, a goal reached, a craft, a trade...) changes it; steps that only move
    agents do not. A suggestion is a *repeat* when the same target was given the same payload
    before, ignored it, and no step with a world event happened since that earlier suggestion
    was given. Repeats are not shown: the person's seat declines them at once (recorded as
    ``ignored``, so the facilitator and the recording see what happened). Only ignored
    suggestions are held back; accepted ones and agents' feedback are untouched.
    """

    def __init__(self) -> None:
        self.changes = 0  # steps with world events so far
        self._given: dict[int, tuple[tuple[str, str], int]] = {}  # feedback id -> (key, changes when given)
        self._ignored: dict[tuple[str, str], int] = {}  # key -> changes when the ignored one was given

    def observe(self, event: Event) -> None:
        if isinstance(event, StepEvent):
            if event.world_events:
                self.changes += 1
        elif isinstance(event, FeedbackEvent):
            self._given[event.feedback_id] = ((event.target, payload_key(event.feedback)), self.changes)
        elif isinstance(event, FeedbackStatusEvent) and event.status == "ignored":
            given = self._given.get(event.feedback_id)
            if given is not None:
                self._ignored[given[0]] = given[1]

    def is_repeat(self, target: str, payload: Any) -> bool:
        return self._ignored.get((target, payload_key(payload))) == self.changes


@dataclass(frozen=True, slots=True)
class Batch:
    """What the worker publishes: events since the last batch and, after a step, the new state."""

    events: tuple[Event, ...]
    state: Any | None
    tick: int
    finished: bool
    waiting_for: tuple[str, ...]


class SessionRunner(QObject):
    published = pyqtSignal(object)        # Batch
    thinking = pyqtSignal(object)         # frozenset of agents whose decision is being computed
    failed = pyqtSignal(str)              # the worker itself crashed (not an agent: those are ErrorEvents)
    finished = pyqtSignal()

    def __init__(self, session: Session, *, speed: float = 4.0, playing: bool = True,
                 recording_path: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.humans: dict[str, HumanAgent] = {a: s for a, s in session.seats.items() if isinstance(s, HumanAgent)}
        self._cond = threading.Condition()
        self._stop = False
        self._playing = playing
        self._step_requests = 0
        self._speed = max(0.1, float(speed))
        self._pending: list[Event] = []
        self._pending_lock = threading.Lock()
        self._submitted: set[str] = set()  # human seats that gave their action for this step
        #: events from the viewer (a teaching answer) the worker adds to the stream before its next step
        self._viewer_events: list[Event] = []
        #: while this says True of the Session the worker takes no step (a question waits for its answer)
        self._hold: Callable[[Session], bool] | None = None
        self.writer: RecordingWriter | None = None
        if recording_path is not None:
            self.writer = RecordingWriter.attach(session, recording_path)
        #: feedback ids the person's seat declined without showing them (repeats, pop-ups off)
        self.auto_declined: set[int] = set()
        self._rule = RepeatedSuggestionRule()
        self._popups = True
        for event in session.events:  # a take-over carries the earlier episode's events
            self._rule.observe(event)
        session.subscribe(self._collect)
        for agent, human in self.humans.items():  # a refused action: that person moves again
            human.on_refused = lambda _action, _reason, a=agent: self._refused(a)
            human.on_feedback = lambda feedback, a=agent: self._offered(a, feedback)
        #: True once ``stop`` gave up waiting for a decision (the worker ends when it returns)
        self.abandoned = False
        self._thread = threading.Thread(target=self._run, name="tom-arena-session", daemon=True)

    # ------------------------------------------------------------ GUI thread

    def start(self) -> None:
        self._thread.start()

    @property
    def playing(self) -> bool:
        return self._playing

    def set_playing(self, playing: bool) -> None:
        with self._cond:
            self._playing = playing
            self._cond.notify_all()

    def set_speed(self, steps_per_second: float) -> None:
        with self._cond:
            self._speed = max(0.1, float(steps_per_second))
            self._cond.notify_all()

    def request_step(self) -> None:
        with self._cond:
            self._step_requests += 1
            self._cond.notify_all()

    def submit_human(self, agent: str, action: Any) -> None:
        """Queue a person's action; it is taken at once, even while the episode is paused."""
        with self._pending_lock:
            self._submitted.add(agent)
        self.humans[agent].submit(action)
        with self._cond:
            if not self._playing:
                self._step_requests += 1
            self._cond.notify_all()

    def hold_while(self, predicate: Callable[[Session], bool] | None) -> None:
        """Take no step while ``predicate(session)`` is True (asked in the worker thread before
        each step, so it may read the Session): play waits there, and so do step requests."""
        with self._cond:
            self._hold = predicate
            self._cond.notify_all()

    def record(self, event: Event) -> None:
        """Add an event of the viewer's (a teaching answer) to the stream: the worker emits it
        before its next step, at once when idle; the recording and the window get it like any."""
        with self._pending_lock:
            self._viewer_events.append(event)
        self.notify()

    def _held(self) -> bool:
        return self._hold is not None and self._hold(self.session)

    def _flush_viewer_events(self) -> None:
        with self._pending_lock:
            events, self._viewer_events = self._viewer_events, []
        for event in events:
            self.session.emit(event)
        if events:
            self._publish()

    def submitted_since_step(self) -> frozenset[str]:
        """Human seats whose action for the coming step is queued or taken."""
        with self._pending_lock:
            return frozenset(self._submitted)

    def _refused(self, agent: str) -> None:
        with self._pending_lock:
            self._submitted.discard(agent)

    def set_popups(self, shown: bool) -> None:
        """Pop-ups off: every later suggestion to a person's seat is declined for them."""
        with self._pending_lock:
            self._popups = bool(shown)

    @property
    def popups(self) -> bool:
        return self._popups

    def _offered(self, agent: str, feedback: Any) -> None:
        # Worker thread, while the Session routes the feedback: decline what the person should
        # not be asked again before the window ever sees it.
        with self._pending_lock:
            decline = not self._popups or self._rule.is_repeat(agent, feedback.payload)
            if decline:
                self.auto_declined.add(feedback.feedback_id)
        if decline:
            self.humans[agent].decide(feedback.feedback_id, False)

    def decide_feedback(self, agent: str, feedback_id: int, accept: bool) -> None:
        self.humans[agent].decide(feedback_id, accept)
        self.notify()

    def notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def stop(self, timeout: float = 10.0) -> None:
        """End the episode (the recording gets its footer) and wait up to ``timeout`` s for the
        worker. A worker still deciding then (a planner or a model call that takes long) is
        abandoned: the recording ends here as stopped, and whatever the decision brings later is
        dropped (``abandoned``)."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
            if self._thread.is_alive():
                self._abandon()
        if not self._thread.is_alive() and not self._thread.ident:
            self._finish_unstarted()

    def _abandon(self) -> None:
        self.abandoned = True
        session, writer = self.session, self.writer
        if writer is not None and not writer.closed:
            writer.on_event(OutcomeEvent(tick=session.tick, outcome=session.outcome(stopped=True),
                                         metrics=session.metrics()))

    def _finish_unstarted(self) -> None:
        if not self.session.finished:
            self.session.stop()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # ------------------------------------------------------------ worker thread

    def _collect(self, event: Event) -> None:
        with self._pending_lock:
            self._pending.append(event)
            self._rule.observe(event)

    def _publish(self, state: Any | None = None, waiting: Sequence[str] = ()) -> None:
        with self._pending_lock:
            events, self._pending = tuple(self._pending), []
        if not events and state is None and not waiting:
            return
        self.published.emit(Batch(events=events, state=state, tick=self.session.tick,
                                  finished=self.session.finished, waiting_for=tuple(waiting)))

    def _poll_humans(self) -> None:
        for human in self.humans.values():
            human.poll()

    def _run(self) -> None:
        session = self.session
        try:
            self._publish()
            last_step = 0.0
            announced_wait: tuple[str, ...] = ()
            shown_thinking: frozenset[str] = frozenset()

            def thinking(agents: frozenset[str]) -> None:
                nonlocal shown_thinking
                if agents != shown_thinking:
                    shown_thinking = agents
                    self.thinking.emit(agents)

            while True:
                with self._cond:
                    while not self._stop:
                        if self._viewer_events:
                            self._cond.release()
                            try:
                                self._flush_viewer_events()
                            finally:
                                self._cond.acquire()
                        due = (self._playing or self._step_requests > 0) and not self._held()
                        if due and self._playing and self._step_requests == 0:
                            remaining = last_step + 1.0 / self._speed - time.monotonic()
                            if remaining > 0:
                                self._cond.wait(remaining)
                                continue
                        if due:
                            break
                        self._cond.wait(0.25)
                        self._poll_humans_locked()
                    if self._stop:
                        break
                self._poll_humans()
                self._publish()
                # Seats asked now (an LLM seat may answer PENDING while its call runs in the
                # background): the window shows them as thinking if this takes a while.
                thinking(frozenset(a for a in session.waiting_for() if a not in self.humans))
                status = session.advance()
                if status is not TickStatus.WAITING:
                    thinking(frozenset())
                else:
                    thinking(frozenset(a for a in session.waiting_for() if a not in self.humans))
                if status is TickStatus.ADVANCED:
                    with self._pending_lock:
                        self._submitted.clear()
                    last_step = time.monotonic()
                    with self._cond:
                        if self._step_requests > 0:
                            self._step_requests -= 1
                    announced_wait = ()
                    self._publish(session.state)
                    if session.finished:
                        break
                elif status is TickStatus.WAITING:
                    waiting = session.waiting_for()
                    if waiting != announced_wait:
                        announced_wait = waiting
                        self._publish(waiting=waiting)
                    with self._cond:
                        if not self._stop:
                            self._cond.wait(0.1)
                else:
                    break
        except Exception as exc:  # the loop itself failed: report, end the episode cleanly
            message = f"{type(exc).__name__}: {exc}"
            session.emit(ErrorEvent(tick=session.tick, source="runner", kind="runner_crash",
                                    message=message + "\n" + traceback.format_exc(limit=6)))
            self.failed.emit(message)
        finally:
            if not self.abandoned:  # else the window has moved on (it may be gone): nothing to tell it
                if not session.finished:
                    session.stop()
                if self.writer is not None and not self.writer.closed:
                    self.writer.close()
                self._publish(session.state)
                self.finished.emit()

    def _poll_humans_locked(self) -> None:
        # Called with the condition held while idle: decisions about feedback are reported
        # at once even when the episode is paused.
        if any(h.has_decisions() for h in self.humans.values()):
            self._cond.release()
            try:
                self._poll_humans()
                self._publish()
            finally:
                self._cond.acquire()
